// The write side of the home feed (issue 19, migration 054): what POST /api/v1/statuses costs an author with 5,000
// local followers, whose post the trigger fans out into 5,000 home_feeds rows in the posting transaction. Same run,
// same database: rounds of posts with the fan-out trigger on, then off (ALTER TABLE … DISABLE TRIGGER: the cost
// before migration 054), alternating so a load change on a shared machine hits both alike.
// Run: node dist/bench/home-fanout.js (BENCH_FANOUT_FOLLOWERS, default 5000).
import path from 'node:path';
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { AppStore } from '../src/store/oauth-apps.js';
import { TokenStore } from '../src/store/oauth-tokens.js';
import { openBenchDatabase } from './database.js';
import { startStoa, type StoaProcess } from './processes.js';

const FOLLOWERS = Number(process.env['BENCH_FANOUT_FOLLOWERS'] ?? 5_000);
const ROUNDS = 5;
const PER_ROUND = 20;

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

async function main(): Promise<void> {
  const bench = await openBenchDatabase();
  let stoa: StoaProcess | null = null;
  const db = new Database(bench.url, 1, pino({ level: 'silent' }));
  try {
    // The fan-out in the posting transaction whatever the followers (issue 39 moves it to a job past 1,000 by default).
    stoa = await startStoa({
      DATABASE_URL: bench.url,
      STOA_DATA_DIR: path.join(bench.dataDir, 'stoa'),
      LOG_LEVEL: 'warn',
      HOME_FANOUT_THRESHOLD: '100000000',
    });
    const author = (await db.one<{ id: string; account_id: string }>(
      `WITH a AS (INSERT INTO accounts (username, domain) VALUES ('fanout_author', NULL) RETURNING id)
       INSERT INTO users (account_id, email, password_hash) SELECT id, 'fanout_author@bench.example', '!' FROM a RETURNING id, account_id`,
    ))!;
    await db.exec(
      `WITH a AS (INSERT INTO accounts (username, domain) SELECT 'fan' || i, NULL FROM generate_series(1, $1::int) i RETURNING id, username),
       u AS (INSERT INTO users (account_id, email, password_hash) SELECT id, username || '@bench.example', '!' FROM a)
       INSERT INTO follows (account_id, target_account_id) SELECT id, $2 FROM a`,
      [FOLLOWERS, author.account_id],
    );
    await db.exec('VACUUM ANALYZE');
    const { app } = await new AppStore(db).create({ name: 'bench-fanout', website: null, redirectUris: ['urn:ietf:wg:oauth:2.0:oob'], scopes: ['write'] });
    const token = (await new TokenStore(db).issue(app.id, author.id, ['write'])).token;
    const postOnce = async (n: number): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${stoa!.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: `fan-out ${n}`, visibility: 'public' }),
      });
      await res.text();
      if (res.status !== 200) throw new Error(`POST answered ${res.status}`);
      return performance.now() - t0;
    };
    const times: Record<'on' | 'off', number[]> = { on: [], off: [] };
    let n = 0;
    for (let i = 0; i < 3; i++) await postOnce(n++); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['on', 'off'] as const) {
        await db.exec(`ALTER TABLE statuses ${mode === 'on' ? 'ENABLE' : 'DISABLE'} TRIGGER home_feeds_status_insert`);
        for (let i = 0; i < PER_ROUND; i++) times[mode].push(await postOnce(n++));
      }
    }
    const rows = await db.one<{ n: number }>('SELECT count(*)::int AS n FROM home_feeds');
    process.stdout.write(`POST /api/v1/statuses, author with ${FOLLOWERS.toLocaleString('en-US')} local followers, ${ROUNDS * PER_ROUND} posts each\n`);
    for (const mode of ['off', 'on'] as const)
      process.stdout.write(
        `fan-out ${mode === 'on' ? 'on ' : 'off'}: p50 ${quantile(times[mode], 0.5).toFixed(1)} ms  p90 ${quantile(times[mode], 0.9).toFixed(1)} ms  max ${Math.max(...times[mode]).toFixed(1)} ms\n`,
      );
    process.stdout.write(`home_feeds rows at the end: ${rows!.n.toLocaleString('en-US')}\n`);
  } finally {
    await db.close();
    await stoa?.stop();
    await bench.stop();
  }
}

await main();
