// The home page's scale curve (issue 19): members following 50, 500 and 5,000 of 5,000 active remote accounts,
// read at 10k, 100k and 1M statuses of those accounts. The cost per request must stay flat as statuses grow. Its own
// database and Stoa; statuses are added stage by stage with generate_series (never row by row), so the 1M stage
// reuses the 100k one (seeding 1M takes about 45 s here, the whole curve about 3 minutes at BENCH_DURATION=10).
// BENCH_SCALE: full (default, the 3×3 grid), small (10k and 100k, then only the heavy case — 50 follows at 1M),
// off.
import path from 'node:path';
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { AppStore } from '../src/store/oauth-apps.js';
import { TokenStore } from '../src/store/oauth-tokens.js';
import { openBenchDatabase } from './database.js';
import { postmasterPid } from './pg-cpu.js';
import { startStoa, type StoaProcess } from './processes.js';
import { seedUserToken } from './seed.js';
import { checkTimeline, FIGURE_HEAD, figureCells, measureTimeline, textTable, type TimelineFigures } from './timeline-measure.js';
import type { WrkSettings } from './wrk.js';

const ACTIVE = 5_000;
const FOLLOWS = [50, 500, 5_000] as const;
const DOMAIN = 'bench-active.example';

export interface ScaleRow {
  readonly statuses: number;
  readonly follows: number;
  readonly figures: TimelineFigures;
}

export interface ScaleResult {
  readonly verify: TimelineFigures;
  readonly rows: ScaleRow[];
  /** Seconds spent seeding each stage (insert + VACUUM ANALYZE). */
  readonly seedSec: Record<number, number>;
}

/** [statuses, follow counts measured at that size][] for the BENCH_SCALE setting; null when off. */
export function scalePlan(setting = process.env['BENCH_SCALE'] ?? 'full'): [number, readonly number[]][] | null {
  if (setting === 'off') return null;
  if (setting === 'full') return [10_000, 100_000, 1_000_000].map((n) => [n, FOLLOWS]);
  if (setting === 'small')
    return [
      [10_000, FOLLOWS],
      [100_000, FOLLOWS],
      [1_000_000, [50]],
    ];
  throw new Error(`BENCH_SCALE must be small, full or off (got ${JSON.stringify(setting)})`);
}

/** 5,000 active accounts and three members following the first 50, 500 and 5,000 of them; their read tokens. */
async function seedMembers(db: Database): Promise<Map<number, string>> {
  await db.tx(async (q) => {
    await q.query(
      `INSERT INTO accounts (username, domain, uri, inbox_url)
       SELECT 'a' || i, $1, 'https://' || $1 || '/users/a' || i, 'https://' || $1 || '/users/a' || i || '/inbox' FROM generate_series(1, $2) i`,
      [DOMAIN, ACTIVE],
    );
    for (const n of FOLLOWS) {
      await q.query(
        `WITH a AS (INSERT INTO accounts (username, domain) VALUES ($1, NULL) RETURNING id),
         u AS (INSERT INTO users (account_id, email, password_hash) SELECT id, $1 || '@bench.example', '!' FROM a)
         INSERT INTO follows (account_id, target_account_id)
         SELECT a.id, t.id FROM a, (SELECT id FROM accounts WHERE domain = $2 ORDER BY id LIMIT $3) t`,
        [`follows${n}`, DOMAIN, n],
      );
    }
  });
  const { app } = await new AppStore(db).create({ name: 'bench-scale', website: null, redirectUris: ['urn:ietf:wg:oauth:2.0:oob'], scopes: ['read'] });
  const tokens = new Map<number, string>();
  for (const n of FOLLOWS) {
    const user = (await db.one<{ id: string }>('SELECT u.id FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.username = $1', [`follows${n}`]))!;
    tokens.set(n, (await new TokenStore(db).issue(app.id, user.id, ['read'])).token);
  }
  return tokens;
}

/** Adds statuses of the active accounts (spread over 30 days, authors in turn) until there are `total`. */
async function growTo(db: Database, total: number): Promise<void> {
  const have = (await db.one<{ n: number }>('SELECT count(*)::int AS n FROM statuses'))!.n;
  if (have >= total) return;
  await db.exec(
    `INSERT INTO statuses (id, account_id, uri, content, visibility, local, created_at)
     SELECT timestamp_id(t), a.id, a.uri || '/statuses/' || g, '<p>bench status ' || g || '</p>', 0, false, t
     FROM (SELECT g, now() - random() * interval '30 days' AS t, 1 + g % $3 AS k FROM generate_series($1::int + 1, $2::int) g) x
     JOIN (SELECT id, uri, row_number() OVER (ORDER BY id) AS k FROM accounts WHERE domain = $4) a ON a.k = x.k`,
    [have, total, ACTIVE, DOMAIN],
  );
  await db.exec('VACUUM ANALYZE');
}

export async function measureScale(wrk: string, s: WrkSettings): Promise<ScaleResult | null> {
  const plan = scalePlan();
  if (!plan) return null;
  const bench = await openBenchDatabase();
  let stoa: StoaProcess | null = null;
  const db = new Database(bench.url, 1, pino({ level: 'silent' }));
  try {
    stoa = await startStoa({ DATABASE_URL: bench.url, STOA_DATA_DIR: path.join(bench.dataDir, 'stoa'), LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'info' });
    const postmaster = await postmasterPid(bench.url);
    const tokens = await seedMembers(db);
    const verifyTarget = { path: '/api/v1/accounts/verify_credentials', headers: { Authorization: `Bearer ${await seedUserToken(bench.url)}` } };
    process.stderr.write('scale: verify_credentials\n');
    const verify = await measureTimeline(wrk, stoa, verifyTarget, s, postmaster);
    const rows: ScaleRow[] = [];
    const seedSec: Record<number, number> = {};
    for (const [statuses, follows] of plan) {
      const t0 = performance.now();
      process.stderr.write(`scale: growing to ${statuses.toLocaleString('en-US')} statuses … `);
      await growTo(db, statuses);
      seedSec[statuses] = (performance.now() - t0) / 1000;
      process.stderr.write(`${seedSec[statuses].toFixed(0)} s\n`);
      for (const n of follows) {
        process.stderr.write(`scale: home, ${statuses} statuses, ${n} follows\n`);
        const target = { path: '/api/v1/timelines/home', headers: { Authorization: `Bearer ${tokens.get(n)!}` } };
        await checkTimeline(stoa.url, target);
        rows.push({ statuses, follows: n, figures: await measureTimeline(wrk, stoa, target, s, postmaster) });
      }
    }
    return { verify, rows, seedSec };
  } finally {
    await db.close();
    await stoa?.stop();
    await bench.stop();
  }
}

export function scaleTable(r: ScaleResult): string {
  const base = r.verify.requestsPerSec;
  return [
    `Home timeline scale curve (5,000 active accounts; verify_credentials ${Math.round(base).toLocaleString('en-US')} req/s in the same run)`,
    textTable(
      ['statuses', 'follows', 'ratio to verify_credentials', ...FIGURE_HEAD],
      r.rows.map((x) => [
        x.statuses.toLocaleString('en-US'),
        x.follows.toLocaleString('en-US'),
        `${((x.figures.requestsPerSec / base) * 100).toFixed(2)} %`,
        ...figureCells(x.figures),
      ]),
      0,
    ),
    `seeding: ${Object.entries(r.seedSec)
      .map(([n, sec]) => `${Number(n).toLocaleString('en-US')} statuses ${sec.toFixed(0)} s`)
      .join(', ')}`,
  ].join('\n');
}
