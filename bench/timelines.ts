// Issue 19's timeline scenarios: every timeline a client reads, each measured with wrk against the same Stoa and
// reported as a ratio to verify_credentials measured in the same run (the ratio survives a slower or busier host
// where raw req/s do not), with p50/p99 and per request the CPU of Stoa and of PostgreSQL and the statements sent.
// Seeds: bench/timeline-seeds.ts (on top of seedHomeTimeline's 200,000 statuses).
import type { StoaProcess } from './processes.js';
import { checkTimeline, FIGURE_HEAD, figureCells, measureTimeline, textTable, type TimelineFigures } from './timeline-measure.js';
import { type TimelineSeed, seedTimelines } from './timeline-seeds.js';
import type { WrkSettings } from './wrk.js';

export interface TimelineRow {
  readonly name: string;
  readonly path: string;
  /** Items on the page as checked before the load (statuses, notifications, groups…). */
  readonly items: number;
  readonly figures: TimelineFigures;
}

export function timelinePaths(seed: TimelineSeed): [name: string, path: string][] {
  return [
    ['verify_credentials', '/api/v1/accounts/verify_credentials'],
    ['home', '/api/v1/timelines/home'],
    ['public', '/api/v1/timelines/public'],
    ['public local', '/api/v1/timelines/public?local=true'],
    ['tag', `/api/v1/timelines/tag/${seed.tag}`],
    ['list', `/api/v1/timelines/list/${seed.listId}`],
    ['account statuses', `/api/v1/accounts/${seed.localAccountId}/statuses`],
    ['notifications', '/api/v1/notifications'],
    ['grouped notifications', '/api/v2/notifications'],
    ['context (50 replies)', `/api/v1/statuses/${seed.threadId}/context`],
  ];
}

export async function measureTimelines(
  wrk: string,
  stoa: StoaProcess,
  databaseUrl: string,
  postmaster: number | null,
  s: WrkSettings,
  only?: ReadonlySet<string>,
): Promise<TimelineRow[]> {
  process.stderr.write('bench: seeding the timelines (bench/timeline-seeds.ts)\n');
  const seed = await seedTimelines(databaseUrl);
  const headers = { Authorization: `Bearer ${seed.token}` };
  const rows: TimelineRow[] = [];
  for (const [name, path] of timelinePaths(seed)) {
    if (only && name !== 'verify_credentials' && !only.has(name)) continue;
    process.stderr.write(`timeline ${name}\n`);
    const target = { path, headers };
    const items = await checkTimeline(stoa.url, target);
    rows.push({ name, path, items, figures: await measureTimeline(wrk, stoa, target, s, postmaster) });
  }
  return rows;
}

export function timelinesTable(rows: readonly TimelineRow[]): string {
  const base = rows.find((r) => r.name === 'verify_credentials')?.figures.requestsPerSec;
  return textTable(
    ['timeline', 'items', 'ratio to verify_credentials', ...FIGURE_HEAD],
    rows.map((r) => [r.name, String(r.items), base ? `${((r.figures.requestsPerSec / base) * 100).toFixed(2)} %` : '?', ...figureCells(r.figures)]),
  );
}
