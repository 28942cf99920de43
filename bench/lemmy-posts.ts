// Issue 37's bench: GET /api/v3/post/list sorted Hot (Lemmy 0.19's GetPosts query string) over 100,000 posts in 200
// communities, anonymous and signed in, all communities, the member's subscribed ones and one community, each with
// p50/p99 and as a ratio to verify_credentials measured against the same Stoa in the same run (as bench/timelines.ts
// measures the timelines). Seeds: bench/lemmy-seed.ts. `npm run bench -- --lemmy` runs only this.
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { seedLemmy, type LemmySeed } from './lemmy-seed.js';
import type { StoaProcess } from './processes.js';
import { seedUserToken } from './seed.js';
import { checkTimeline, measureTimeline } from './timeline-measure.js';
import type { TimelineRow } from './timelines.js';
import type { WrkSettings } from './wrk.js';

/** The cases: [name, path, signed in]. */
export function lemmyPaths(seed: LemmySeed): [name: string, path: string, signedIn: boolean][] {
  const hot = '/api/v3/post/list?sort=Hot&limit=20';
  return [
    ['verify_credentials', '/api/v1/accounts/verify_credentials', true],
    ['post/list Hot All, anonymous', `${hot}&type_=All`, false],
    ['post/list Hot All, signed in', `${hot}&type_=All`, true],
    ['post/list Hot Subscribed (20 communities), signed in', `${hot}&type_=Subscribed`, true],
    ['post/list Hot community_id, anonymous', `${hot}&community_id=${seed.communityId}`, false],
  ];
}

export async function measureLemmy(
  wrk: string,
  stoa: StoaProcess,
  databaseUrl: string,
  postmaster: number | null,
  s: WrkSettings,
): Promise<{ rows: TimelineRow[]; seed: LemmySeed }> {
  const token = await seedUserToken(databaseUrl);
  const db = new Database(databaseUrl, 1, pino({ level: 'silent' }));
  const member = await db.one<{ a: string }>('SELECT account_id::text AS a FROM users ORDER BY id LIMIT 1').finally(() => db.close());
  process.stderr.write('bench: seeding 200 communities and 100,000 posts (bench/lemmy-seed.ts)\n');
  const seed = await seedLemmy(databaseUrl, member!.a);
  const rows: TimelineRow[] = [];
  for (const [name, path, signedIn] of lemmyPaths(seed)) {
    process.stderr.write(`lemmy ${name}\n`);
    const headers: Record<string, string> = signedIn ? { Authorization: `Bearer ${token}` } : {};
    const target = { path, headers };
    const items = await checkTimeline(stoa.url, target);
    rows.push({ name, path, items, figures: await measureTimeline(wrk, stoa, target, s, postmaster) });
  }
  return { rows, seed };
}
