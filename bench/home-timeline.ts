// The home timeline query for a member following 5,000 accounts (20 statuses each, among as many statuses of
// accounts they do not follow), against a real PostgreSQL: first page, a page deep in the past, and the plan.
// Run alone with `node dist/bench/home-timeline.js` (embedded PostgreSQL, or DATABASE_URL); `npm run bench` runs it
// too. The HTTP side of the same timeline is the home_timeline wrk scenario.
import { pino } from 'pino';
import { hashPassword } from '../src/auth/password.js';
import { Database } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { TimelineStore } from '../src/store/timelines.js';
import { UserStore } from '../src/store/users.js';
import { openBenchDatabase } from './database.js';
import { seedHomeTimeline } from './seed.js';

const RUNS = Number(process.env['BENCH_HOME_RUNS'] ?? 200);

export interface HomeFigures {
  readonly following: number;
  readonly statuses: number;
  readonly firstPageMs: { p50: number; p99: number };
  readonly deepPageMs: { p50: number; p99: number };
  readonly plan: string;
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length * 0.5)]!, p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]! };
}

export async function measureHomeTimeline(): Promise<HomeFigures> {
  const bench = await openBenchDatabase();
  const db = new Database(bench.url, 2, pino({ level: 'silent' }));
  try {
    await migrate(db, pino({ level: 'silent' }));
    const users = new UserStore(db);
    if (!(await db.one('SELECT 1 FROM users LIMIT 1'))) {
      await users.create({
        username: 'reader',
        email: 'reader@bench.example',
        passwordHash: await hashPassword('bench-password-1'),
        roleId: 0,
        approved: true,
      });
    }
    await seedHomeTimeline(bench.url);
    const me = (await db.one<{ account_id: string }>('SELECT account_id FROM users ORDER BY id LIMIT 1'))!.account_id;
    const timelines = new TimelineStore(db);
    const counts = (await db.one<{ f: number; s: number }>(
      'SELECT (SELECT count(*)::int FROM follows WHERE account_id = $1) AS f, (SELECT count(*)::int FROM statuses) AS s',
      [me],
    ))!;
    for (let i = 0; i < 20; i++) await timelines.home(me, { limit: 20 }); // warm caches
    const first: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await timelines.home(me, { limit: 20 });
      first.push(performance.now() - t);
    }
    // A page about two weeks back: what scrolling far down costs.
    const mid = (await db.one<{ id: string }>("SELECT id FROM statuses WHERE created_at < now() - interval '15 days' ORDER BY id DESC LIMIT 1"))!.id;
    const deep: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await timelines.home(me, { limit: 20, maxId: mid });
      deep.push(performance.now() - t);
    }
    const plan = await db.rows<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS OFF, TIMING OFF) SELECT s.id FROM statuses s WHERE s.deleted_at IS NULL AND (s.account_id = $1
         OR (s.visibility <= 2 AND s.account_id IN (SELECT target_account_id FROM follows WHERE account_id = $1))) ORDER BY s.id DESC LIMIT 20`,
      [me],
    );
    return {
      following: counts.f,
      statuses: counts.s,
      firstPageMs: percentiles(first),
      deepPageMs: percentiles(deep),
      plan: plan
        .map((r) => r['QUERY PLAN'])
        .slice(0, 6)
        .join('\n'),
    };
  } finally {
    await db.close();
    await bench.stop();
  }
}

export function homeTable(f: HomeFigures): string {
  const ms = (x: { p50: number; p99: number }) => `p50 ${x.p50.toFixed(2)} ms, p99 ${x.p99.toFixed(2)} ms`;
  return [
    `Home timeline query: following ${f.following.toLocaleString('en-US')} accounts, ${f.statuses.toLocaleString('en-US')} statuses, ${RUNS} runs each`,
    `first page (20)            ${ms(f.firstPageMs)}`,
    `page 15 days back (20)     ${ms(f.deepPageMs)}`,
    'plan (core of the query):',
    f.plan,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureHomeTimeline().then(
    (f) => process.stdout.write(homeTable(f) + '\n'),
    (e: unknown) => {
      process.stderr.write(String(e) + '\n');
      process.exit(1);
    },
  );
}
