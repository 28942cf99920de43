// Issue 20: does a second node add throughput? `verify_credentials` and the home timeline measured with wrk in one
// run against three set-ups on one database: one node directly, one node behind nginx, and two nodes behind nginx
// round-robin (examples/cluster/nginx.conf, the README's example, with this run's ports; wrk cannot spread one run
// over two ports itself). The middle row separates nginx's own cost from what the second node adds. Reports req/s,
// p50/p99, and the CPU of each node, of nginx and of PostgreSQL in % of one core.
// In `npm run bench` after the other parts; alone: `node dist/bench/cluster.js` (BENCH_DURATION, DATABASE_URL as
// bench/run.ts). Needs wrk and Debian's nginx (/usr/sbin/nginx, or NGINX).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds } from './cpu.js';
import { type BenchDatabase, openBenchDatabase } from './database.js';
import { WARMUP_SEC } from './measure.js';
import { postgresCpuSeconds, postmasterPid } from './pg-cpu.js';
import { type StoaProcess, startStoa } from './processes.js';
import { seedHomeTimeline } from './seed.js';
import { fmt, textTable } from './timeline-measure.js';
import { findWrk, runWrk, type Target, type WrkResult, type WrkSettings } from './wrk.js';
import { freePort, loadavg } from './machine.js';

const SITE = fileURLToPath(new URL('../../examples/cluster/nginx.conf', import.meta.url));

export interface ClusterRow {
  readonly setup: string;
  readonly endpoint: string;
  readonly result: WrkResult;
  /** CPU in % of one core over the measured run, per process (null where /proc is unreadable). */
  readonly cpu: Readonly<Record<'node1' | 'node2' | 'nginx' | 'postgres', number | null>>;
}

export interface ClusterFigures {
  readonly rows: readonly ClusterRow[];
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly settings: WrkSettings;
}

interface Balancer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The example's site file with this run's ports: both nodes, or (second absent) the first alone. */
async function siteConfig(listen: number, first: number, second: number | null): Promise<string> {
  let site = await fs.readFile(SITE, 'utf8');
  const swap = (from: string, to: string) => {
    if (site.split(from).length !== 2) throw new Error(`examples/cluster/nginx.conf must contain "${from}" exactly once`);
    site = site.replace(from, to);
  };
  swap('listen 127.0.0.1:8080;', `listen 127.0.0.1:${listen};`);
  swap('server 127.0.0.1:3001;', `server 127.0.0.1:${first};`);
  swap('server 127.0.0.1:3002;', second === null ? '' : `server 127.0.0.1:${second};`);
  return site;
}

/** nginx in the foreground, one worker (as examples/cluster/run.sh runs it), without an access log. */
async function startNginx(nginx: string, dir: string, site: string, port: number): Promise<Balancer> {
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  for (const t of temps) await fs.mkdir(path.join(dir, t));
  const conf = [
    'daemon off;',
    'worker_processes 1;',
    process.getuid?.() === 0 ? 'user root;' : '',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log;`,
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    ...temps.map((t) => `  ${t}_temp_path ${dir}/${t};`),
    site,
    '}',
  ].join('\n');
  await fs.writeFile(path.join(dir, 'nginx.conf'), conf);
  const child: ChildProcess = spawn(nginx, ['-c', path.join(dir, 'nginx.conf'), '-p', dir, '-e', path.join(dir, 'error.log')], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${await fs.readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}`);
    if ((await fetch(`${url}/health`).catch(() => null))?.status === 200) break;
    if (i > 200) throw new Error('nginx did not answer within 10 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  // The worker, not the master, does the proxying: its CPU is the one to sample.
  const worker = Number((await fs.readFile(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').catch(() => '')).trim().split(' ')[0]) || child.pid!;
  return {
    url,
    pid: worker,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function once(url: string, t: Target): Promise<void> {
  const r = await fetch(url + t.path, { headers: t.headers });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`GET ${t.path} at ${url} answered ${r.status}`);
}

export async function measureCluster(wrk: string, nginx: string, s: WrkSettings): Promise<ClusterFigures> {
  let bench: BenchDatabase | undefined;
  const nodes: StoaProcess[] = [];
  let balancer: Balancer | undefined;
  const loadBefore = loadavg();
  try {
    bench = await openBenchDatabase();
    const env = { DATABASE_URL: bench.url, STOA_DATA_DIR: path.join(bench.dataDir, 'stoa'), LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'info' };
    nodes.push(await startStoa(env));
    nodes.push(await startStoa(env));
    const [one, two] = [nodes[0]!, nodes[1]!];
    process.stderr.write('bench: seeding a home timeline (1,000 followed accounts, 40,000 statuses)\n');
    const token = await seedHomeTimeline(bench.url, 1_000, 20);
    const postmaster = await postmasterPid(bench.url);
    const headers = { Authorization: `Bearer ${token}` };
    const endpoints: [string, Target][] = [
      ['verify_credentials', { path: '/api/v1/accounts/verify_credentials', headers }],
      ['home', { path: '/api/v1/timelines/home', headers }],
    ];
    const port = (u: string) => Number(new URL(u).port);
    const listen = await freePort();
    const dir = path.join(bench.dataDir, 'nginx');
    const setups: [string, () => Promise<{ url: string; nginxPid: number | null }>][] = [
      ['1 node, direct', async () => ({ url: one.url, nginxPid: null })],
      [
        '1 node, nginx',
        async () => {
          balancer = await startNginx(nginx, dir, await siteConfig(listen, port(one.url), null), listen);
          return { url: balancer.url, nginxPid: balancer.pid };
        },
      ],
      [
        '2 nodes, nginx round-robin',
        async () => {
          await balancer?.stop();
          balancer = await startNginx(nginx, dir, await siteConfig(listen, port(one.url), port(two.url)), listen);
          return { url: balancer.url, nginxPid: balancer.pid };
        },
      ],
    ];
    const rows: ClusterRow[] = [];
    for (const [setup, start] of setups) {
      const { url, nginxPid } = await start();
      for (const [endpoint, t] of endpoints) {
        await once(url, t);
        process.stderr.write(`  ${setup}, ${endpoint}: warm-up ${WARMUP_SEC} s, measure ${s.durationSec} s … `);
        await runWrk(wrk, url, t, { ...s, durationSec: WARMUP_SEC });
        const sample = () => ({
          node1: cpuSeconds(one.pid),
          node2: cpuSeconds(two.pid),
          nginx: nginxPid === null ? 0 : cpuSeconds(nginxPid),
          postgres: postmaster === null ? null : postgresCpuSeconds(postmaster),
          at: performance.now(),
        });
        const before = sample();
        const result = await runWrk(wrk, url, t, s);
        const after = sample();
        const sec = (after.at - before.at) / 1000;
        const pct = (k: 'node1' | 'node2' | 'nginx' | 'postgres') => {
          const [a, b] = [before[k], after[k]];
          return a === null || b === null ? null : ((b - a) / sec) * 100;
        };
        const cpu = { node1: pct('node1'), node2: pct('node2'), nginx: pct('nginx'), postgres: pct('postgres') };
        process.stderr.write(`${Math.round(result.requestsPerSec)} req/s\n`);
        rows.push({ setup, endpoint, result, cpu });
      }
    }
    return { rows, loadBefore, loadAfter: loadavg(), settings: s };
  } finally {
    await balancer?.stop();
    await Promise.allSettled(nodes.map((n) => n.stop()));
    await bench?.stop();
  }
}

export function clusterTable(f: ClusterFigures): string {
  const direct = new Map(f.rows.filter((r) => r.setup === '1 node, direct').map((r) => [r.endpoint, r.result.requestsPerSec]));
  const head = [
    `Two nodes behind nginx (issue 20): wrk -t${f.settings.threads} -c${f.settings.connections} -d${f.settings.durationSec}s, ` +
      `${os.availableParallelism()} CPUs, load average ${f.loadBefore} before, ${f.loadAfter} after`,
    '',
  ].join('\n');
  return (
    head +
    textTable(
      ['setup', 'endpoint', 'req/s', 'vs direct', 'p50 ms', 'p99 ms', 'errors', 'node 1 CPU', 'node 2 CPU', 'nginx CPU', 'PG CPU'],
      f.rows.map((r) => [
        r.setup,
        r.endpoint,
        fmt.int(r.result.requestsPerSec),
        `${((r.result.requestsPerSec / (direct.get(r.endpoint) ?? Number.NaN)) * 100).toFixed(0)} %`,
        fmt.ms(r.result.p50Ms),
        fmt.ms(r.result.p99Ms),
        String(r.result.non2xx + r.result.socketErrors),
        fmt.pct(r.cpu.node1),
        fmt.pct(r.cpu.node2),
        fmt.pct(r.cpu.nginx),
        fmt.pct(r.cpu.postgres),
      ]),
      2,
    )
  );
}

/** wrk and nginx, or why not. */
export function clusterTools(): { wrk: string; nginx: string } | string {
  const wrk = findWrk();
  const nginx = process.env['NGINX'] || '/usr/sbin/nginx';
  if (!wrk) return 'wrk is not on PATH (apt-get install wrk)';
  if (!existsSync(nginx)) return `${nginx} is missing (apt-get install nginx)`;
  return { wrk, nginx };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tools = clusterTools();
  if (typeof tools === 'string') {
    process.stderr.write(`bench/cluster: ${tools}\n`);
    process.exit(2);
  }
  const durationSec = Number(process.env['BENCH_DURATION'] ?? '10');
  measureCluster(tools.wrk, tools.nginx, { threads: 1, connections: 50, durationSec }).then(
    (f) => process.stdout.write(`${clusterTable(f)}\n`, () => process.exit(0)),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
