// Remote history through the real engine: Stoa processes (bench/stoa-server.ts, the real startApp with
// FEDERATION_ALLOW_PRIVATE=loopback and the feature switched on) run initial fetches against loopback origins
// (bench/history-origins.ts): each job reads an outbox and a 20-item page and imports 20 posts, signed GETs through
// the SSRF-guarded client, the page's imports committed under the lease. Three measurements:
//   1. one job's time, p50 and p99, over BENCH_HISTORY_RUNS (200) jobs of different actors run one at a time;
//   2. the Stoa process's memory over BENCH_HISTORY_ORIGINS (1,000) origins each fetched once (25 at a time),
//      sampled every quarter (with --expose-gc: RSS as it is, then RSS and V8 heap after a full collection);
//   3. jobs/s draining BENCH_HISTORY_JOBS (300) queued jobs over half as many origins, one node, then two nodes
//      (two processes on one database).
// Jobs are queued as RemoteHistoryStore.request queues them (a row `queued` with the outbox as cursor, a budget of
// 2 documents, `history:<origin>` notified); the accounts are inserted as stored remote actors. A trigger in a
// `bench` schema records when each job was claimed (state → fetching) and when it ended, with the database's clock,
// and notifies this process: the times are Stoa's, not this process's polling. Run alone with
// `node dist/bench/history.js` (after the build); `npm run bench` runs it too.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { HistorySettingsStore } from '../src/store/history-settings.js';
import { migrate } from '../src/store/migrate.js';
import { cpuSeconds, machineBusySeconds } from './cpu.js';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { ITEMS_PER_PAGE, startBenchOrigins, type BenchOrigin, type BenchOrigins } from './history-origins.js';
import { Endings, queueInitialFetches, stats, TRACE_SQL, type Ms } from './history-trace.js';
import { startStoa, type StoaProcess } from './processes.js';
import { loadavg } from './machine.js';

const num = (name: string, dflt: number) => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a whole number ≥ 1`);
  return v;
};
const RUNS = num('BENCH_HISTORY_RUNS', 200);
const WARMUP_RUNS = 10;
const ORIGINS = num('BENCH_HISTORY_ORIGINS', 1000);
const JOBS = num('BENCH_HISTORY_JOBS', 300);
/** Origins fetched at once while the memory curve is drawn (the curve is about origins seen, not a burst). */
const WAVE = 25;
const JOBS_PER_ORIGIN = 2;

interface MemorySample {
  readonly origins: number;
  /** MiB. */
  readonly rss: number;
  readonly rssAfterGc: number;
  readonly heapAfterGc: number;
}

export interface RealHistoryFigures {
  readonly runs: number;
  /** Claim to end (Stoa's run: two fetches, 20 imports, the page's and the outcome's transactions). */
  readonly runMs: Ms;
  /** Queued (committed) to end: the scheduler's wake-up included. */
  readonly queuedMs: Ms;
  readonly origins: number;
  /** After 0, ¼ … all origins fetched once: the RSS as it was, then RSS and V8 heap after a full collection. */
  readonly memory: readonly MemorySample[];
  /** Least-squares slopes over the samples, KiB per origin. */
  readonly slopeKiB: { readonly rss: number; readonly rssAfterGc: number; readonly heapAfterGc: number };
  /** Jobs of the RSS quarters that did not import their page. */
  readonly rssFailed: readonly Failed[];
  readonly oneNode: Drain;
  readonly twoNodes: Drain;
  readonly loadBefore: string;
  readonly loadAfter: string;
}

/** Jobs that ended otherwise than `partial` with a page imported. */
interface Failed {
  readonly count: number;
  /** e.g. "12 backoff (transport)". */
  readonly why: string;
}

interface Drain {
  readonly jobs: number;
  readonly failed: Failed;
  readonly origins: number;
  readonly seconds: number;
  readonly jobsPerSec: number;
  readonly perNode: readonly number[];
  readonly runMs: Ms;
  /** The most runs of one origin at the same time (the limit is 1). */
  readonly mostAtOnce: number;
  /** CPU of the Stoa processes and of the whole machine, in % of one core over the drain. */
  readonly stoaCpu: number | null;
  readonly machineCpu: number | null;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb[1]) / 1024;
}

function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  const cov = points.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0);
  const vx = points.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
  return vx === 0 ? 0 : cov / vx;
}

class Bench {
  constructor(
    readonly db: Database,
    readonly endings: Endings,
  ) {}

  /** Remote actors `name` on these origins, stored and queued for their initial fetch in one transaction. */
  queue(actors: readonly { origin: BenchOrigin; name: string }[]): Promise<string[]> {
    return queueInitialFetches(this.db, actors);
  }

  /**
   * Queues the jobs and waits for each to end; returns them with those that did not end `partial` having imported a
   * page (`strict`: any such job fails the bench), counted by state and reason.
   */
  async runAll(actors: readonly { origin: BenchOrigin; name: string }[], what: string, strict = true): Promise<{ ids: string[]; failed: Failed }> {
    const ids = await this.queue(actors);
    await this.endings.all(ids, what);
    const bad = await this.db.rows<{ state: string; reason: string | null; n: number }>(
      `SELECT state, reason, count(*)::int AS n FROM remote_histories
       WHERE account_id = ANY($1::bigint[]) AND NOT (state = 'partial' AND items_imported = $2) GROUP BY 1, 2`,
      [ids, ITEMS_PER_PAGE],
    );
    if (strict && bad.length > 0) throw new Error(`${what}: jobs did not import a page: ${JSON.stringify(bad)}`);
    // A job in backoff would run again a minute later, in the middle of another phase: not within this bench.
    await this.db.exec(`UPDATE remote_histories SET retry_at = now() + interval '1 day' WHERE account_id = ANY($1::bigint[]) AND state = 'backoff'`, [ids]);
    const failed: Failed = { count: bad.reduce((a, r) => a + r.n, 0), why: bad.map((r) => `${r.n} ${r.state}${r.reason ? ` (${r.reason})` : ''}`).join(', ') };
    return { ids, failed };
  }

  async times(ids: readonly string[]): Promise<{ run: number[]; queued: number[]; owners: string[]; seconds: number; mostAtOnce: number }> {
    // The runs that imported their page (a failed run's time is its failure's).
    const rows = await this.db.rows<{ run: number; queued: number; owner: string }>(
      `SELECT extract(epoch FROM finished_at - claimed_at)::float8 * 1000 AS run,
              extract(epoch FROM finished_at - queued_at)::float8 * 1000 AS queued, owner
       FROM bench.history_runs WHERE account_id = ANY($1::bigint[]) AND state = 'partial'`,
      [ids],
    );
    const span = await this.db.one<{ s: number }>(
      `SELECT extract(epoch FROM max(finished_at) - min(queued_at))::float8 AS s FROM bench.history_runs WHERE account_id = ANY($1::bigint[])`,
      [ids],
    );
    // For each run, the runs of its origin (any job's) that overlapped it, itself included.
    const overlap = await this.db.one<{ n: number }>(
      `SELECT coalesce(max(c), 0)::int AS n FROM (
         SELECT count(*) AS c FROM bench.history_runs a JOIN bench.history_runs b
           ON a.origin = b.origin AND b.claimed_at < coalesce(a.finished_at, 'infinity') AND a.claimed_at < coalesce(b.finished_at, 'infinity')
         WHERE a.account_id = ANY($1::bigint[]) GROUP BY a.run_id) x`,
      [ids],
    );
    return { run: rows.map((r) => r.run), queued: rows.map((r) => r.queued), owners: rows.map((r) => r.owner), seconds: span!.s, mostAtOnce: overlap!.n };
  }

  /** Drains JOBS jobs over JOBS / 2 origins on the given nodes. */
  async drain(nodes: readonly StoaProcess[], origins: readonly BenchOrigin[], tag: string): Promise<Drain> {
    const actors = origins.flatMap((origin) => Array.from({ length: JOBS_PER_ORIGIN }, (_, i) => ({ origin, name: `${tag}${i}` })));
    const cpu0 = nodes.map((n) => cpuSeconds(n.pid));
    const machine0 = machineBusySeconds();
    const t0 = performance.now();
    const { ids, failed } = await this.runAll(actors, `drain on ${nodes.length} node(s)`, false);
    const wall = (performance.now() - t0) / 1000;
    const cpu1 = nodes.map((n) => cpuSeconds(n.pid));
    const machine1 = machineBusySeconds();
    const t = await this.times(ids);
    const owners = [...new Set(t.owners)].sort();
    const stoaCpu = cpu0.some((c) => c === null) || cpu1.some((c) => c === null) ? null : cpu1.reduce<number>((a, c, i) => a + c! - cpu0[i]!, 0);
    return {
      jobs: ids.length,
      failed,
      origins: origins.length,
      seconds: t.seconds,
      jobsPerSec: (ids.length - failed.count) / t.seconds,
      perNode: owners.map((o) => t.owners.filter((x) => x === o).length),
      runMs: stats(t.run),
      mostAtOnce: t.mostAtOnce,
      stoaCpu: stoaCpu === null ? null : (100 * stoaCpu) / wall,
      machineCpu: machine0 === null || machine1 === null ? null : (100 * (machine1 - machine0)) / wall,
    };
  }
}

export async function measureHistory(): Promise<RealHistoryFigures> {
  const loadBefore = loadavg();
  const log = pino({ level: 'silent' });
  let bench: BenchDatabase | null = null;
  let origins: BenchOrigins | null = null;
  let db: Database | null = null;
  let endings: Endings | null = null;
  const nodes: StoaProcess[] = [];
  try {
    bench = await openBenchDatabase();
    const dbUrl = bench.url;
    db = new Database(dbUrl, 2, log);
    await migrate(db, log);
    await new HistorySettingsStore(db).update({ enabled: true });
    await db.exec(TRACE_SQL);
    endings = await Endings.listen(dbUrl);
    // Origin 0 serves the one-at-a-time runs; 1…ORIGINS are each fetched once for the RSS curve, then drained.
    origins = await startBenchOrigins(ORIGINS + 1);
    const [solo, ...many] = origins.origins as [BenchOrigin, ...BenchOrigin[]];
    const startNode = (n: number) =>
      startStoa(
        {
          DATABASE_URL: dbUrl,
          STOA_DATA_DIR: path.join(bench!.dataDir, `stoa-${n}`),
          LOG_LEVEL: 'info',
          FEDERATION_ALLOW_PRIVATE: 'loopback',
        },
        ['--expose-gc'],
      );
    nodes.push(await startNode(1));
    const stoa = nodes[0]!;
    const b = new Bench(db, endings);
    process.stderr.write(`history bench: Stoa pid ${stoa.pid}, ${origins.origins.length} loopback origins\n`);

    // 1. One job at a time, each of another actor (of one origin: its jobs run one at a time anyway).
    for (let i = 0; i < WARMUP_RUNS; i++) await b.runAll([{ origin: solo, name: `warm${i}` }], 'warm-up');
    const soloIds: string[] = [];
    for (let i = 0; i < RUNS; i++) soloIds.push(...(await b.runAll([{ origin: solo, name: `solo${i}` }], 'one job')).ids);
    const solos = await b.times(soloIds);
    process.stderr.write(`history bench: ${RUNS} single jobs done\n`);

    // 2. Memory over origins each fetched once, in quarters.
    const MiB = 1024 * 1024;
    const sample = async (n: number): Promise<MemorySample> => {
      const rss = rssMiB(stoa.pid);
      const m = await stoa.memory();
      return { origins: n, rss, rssAfterGc: m.rss / MiB, heapAfterGc: m.heapUsed / MiB };
    };
    const memory: MemorySample[] = [await sample(0)];
    const rssFailed: Failed[] = [];
    const quarter = Math.ceil(many.length / 4);
    for (let q = 0; q < 4; q++) {
      const batch = many.slice(q * quarter, (q + 1) * quarter);
      let failed: Failed = { count: 0, why: '' };
      for (let w = 0; w < batch.length; w += WAVE) {
        const f = (
          await b.runAll(
            batch.slice(w, w + WAVE).map((origin) => ({ origin, name: 'rss' })),
            'rss',
            false,
          )
        ).failed;
        if (f.count > 0) failed = { count: failed.count + f.count, why: [failed.why, f.why].filter(Boolean).join(', ') };
      }
      rssFailed.push(failed);
      memory.push(await sample(Math.min(many.length, (q + 1) * quarter)));
    }
    process.stderr.write(`history bench: RSS after GC over ${many.length} origins: ${memory.map((m) => m.rssAfterGc.toFixed(0)).join(' ')} MiB\n`);

    // 3. Draining: one node, then two, each on its own fresh actors of as many origins.
    const drainOrigins = Math.min(many.length / 2, Math.ceil(JOBS / JOBS_PER_ORIGIN));
    const oneNode = await b.drain(nodes, many.slice(0, drainOrigins), 'one');
    nodes.push(await startNode(2));
    const twoNodes = await b.drain(nodes, many.slice(drainOrigins, 2 * drainOrigins), 'two');

    return {
      runs: RUNS,
      runMs: stats(solos.run),
      queuedMs: stats(solos.queued),
      origins: many.length,
      memory,
      slopeKiB: {
        rss: slope(memory.map((m) => [m.origins, m.rss])) * 1024,
        rssAfterGc: slope(memory.map((m) => [m.origins, m.rssAfterGc])) * 1024,
        heapAfterGc: slope(memory.map((m) => [m.origins, m.heapAfterGc])) * 1024,
      },
      rssFailed,
      oneNode,
      twoNodes,
      loadBefore,
      loadAfter: loadavg(),
    };
  } finally {
    await Promise.allSettled(nodes.map((n) => n.stop()));
    await endings?.close().catch(() => {});
    await db?.close();
    await origins?.close();
    await bench?.stop();
  }
}

const f1 = (n: number) => n.toFixed(1);
const pctOf = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(0)} %`);

export function realHistoryTable(f: RealHistoryFigures): string {
  const drain = (label: string, d: Drain) =>
    `${label}  ${d.jobsPerSec.toFixed(1)} jobs/s imported (${d.jobs} jobs over ${d.origins} origins in ${d.seconds.toFixed(1)} s; per node ${d.perNode.join(' + ')}; ` +
    `not imported: ${d.failed.count === 0 ? 'none' : d.failed.why}), ` +
    `run p50 ${f1(d.runMs.p50)} ms p99 ${f1(d.runMs.p99)} ms, most runs of one origin at once ${d.mostAtOnce}, ` +
    `CPU Stoa ${pctOf(d.stoaCpu)} machine ${pctOf(d.machineCpu)}`;
  return [
    `Remote history, real runner: each job reads an outbox and a ${ITEMS_PER_PAGE}-item page from a loopback origin and imports ${ITEMS_PER_PAGE} posts`,
    `one job (claim → end)      p50 ${f1(f.runMs.p50)} ms, p99 ${f1(f.runMs.p99)} ms, mean ${f1(f.runMs.mean)} ms over ${f.runs} jobs one at a time (goal < 200 ms)`,
    `queued → end               p50 ${f1(f.queuedMs.p50)} ms, p99 ${f1(f.queuedMs.p99)} ms`,
    `memory over ${f.origins} origins each fetched once (MiB at ${f.memory.map((m) => m.origins).join(' / ')} origins; slope in KiB per origin):`,
    `  RSS as sampled          ${f.memory.map((m) => m.rss.toFixed(1)).join(' / ')}; slope ${f.slopeKiB.rss.toFixed(2)}`,
    `  RSS after a full GC     ${f.memory.map((m) => m.rssAfterGc.toFixed(1)).join(' / ')}; slope ${f.slopeKiB.rssAfterGc.toFixed(2)}`,
    `  V8 heap after a full GC ${f.memory.map((m) => m.heapAfterGc.toFixed(1)).join(' / ')}; slope ${f.slopeKiB.heapAfterGc.toFixed(2)}`,
    `  not imported per quarter: ${f.rssFailed.map((x) => (x.count === 0 ? '0' : x.why)).join(' / ')}`,
    drain('1 node ', f.oneNode),
    drain('2 nodes', f.twoNodes),
    `load average before ${f.loadBefore}, after ${f.loadAfter}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureHistory().then(
    (f) => process.stdout.write(realHistoryTable(f) + '\n', () => process.exit(0)),
    (e: unknown) => {
      process.stderr.write(`history bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
