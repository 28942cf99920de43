// EXPLAIN (ANALYZE, BUFFERS) of the home page's statement, pulled over all statuses and read from home_feeds
// (issue 19, migration 054), for a member following BENCH_EXPLAIN_FOLLOWS (default 50) of 5,000 active accounts among BENCH_EXPLAIN_STATUSES
// (default 300,000) statuses: the heavy case, where the pull query walks ~100 statuses per one it keeps.
// Run: node dist/bench/home-explain.js
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { TimelineStore } from '../src/store/timelines.js';
import { openBenchDatabase } from './database.js';

const STATUSES = Number(process.env['BENCH_EXPLAIN_STATUSES'] ?? 300_000);
const FOLLOWS = Number(process.env['BENCH_EXPLAIN_FOLLOWS'] ?? 50);

async function main(): Promise<void> {
  const bench = await openBenchDatabase();
  const db = new Database(bench.url, 1, pino({ level: 'silent' }));
  try {
    await migrate(db, pino({ level: 'silent' }));
    await db.exec(`INSERT INTO accounts (username, domain, uri) SELECT 'a' || i, 'x.example', 'https://x.example/a' || i FROM generate_series(1, 5000) i`);
    const member = (await db.one<{ id: string }>(
      `WITH a AS (INSERT INTO accounts (username, domain) VALUES ('m', NULL) RETURNING id),
       u AS (INSERT INTO users (account_id, email, password_hash) SELECT id, 'm@bench.example', '!' FROM a)
       INSERT INTO follows (account_id, target_account_id) SELECT a.id, t.id FROM a, (SELECT id FROM accounts WHERE domain = 'x.example' ORDER BY id LIMIT $1) t
       RETURNING account_id::text AS id`,
      [FOLLOWS],
    ))!.id;
    await db.exec(
      `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
       SELECT timestamp_id(t), a.id, '<p>s</p>', 0, false, t
       FROM (SELECT now() - random() * interval '30 days' AS t, 1 + g % 5000 AS k FROM generate_series(1, $1::int) g) x
       JOIN (SELECT id, row_number() OVER (ORDER BY id) AS k FROM accounts WHERE domain = 'x.example') a ON a.k = x.k`,
      [STATUSES],
    );
    await db.exec('VACUUM ANALYZE');
    // The statements TimelineStore sends, caught on their way out.
    let caught: { text: string; values: readonly unknown[] } | null = null;
    const rows = db.rows.bind(db);
    db.rows = (async (text: string, values?: readonly unknown[], prepared?: 'prepared') => {
      caught = { text, values: values ?? [] };
      return rows(text, values, prepared);
    }) as typeof db.rows;
    const timelines = new TimelineStore(db);
    for (const [name, run] of [
      ['pull', () => timelines.homePulled(member, { limit: 20 })],
      ['feed', () => timelines.homeFromFeed(member, { limit: 20 })],
    ] as const) {
      await run();
      const c = caught as { text: string; values: readonly unknown[] } | null;
      if (!c) throw new Error('no statement caught');
      for (let i = 0; i < 3; i++) await db.rows(`EXPLAIN (ANALYZE, BUFFERS) ${c.text}`, c.values); // warm
      const plan = await db.rows<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${c.text}`, c.values);
      const lines = plan.map((r) => r['QUERY PLAN']);
      process.stdout.write(
        `--- ${name} (${STATUSES.toLocaleString('en-US')} statuses, ${FOLLOWS} follows)\n${[lines[0], lines[1], ...lines.filter((l) => /Execution Time|Planning Time/.test(l))].join('\n')}\n`,
      );
    }
  } finally {
    await db.close();
    await bench.stop();
  }
}

await main();
