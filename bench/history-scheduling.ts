// Remote history scheduling: two nodes (each its own connection pool, history scheduler and origin actors) on one
// real PostgreSQL drain queued jobs over many origins, one running per origin at a time. The runner does no network
// work (it commits one page through the real ledger), so this measures what scheduling costs: claims under the
// origin lock, page commits under the lease, outcomes, and the scheduler's rounds (bench/history.ts measures the
// real runner against loopback origins). Run alone with `node dist/bench/history-scheduling.js`; `npm run bench`
// runs it too.
import { pino } from 'pino';
import { HistoryScheduler } from '../actors/history-scheduler.js';
import { Slots } from '../actors/slots.js';
import type { Supervisor } from '../actors/supervisor.js';
import { Database } from '../src/store/db.js';
import { HistoryJobStore, type HistoryJobRunner } from '../src/store/history-jobs.js';
import { HISTORY_LIMITS, type ClaimedJob, type JobOutcome } from '../src/store/history-types.js';
import { migrate } from '../src/store/migrate.js';
import { openBenchDatabase } from './database.js';

const ORIGINS = Number(process.env['BENCH_HISTORY_ORIGINS'] ?? 200);
const JOBS_PER_ORIGIN = 3;
const NODES = ['bench-node-1', 'bench-node-2'];

export interface SchedulingFigures {
  readonly origins: number;
  readonly jobs: number;
  readonly seconds: number;
  readonly jobsPerSec: number;
  readonly perNode: readonly number[];
  /** The most jobs of one origin seen running at once (must be 1). */
  readonly mostAtOnce: number;
  readonly runMs: { p50: number; p99: number };
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length * 0.5)] ?? 0, p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0 };
}

/** Counts runs per node and per origin; each run commits one page of 20 examined items and ends `partial`. */
class CountingRunner implements HistoryJobRunner {
  readonly perNode = new Map<string, number>();
  readonly runMs: number[] = [];
  mostAtOnce = 0;
  private readonly live = new Map<string, number>();

  async run(job: ClaimedJob, ledger: HistoryJobStore): Promise<JobOutcome> {
    const t = performance.now();
    const n = (this.live.get(job.origin) ?? 0) + 1;
    this.live.set(job.origin, n);
    this.mostAtOnce = Math.max(this.mostAtOnce, n);
    try {
      const ok = await ledger.commitPage(job, { nextCursor: `${job.cursor}?page=2`, examined: 20, imported: 20 }, async () => {});
      this.perNode.set(job.owner, (this.perNode.get(job.owner) ?? 0) + 1);
      return ok ? { kind: 'partial' } : { kind: 'lease_lost' };
    } finally {
      this.live.set(job.origin, n - 1);
      this.runMs.push(performance.now() - t);
    }
  }
}

export async function measureHistoryScheduling(): Promise<SchedulingFigures> {
  const bench = await openBenchDatabase();
  const log = pino({ level: 'silent' });
  const dbs = NODES.map(() => new Database(bench.url, 4, log));
  const sups: Supervisor[] = [];
  try {
    await migrate(dbs[0]!, log);
    const db = dbs[0]!;
    await db.exec(
      `WITH a AS (
         INSERT INTO accounts (username, domain)
         SELECT 'u' || j, 'o' || o || '.example' FROM generate_series(1, $1) o, generate_series(1, $2) j RETURNING id, domain
       ) INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at)
         SELECT id, domain, 'queued', 'https://' || domain || '/outbox', 2, clock_timestamp() FROM a`,
      [ORIGINS, JOBS_PER_ORIGIN],
    );
    const runner = new CountingRunner();
    const total = ORIGINS * JOBS_PER_ORIGIN;
    const t0 = performance.now();
    for (const [i, node] of NODES.entries()) {
      const jobs = new HistoryJobStore(dbs[i]!);
      const { supervisor } = await HistoryScheduler.start({
        jobs,
        ledger: jobs,
        runner: { run: (job, ledger) => runner.run(job, ledger as HistoryJobStore) },
        owner: node,
        leaseMs: 2 * HISTORY_LIMITS.jobMs,
        jobMs: HISTORY_LIMITS.jobMs,
        enabled: async () => true,
        failed: () => {
          throw new Error('a bench run failed');
        },
        liveNodes: async () => NODES,
        maxOrigins: 256,
        slots: new Slots(4),
        originIdleMs: 30_000,
        onError: (e) => process.stderr.write(`history bench: ${String(e)}\n`),
      });
      sups.push(supervisor);
    }
    for (;;) {
      const left = (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM remote_histories WHERE state <> 'partial'`))!.n;
      if (left === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - t0) / 1000;
    return {
      origins: ORIGINS,
      jobs: total,
      seconds,
      jobsPerSec: total / seconds,
      perNode: NODES.map((n) => runner.perNode.get(n) ?? 0),
      mostAtOnce: runner.mostAtOnce,
      runMs: percentiles(runner.runMs),
    };
  } finally {
    for (const s of sups) await s.stop();
    for (const d of dbs) await d.close();
    await bench.stop();
  }
}

export function schedulingTable(f: SchedulingFigures): string {
  return [
    `Remote history scheduling: ${f.jobs} jobs over ${f.origins} origins, 2 nodes on one database, a runner that commits one page (no network)`,
    `jobs/s                     ${f.jobsPerSec.toFixed(0)} (${f.seconds.toFixed(2)} s; per node ${f.perNode.join(' + ')})`,
    `one run (page commit)      p50 ${f.runMs.p50.toFixed(2)} ms, p99 ${f.runMs.p99.toFixed(2)} ms`,
    `most runs of one origin at once: ${f.mostAtOnce} (the limit is ${HISTORY_LIMITS.runningPerOrigin})`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureHistoryScheduling().then(
    (f) => process.stdout.write(schedulingTable(f) + '\n'),
    (e: unknown) => {
      process.stderr.write(String(e) + '\n');
      process.exit(1);
    },
  );
}
