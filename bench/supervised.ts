// Issue 33: do more server processes on one machine serve more? `verify_credentials` and the home timeline measured
// with wrk in one run against the supervisor (`stoa start`, what `npm start` runs) with STOA_PROCESSES=1, then 2
// sharing the port (SO_REUSEPORT: the kernel spreads connections, no balancer), on one database. Reports req/s,
// p50/p99, and the CPU of the server processes together and of PostgreSQL in % of one core.
// In `npm run bench` last; alone: `node dist/bench/supervised.js` (BENCH_DURATION, DATABASE_URL as bench/run.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds } from './cpu.js';
import { type BenchDatabase, openBenchDatabase } from './database.js';
import { WARMUP_SEC } from './measure.js';
import { postgresCpuSeconds, postmasterPid } from './pg-cpu.js';
import { seedHomeTimeline } from './seed.js';
import { fmt, textTable } from './timeline-measure.js';
import { findWrk, runWrk, type Target, type WrkResult, type WrkSettings } from './wrk.js';
import { freePort, loadavg } from './machine.js';

const STOA = fileURLToPath(new URL('../src/cli/stoa.js', import.meta.url));

export interface SupervisedRow {
  readonly processes: number;
  readonly endpoint: string;
  readonly result: WrkResult;
  /** CPU in % of one core over the measured run (null where /proc is unreadable). */
  readonly serversCpu: number | null;
  readonly postgresCpu: number | null;
}

export interface SupervisedFigures {
  readonly rows: readonly SupervisedRow[];
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly settings: WrkSettings;
}

interface Supervisor {
  readonly url: string;
  /** The server processes it runs now. */
  servers(): number[];
  stop(): Promise<void>;
}

/** The supervisor with `processes` server processes; its log and theirs go to /dev/null; resolves once all serve. */
async function startSupervisor(env: Record<string, string>, processes: number): Promise<Supervisor> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [STOA, 'start'], {
    // No spare: an idle process would only be counted among the servers.
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', BASE_URL: url, STOA_PROCESSES: String(processes), STOA_SPARE_PROCESS: 'false' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-8192)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const servers = () =>
    readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
      .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dist/src/main.js'));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the supervisor exited (${child.exitCode}):\n${stderr}`);
    const up = (await fetch(`${url}/health`).catch(() => null))?.status === 200;
    if (up && servers().length === processes) break;
    if (i > 1_200) {
      await stop();
      throw new Error(`the supervisor's ${processes} server processes did not serve within 60 s:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, servers, stop };
}

async function once(url: string, t: Target): Promise<void> {
  const r = await fetch(url + t.path, { headers: t.headers });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`GET ${t.path} at ${url} answered ${r.status}`);
}

export async function measureSupervised(wrk: string, s: WrkSettings, counts: readonly number[] = [1, 2]): Promise<SupervisedFigures> {
  let bench: BenchDatabase | undefined;
  let sup: Supervisor | undefined;
  const loadBefore = loadavg();
  try {
    bench = await openBenchDatabase();
    const env = { DATABASE_URL: bench.url, STOA_DATA_DIR: path.join(bench.dataDir, 'stoa'), LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'info' };
    const rows: SupervisedRow[] = [];
    let headers: Record<string, string> | undefined;
    let postmaster: number | null = null;
    for (const processes of counts) {
      sup = await startSupervisor(env, processes);
      if (!headers) {
        process.stderr.write('bench: seeding a home timeline (1,000 followed accounts, 40,000 statuses)\n');
        headers = { Authorization: `Bearer ${await seedHomeTimeline(bench.url, 1_000, 20)}` };
        postmaster = await postmasterPid(bench.url);
      }
      const endpoints: [string, Target][] = [
        ['verify_credentials', { path: '/api/v1/accounts/verify_credentials', headers }],
        ['home', { path: '/api/v1/timelines/home', headers }],
      ];
      const pids = sup.servers();
      for (const [endpoint, t] of endpoints) {
        await once(sup.url, t);
        process.stderr.write(`  ${processes} server process${processes > 1 ? 'es' : ''}, ${endpoint}: warm-up ${WARMUP_SEC} s, measure ${s.durationSec} s … `);
        await runWrk(wrk, sup.url, t, { ...s, durationSec: WARMUP_SEC });
        const sample = () => {
          const each = pids.map(cpuSeconds);
          return {
            servers: each.some((c) => c === null) ? null : each.reduce<number>((a, c) => a + c!, 0),
            postgres: postmaster === null ? null : postgresCpuSeconds(postmaster),
            at: performance.now(),
          };
        };
        const before = sample();
        const result = await runWrk(wrk, sup.url, t, s);
        const after = sample();
        const sec = (after.at - before.at) / 1000;
        const pct = (a: number | null, b: number | null) => (a === null || b === null ? null : ((b - a) / sec) * 100);
        process.stderr.write(`${Math.round(result.requestsPerSec)} req/s\n`);
        rows.push({ processes, endpoint, result, serversCpu: pct(before.servers, after.servers), postgresCpu: pct(before.postgres, after.postgres) });
      }
      await sup.stop();
      sup = undefined;
    }
    return { rows, loadBefore, loadAfter: loadavg(), settings: s };
  } finally {
    await sup?.stop();
    await bench?.stop();
  }
}

export function supervisedTable(f: SupervisedFigures): string {
  const one = new Map(f.rows.filter((r) => r.processes === 1).map((r) => [r.endpoint, r.result.requestsPerSec]));
  const head = [
    `Server processes under the supervisor (issue 33): wrk -t${f.settings.threads} -c${f.settings.connections} -d${f.settings.durationSec}s, ` +
      `${os.availableParallelism()} CPUs, load average ${f.loadBefore} before, ${f.loadAfter} after`,
    '',
  ].join('\n');
  return (
    head +
    textTable(
      ['STOA_PROCESSES', 'endpoint', 'req/s', 'vs 1', 'p50 ms', 'p99 ms', 'errors', 'servers CPU', 'PG CPU'],
      f.rows.map((r) => [
        String(r.processes),
        r.endpoint,
        fmt.int(r.result.requestsPerSec),
        `${((r.result.requestsPerSec / (one.get(r.endpoint) ?? Number.NaN)) * 100).toFixed(0)} %`,
        fmt.ms(r.result.p50Ms),
        fmt.ms(r.result.p99Ms),
        String(r.result.non2xx + r.result.socketErrors),
        fmt.pct(r.serversCpu),
        fmt.pct(r.postgresCpu),
      ]),
      2,
    )
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wrk = findWrk();
  if (!wrk) {
    process.stderr.write('bench/supervised: wrk is not on PATH (apt-get install wrk)\n');
    process.exit(2);
  }
  const durationSec = Number(process.env['BENCH_DURATION'] ?? '10');
  measureSupervised(wrk, { threads: 1, connections: 50, durationSec }).then(
    (f) => process.stdout.write(`${supervisedTable(f)}\n`, () => process.exit(0)),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
