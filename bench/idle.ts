// `node dist/bench/idle.js` (after `npm run build`): what an idle Stoa costs. Starts Stoa in its own process against
// an embedded PostgreSQL (or DATABASE_URL), lets its start-up settle, then over BENCH_IDLE_SECONDS (default 10)
// reports the Stoa process's CPU, the whole machine's busy CPU (PostgreSQL included), the transactions that
// reached the database (autovacuum's too) and how often the work queues' tables were read (the pollers' questions).
// Nothing is sent to Stoa meanwhile.
import path from 'node:path';
import pg from 'pg';
import { cpuSeconds, machineBusySeconds } from './cpu.js';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { startStoa, type ServerProcess } from './processes.js';

const SETTLE_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** PostgreSQL's server processes for Stoa's connections now (its pool and its listening connection). */
async function backendPids(url: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return r.rows.map((x) => x.pid);
  } finally {
    await c.end();
  }
}

/** CPU seconds of these processes, by pid (a process gone is left out: the pool closes idle connections). */
const cpuOf = (pids: readonly number[]) => new Map(pids.map((p) => [p, cpuSeconds(p)]));

function cpuDelta(before: Map<number, number | null>, after: Map<number, number | null>): number {
  let sum = 0;
  for (const [pid, b] of before) {
    const a = after.get(pid);
    if (a != null && b != null) sum += a - b;
  }
  return sum;
}

/**
 * Transactions in Stoa's database (autovacuum's included), and scans of the work queues' tables (Stoa's pollers).
 * A backend may report its counts up to 10 s late (PostgreSQL's PGSTAT_IDLE_INTERVAL): hence the long settling.
 */
async function counters(url: string): Promise<{ tx: number; queueScans: number }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ tx: string; scans: string }>(
      `SELECT (SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()) AS tx,
              (SELECT sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)) FROM pg_stat_user_tables
               WHERE relname IN ('inbox_jobs', 'deliveries', 'polls')) AS scans`,
    );
    return { tx: Number(r.rows[0]!.tx), queueScans: Number(r.rows[0]!.scans) };
  } finally {
    await c.end();
  }
}

const pct = (sec: number | null, overSec: number) => (sec === null ? 'n/a' : `${((100 * sec) / overSec).toFixed(2)} %`);

async function main(): Promise<void> {
  const seconds = Number(process.env['BENCH_IDLE_SECONDS'] ?? '10');
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error('BENCH_IDLE_SECONDS must be a whole number of seconds ≥ 1');
  let db: BenchDatabase | null = null;
  let stoa: ServerProcess | null = null;
  try {
    db = await openBenchDatabase();
    stoa = await startStoa({ DATABASE_URL: db.url, STOA_DATA_DIR: path.join(db.dataDir, 'stoa'), LOG_LEVEL: 'info' });
    await sleep(SETTLE_MS);
    // The counting connections are two transactions of their own, subtracted below.
    const c0 = await counters(db.url);
    const pids = await backendPids(db.url);
    const pg0 = cpuOf(pids);
    const cpu0 = cpuSeconds(stoa.pid);
    const machine0 = machineBusySeconds();
    const t0 = performance.now();
    await sleep(seconds * 1_000);
    const elapsed = (performance.now() - t0) / 1_000;
    const cpu1 = cpuSeconds(stoa.pid);
    const pgCpu = cpuDelta(pg0, cpuOf(pids));
    const machine1 = machineBusySeconds();
    const c1 = await counters(db.url);
    const tx = c1.tx - c0.tx - 1;
    const scans = c1.queueScans - c0.queueScans;
    const stoaCpu = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
    const machineCpu = machine0 === null || machine1 === null ? null : machine1 - machine0;
    process.stdout.write(
      `idle ${elapsed.toFixed(1)} s: Stoa process CPU ${pct(stoaCpu, elapsed)} of one core (${stoaCpu === null ? 'n/a' : `${(stoaCpu * 1000).toFixed(0)} ms`}), ` +
        `its PostgreSQL backends ${pct(pgCpu, elapsed)} (${pids.length} processes), machine busy ${pct(machineCpu, elapsed)} of one core (everything, PostgreSQL included), ` +
        `database transactions ${tx} (${(tx / elapsed).toFixed(1)}/s), scans of the work queues' tables ${scans}\n`,
    );
  } finally {
    await stoa?.stop();
    await db?.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench idle failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
