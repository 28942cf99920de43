// Issue 39, "posting cost that does not grow with followers": POST /api/v1/statuses latency for four authors with
// 10, 1,000, 10,000 and 100,000 local followers, in the same run against one Stoa and one database (their posts
// interleaved, so a load change hits all alike, each on a quiet database: the previous post's fan-out job done), then how long after a post of the 100,000-follower author every
// follower's home feed holds it (its fan-out job done; their home timelines show it at once all the same, through the
// pull query: the first home read of the last follower in the job's order is timed too). Followers are seeded
// set-based in SQL. HOME_FANOUT_THRESHOLD is the server's default (200): every author here but the first has a job. HOME_FANOUT_THRESHOLD in the environment is passed on (e.g. 100000000:
// every fan-out in the posting transaction, as before issue 39).
// Run alone: node dist/bench/posting-by-followers.js; in `npm run bench` (off-line sections) and `npm run bench -- --posting`.
import path from 'node:path';
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { AppStore } from '../src/store/oauth-apps.js';
import { TokenStore } from '../src/store/oauth-tokens.js';
import { openBenchDatabase } from './database.js';
import { loadavg } from './machine.js';
import { startStoa, type StoaProcess } from './processes.js';

const SIZES = [10, 1_000, 10_000, 100_000] as const;
const ROUNDS = 5;
const PER_ROUND = 10;
const SEEN_POSTS = 5;

export interface PostingFigures {
  readonly byFollowers: readonly { followers: number; p50: number; p99: number; max: number; n: number }[];
  /** POST start to the last follower's feed row (job done), ms, per quiet post of the 100,000 author. */
  readonly seenMs: readonly number[];
  /** POST start to the last follower's first home page showing the post, ms. */
  readonly homeMs: readonly number[];
  readonly seedSec: number;
  readonly load: { readonly start: string; readonly end: string };
}

let seed = 39;
/** SIZES in a repeatable random order. */
function shuffled(xs: readonly number[]): number[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = Math.floor((seed / 2147483648) * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

export async function measurePostingByFollowers(log: (line: string) => void = () => {}): Promise<PostingFigures> {
  const start = loadavg();
  const bench = await openBenchDatabase();
  let stoa: StoaProcess | null = null;
  const db = new Database(bench.url, 2, pino({ level: 'silent' }));
  try {
    stoa = await startStoa({ DATABASE_URL: bench.url, STOA_DATA_DIR: path.join(bench.dataDir, 'stoa'), LOG_LEVEL: 'warn' });
    const most = 100_000;
    log(`bench: posting: seeding ${most.toLocaleString('en-US')} members and their follows`);
    const t0 = performance.now();
    const authors = await db.rows<{ id: string; account_id: string; n: number }>(
      `WITH a AS (INSERT INTO accounts (username, domain) SELECT 'poster' || n, NULL FROM unnest($1::int[]) n RETURNING id, username)
       INSERT INTO users (account_id, email, password_hash) SELECT id, username || '@bench.example', '!' FROM a
       RETURNING id::text, account_id::text, substr(email, 7, strpos(email, '@') - 7)::int AS n`,
      [SIZES],
    );
    await db.exec(
      // Ids made from one distinct past millisecond each: the default's per-millisecond sequence wraps at 65,536.
      `WITH a AS (INSERT INTO accounts (id, username, domain) SELECT timestamp_id(now() - interval '1 day' + i * interval '1 millisecond'), 'fan' || i, NULL
                  FROM generate_series(1, $1::int) i RETURNING id, username)
       INSERT INTO users (id, account_id, email, password_hash) SELECT id, id, username || '@bench.example', '!' FROM a`,
      [most],
    );
    // Author k is followed by fan1 … fan<k>; fan1 follows all four.
    // Without the follow triggers (session_replication_role replica, this transaction only): they would bring each
    // author's posts into the new follower's feed one follow at a time, and there are none yet.
    log(`bench: posting: members in ${((performance.now() - t0) / 1000).toFixed(1)} s; now the follows`);
    await db.tx(async (q) => {
      await q.query('SET LOCAL session_replication_role = replica');
      for (const [k, a] of authors.entries())
        await q.query(
          `INSERT INTO follows (id, account_id, target_account_id)
         SELECT timestamp_id(now() - interval '2 days' + ($3::int * 200000 + row_number() OVER (ORDER BY ac.id)) * interval '1 millisecond'), ac.id, $2
         FROM accounts ac WHERE ac.domain IS NULL AND ac.username IN (SELECT 'fan' || i FROM generate_series(1, $1::int) i)`,
          [a.n, a.account_id, k],
        );
    });
    await db.exec('VACUUM ANALYZE');
    const seedSec = (performance.now() - t0) / 1000;
    const { app } = await new AppStore(db).create({
      name: 'bench-posting',
      website: null,
      redirectUris: ['urn:ietf:wg:oauth:2.0:oob'],
      scopes: ['read', 'write'],
    });
    const tokens = new TokenStore(db);
    const token = new Map<number, string>();
    for (const a of authors) token.set(a.n, (await tokens.issue(app.id, a.id, ['write'])).token);
    // The last follower of the biggest author in the job's order (follows.id), to read its home page.
    const last = (await db.one<{ user_id: string; account_id: string }>(
      `SELECT u.id::text AS user_id, u.account_id::text FROM follows f JOIN users u ON u.account_id = f.account_id
       WHERE f.target_account_id = $1 ORDER BY f.id DESC LIMIT 1`,
      [authors.find((a) => a.n === most)!.account_id],
    ))!;
    const lastToken = (await tokens.issue(app.id, last.user_id, ['read'])).token;
    let serial = 0;
    const post = async (n: number): Promise<{ ms: number; id: string }> => {
      const t = performance.now();
      const res = await fetch(`${stoa!.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token.get(n)}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: `to ${n} followers, ${serial++}`, visibility: 'public' }),
      });
      const body = (await res.json()) as { id: string };
      if (res.status !== 200) throw new Error(`POST answered ${res.status}`);
      return { ms: performance.now() - t, id: body.id };
    };
    const drained = async () => {
      while ((await db.one<{ n: number }>('SELECT count(*)::int AS n FROM home_feed_jobs'))!.n > 0) await new Promise((r) => setTimeout(r, 50));
    };
    for (const n of SIZES) for (let i = 0; i < 3; i++) await post(n); // warm-up
    await drained();
    const times = new Map<number, number[]>(SIZES.map((n) => [n, []]));
    for (let round = 0; round < ROUNDS; round++) {
      log(`bench: posting: round ${round + 1} of ${ROUNDS}`);
      // Each post on a quiet database: a post's own job (the 10,000 and 100,000 authors') is done before the next.
      // A shuffled order each time (seeded), so that each size follows the 100,000 author's job (the aftermath of its
      // writes: the next post after it is slower) about as often: rotating the order would always put the same one next.
      for (let i = 0; i < PER_ROUND; i++)
        for (const n of shuffled(SIZES)) {
          times.get(n)!.push((await post(n)).ms);
          await drained();
        }
    }
    log('bench: posting: time until the followers of the 100,000 author see a post');
    const seenMs: number[] = [];
    const homeMs: number[] = [];
    for (let i = 0; i < SEEN_POSTS; i++) {
      const t = performance.now();
      const { id } = await post(most);
      for (;;) {
        const res = await fetch(`${stoa.url}/api/v1/timelines/home?limit=1`, { headers: { Authorization: `Bearer ${lastToken}` } });
        const page = (await res.json()) as { id: string }[];
        if (page[0]?.id === id) break;
      }
      homeMs.push(performance.now() - t);
      for (;;) {
        const r = await db.one<{ done: boolean }>(
          'SELECT NOT EXISTS (SELECT 1 FROM home_feed_jobs WHERE status_id = $1) AND EXISTS (SELECT 1 FROM home_feeds WHERE account_id = $2 AND status_id = $1) AS done',
          [id, last.account_id],
        );
        if (r!.done) break;
        await new Promise((res) => setTimeout(res, 10));
      }
      seenMs.push(performance.now() - t);
    }
    const byFollowers = SIZES.map((n) => {
      const xs = times.get(n)!;
      return { followers: n, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: Math.max(...xs), n: xs.length };
    });
    return { byFollowers, seenMs, homeMs, seedSec, load: { start, end: loadavg() } };
  } finally {
    await db.close();
    await stoa?.stop();
    await bench.stop();
  }
}

export function postingTable(f: PostingFigures): string {
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const lines = [
    `Posting by followers (issue 39): POST /api/v1/statuses, ${f.byFollowers[0]!.n} posts per author interleaved (each on a quiet database: the previous post's job done), HOME_FANOUT_THRESHOLD ${Number(process.env['HOME_FANOUT_THRESHOLD'] ?? 200).toLocaleString('en-US')}; seeded in ${f.seedSec.toFixed(1)} s; load average ${f.load.start} → ${f.load.end}`,
    '| local followers | p50 | p99 | max |',
    '|---:|---:|---:|---:|',
    ...f.byFollowers.map((r) => `| ${r.followers.toLocaleString('en-US')} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} |`),
    `100,000 followers: every feed holds the post after ${f.seenMs.map((x) => ms(x)).join(', ')} (job done); the last follower's home page shows it after ${f.homeMs.map((x) => ms(x)).join(', ')}`,
  ];
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('posting-by-followers.js')) {
  const figures = await measurePostingByFollowers((line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${postingTable(figures)}\n`);
}
