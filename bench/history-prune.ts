// Remote history retention: the prune over 100,000 history posts (1,000 remote actors, 100 each, none viewed for
// 100 days), one 200-row batch after another as the sweep does, against a real PostgreSQL; and a feed query (the
// public timeline's first page) measured alone, then while the prune runs on another connection. Run alone with
// `node dist/bench/history-prune.js` (embedded PostgreSQL, or DATABASE_URL); `npm run bench` runs it too.
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { HistoryPruneStore } from '../src/store/history-prune.js';
import { migrate } from '../src/store/migrate.js';
import { TimelineStore } from '../src/store/timelines.js';
import { openBenchDatabase } from './database.js';

const POSTS = Number(process.env['BENCH_PRUNE_POSTS'] ?? 100_000);
const ACTORS = 1_000;
const FEED_RUNS = 200;

export interface PruneFigures {
  readonly posts: number;
  readonly seconds: number;
  readonly rowsPerSec: number;
  readonly feedAloneMs: { p50: number; p99: number };
  readonly feedDuringMs: { p50: number; p99: number };
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length * 0.5)] ?? 0, p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0 };
}

async function feedSamples(timelines: TimelineStore, until: () => boolean, atLeast: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < atLeast || !until()) {
    const t = performance.now();
    await timelines.publicTimeline({ limit: 20 }, 'all');
    out.push(performance.now() - t);
    if (out.length >= atLeast && until()) break;
  }
  return out;
}

export async function measurePrune(): Promise<PruneFigures> {
  const bench = await openBenchDatabase();
  const log = pino({ level: 'silent' });
  const db = new Database(bench.url, 2, log);
  const feedDb = new Database(bench.url, 2, log);
  try {
    await migrate(db, log);
    const perActor = Math.ceil(POSTS / ACTORS);
    await db.exec(
      `WITH a AS (
         INSERT INTO accounts (username, domain) SELECT 'h' || i, 'o' || (i % 50) || '.example' FROM generate_series(1, $1) i RETURNING id, domain
       ) INSERT INTO remote_histories (account_id, origin, state, viewed_at) SELECT id, domain, 'partial', now() - interval '100 days' FROM a`,
      [ACTORS],
    );
    // In statements of at most 10,000 rows: timestamp_id() makes ids unique among 65,536 rows of one instant.
    const actors = (await db.rows<{ account_id: string }>('SELECT account_id FROM remote_histories ORDER BY account_id')).map((r) => r.account_id);
    for (let i = 0; i < actors.length; i += 100) {
      await db.exec(
        `INSERT INTO statuses (account_id, content, visibility, local, history, created_at)
         SELECT a, '<p>old</p>', 0, false, true, now() - interval '1 year' + j * interval '1 minute' FROM unnest($1::bigint[]) a, generate_series(1, $2) j`,
        [actors.slice(i, i + 100), perActor],
      );
    }
    // What the feed shows: delivered posts of other remote accounts.
    await db.exec(
      `WITH a AS (INSERT INTO accounts (username, domain) SELECT 'd' || i, 'feed.example' FROM generate_series(1, 100) i RETURNING id)
       INSERT INTO statuses (account_id, content, visibility, local) SELECT id, '<p>new</p>', 0, false FROM a, generate_series(1, 50)`,
    );
    await db.exec('ANALYZE');
    const total = (await db.one<{ n: number }>('SELECT count(*)::int AS n FROM statuses WHERE history'))!.n;
    const timelines = new TimelineStore(feedDb);
    const feedAlone = await feedSamples(timelines, () => true, FEED_RUNS);

    const prune = new HistoryPruneStore(db);
    let done = false;
    const t0 = performance.now();
    const pruning = (async () => {
      try {
        for (;;) if ((await prune.prune('sweep', 90, new Date())).removed === 0) break;
      } finally {
        done = true;
      }
    })();
    const feedDuring = await feedSamples(timelines, () => done, FEED_RUNS);
    await pruning;
    const seconds = (performance.now() - t0) / 1000;
    const left = (await db.one<{ n: number }>('SELECT count(*)::int AS n FROM statuses WHERE history'))!.n;
    if (left !== 0) throw new Error(`${left} history posts left after the prune`);
    return { posts: total, seconds, rowsPerSec: total / seconds, feedAloneMs: percentiles(feedAlone), feedDuringMs: percentiles(feedDuring) };
  } finally {
    await feedDb.close();
    await db.close();
    await bench.stop();
  }
}

export function pruneTable(f: PruneFigures): string {
  return [
    `Remote history prune: ${f.posts} history posts of 1,000 actors, 200-row batches one after another`,
    `rows/s                     ${f.rowsPerSec.toFixed(0)} (${f.seconds.toFixed(2)} s)`,
    `public timeline, alone     p50 ${f.feedAloneMs.p50.toFixed(2)} ms, p99 ${f.feedAloneMs.p99.toFixed(2)} ms`,
    `public timeline, pruning   p50 ${f.feedDuringMs.p50.toFixed(2)} ms, p99 ${f.feedDuringMs.p99.toFixed(2)} ms`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measurePrune().then(
    (f) => process.stdout.write(pruneTable(f) + '\n'),
    (e: unknown) => {
      process.stderr.write(String(e) + '\n');
      process.exit(1);
    },
  );
}
