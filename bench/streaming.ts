// Streaming fan-out: many concurrent WebSocket subscribers of `public:local` on one Stoa process, then split over two
// processes sharing one database. A member posts over HTTP; every subscriber records when the `update` arrived.
// Measured: RSS per open socket (after a full collection), and the delivery latency from just before the POST to each
// socket's arrival, p50/p99 over every delivery of every post. The subscribers live in worker threads of this
// process (`bench/streaming-clients.ts`), so that parsing 10,000 frames is spread and not charged to Stoa.
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { hashPassword } from '../src/auth/password.js';
import { RoleId } from '../src/auth/permissions.js';
import { Database } from '../src/store/db.js';
import { AppStore } from '../src/store/oauth-apps.js';
import { TokenStore } from '../src/store/oauth-tokens.js';
import { UserStore } from '../src/store/users.js';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { startStoa, type StoaProcess } from './processes.js';

export interface StreamingFigures {
  readonly sockets: number;
  readonly posts: number;
  readonly viewers: number;
  readonly rows: readonly StreamingRow[];
}

export interface StreamingRow {
  readonly setup: string;
  readonly rssBeforeMiB: number;
  readonly rssAfterMiB: number;
  readonly kibPerSocket: number;
  readonly delivered: number;
  readonly expected: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The POST's own answer time (its transaction commits before the event is heard), p50. */
  readonly postP50Ms: number;
  /** The first socket's delivery per post, p50: what the fan-out adds before its first send. */
  readonly firstP50Ms: number;
}

const SOCKETS = Number(process.env['BENCH_STREAM_SOCKETS'] ?? 10_000);
const POSTS = Number(process.env['BENCH_STREAM_POSTS'] ?? 20);
const VIEWERS = 100;
const WORKERS = 2;
/** How long one post may take to reach every socket before the bench counts the rest as lost. */
const DELIVERY_TIMEOUT_MS = 10_000;

interface ClientWorker {
  readonly worker: Worker;
  request<T>(msg: Record<string, unknown>): Promise<T>;
}

function startClientWorker(): ClientWorker {
  const worker = new Worker(fileURLToPath(new URL('./streaming-clients.js', import.meta.url)));
  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  worker.on('message', (m: { seq: number; ok: boolean; value?: unknown; error?: string }) => {
    const p = pending.get(m.seq);
    if (!p) return;
    pending.delete(m.seq);
    if (m.ok) p.resolve(m.value);
    else p.reject(new Error(m.error));
  });
  worker.on('error', (e) => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  });
  return {
    worker,
    request: <T>(msg: Record<string, unknown>) =>
      new Promise<T>((resolve, reject) => {
        const id = ++seq;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        worker.postMessage({ ...msg, seq: id });
      }),
  };
}

/** `VIEWERS` members with read tokens (sockets are spread over them) and one poster with a write token. */
async function seedMembers(databaseUrl: string): Promise<{ readers: string[]; poster: string }> {
  const db = new Database(databaseUrl, 2, pino({ level: 'silent' }));
  try {
    const users = new UserStore(db);
    const tokens = new TokenStore(db);
    const hash = await hashPassword('bench-password-1');
    const { app } = await new AppStore(db).create({
      name: 'bench-stream',
      website: null,
      redirectUris: ['urn:ietf:wg:oauth:2.0:oob'],
      scopes: ['read', 'write'],
    });
    const member = async (name: string, scopes: string[]) => {
      const u = await users.create({ username: name, email: `${name}@bench.test`, passwordHash: hash, roleId: RoleId.user, approved: true });
      return (await tokens.issue(app.id, u.userId, scopes)).token;
    };
    const readers: string[] = [];
    for (let i = 0; i < VIEWERS; i++) readers.push(await member(`reader${i}`, ['read']));
    return { readers, poster: await member('poster', ['read', 'write']) };
  } finally {
    await db.close();
  }
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function post(base: string, token: string, n: number): Promise<{ id: string; sentAt: number; answeredAt: number }> {
  const sentAt = performance.timeOrigin + performance.now();
  const res = await fetch(`${base}/api/v1/statuses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: `bench fan-out ${n}`, visibility: 'public' }),
  });
  const answeredAt = performance.timeOrigin + performance.now();
  if (res.status !== 200) throw new Error(`posting failed: ${res.status} ${await res.text()}`);
  return { id: ((await res.json()) as { id: string }).id, sentAt, answeredAt };
}

/** Opens the sockets (spread over the nodes and workers), then posts `POSTS` times on the first node. */
async function measureSetup(
  setup: string,
  nodes: readonly StoaProcess[],
  workers: readonly ClientWorker[],
  tokens: { readers: string[]; poster: string },
): Promise<StreamingRow> {
  const before = await Promise.all(nodes.map((n) => n.memory()));
  const perWorker = Math.ceil(SOCKETS / workers.length);
  await Promise.all(
    workers.map((w, wi) =>
      w.request({
        kind: 'open',
        count: Math.min(perWorker, SOCKETS - wi * perWorker),
        // Socket k of this worker connects to node (k mod nodes), with reader token (k mod VIEWERS).
        urls: nodes.map((n) => `${n.url.replace(/^http/, 'ws')}/api/v1/streaming?stream=public:local`),
        tokens: tokens.readers,
        offset: wi * perWorker,
      }),
    ),
  );
  const after = await Promise.all(nodes.map((n) => n.memory()));
  const latencies: number[] = [];
  const posting: number[] = [];
  const firsts: number[] = [];
  let delivered = 0;
  for (let i = 0; i < POSTS; i++) {
    const expect = workers.map((w) => w.request({ kind: 'expect', timeoutMs: DELIVERY_TIMEOUT_MS }));
    const { id, sentAt, answeredAt } = await post(nodes[0]!.url, tokens.poster, i);
    posting.push(answeredAt - sentAt);
    for (const w of workers) w.worker.postMessage({ kind: 'id', id });
    let first = Number.POSITIVE_INFINITY;
    for (const arrivals of (await Promise.all(expect)) as number[][]) {
      for (const at of arrivals) {
        latencies.push(at - sentAt);
        first = Math.min(first, at - sentAt);
      }
      delivered += arrivals.length;
    }
    firsts.push(first);
  }
  posting.sort((a, b) => a - b);
  firsts.sort((a, b) => a - b);
  await Promise.all(workers.map((w) => w.request({ kind: 'close' })));
  latencies.sort((a, b) => a - b);
  const rssBefore = before.reduce((s, m) => s + m.rss, 0);
  const rssAfter = after.reduce((s, m) => s + m.rss, 0);
  const mib = (b: number) => Math.round((b / 1_048_576) * 10) / 10;
  return {
    setup,
    rssBeforeMiB: mib(rssBefore),
    rssAfterMiB: mib(rssAfter),
    kibPerSocket: Math.round(((rssAfter - rssBefore) / 1024 / SOCKETS) * 10) / 10,
    delivered,
    expected: SOCKETS * POSTS,
    p50Ms: Math.round(quantile(latencies, 0.5) * 10) / 10,
    p99Ms: Math.round(quantile(latencies, 0.99) * 10) / 10,
    maxMs: Math.round((latencies.at(-1) ?? Number.NaN) * 10) / 10,
    postP50Ms: Math.round(quantile(posting, 0.5) * 10) / 10,
    firstP50Ms: Math.round(quantile(firsts, 0.5) * 10) / 10,
  };
}

export async function measureStreaming(): Promise<StreamingFigures> {
  let bench: BenchDatabase | undefined;
  const nodes: StoaProcess[] = [];
  const workers = Array.from({ length: WORKERS }, startClientWorker);
  try {
    bench = await openBenchDatabase();
    const env = (i: number) => ({
      DATABASE_URL: bench!.url,
      STOA_DATA_DIR: path.join(bench!.dataDir, `stoa-${i}`),
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'info',
    });
    nodes.push(await startStoa(env(0), ['--expose-gc']));
    const tokens = await seedMembers(bench.url);
    const rows: StreamingRow[] = [];
    rows.push(await measureSetup('1 node', nodes, workers, tokens));
    nodes.push(await startStoa(env(1), ['--expose-gc']));
    rows.push(await measureSetup('2 nodes (half the sockets on each; posts on the first)', nodes, workers, tokens));
    return { sockets: SOCKETS, posts: POSTS, viewers: VIEWERS, rows };
  } finally {
    await Promise.allSettled(workers.map((w) => w.worker.terminate()));
    await Promise.allSettled(nodes.map((n) => n.stop()));
    await bench?.stop();
  }
}

export function streamingTable(f: StreamingFigures): string {
  const lines = [
    `Streaming fan-out: ${f.sockets} WebSocket subscribers of public:local (${f.viewers} members), ${f.posts} posts, ${os.availableParallelism()} CPUs`,
    '| setup | RSS before → with sockets (MiB) | KiB per socket | delivered | p50 ms | p99 ms | max ms | POST answered p50 ms | first socket p50 ms |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of f.rows) {
    lines.push(
      `| ${r.setup} | ${r.rssBeforeMiB} → ${r.rssAfterMiB} | ${r.kibPerSocket} | ${r.delivered} / ${r.expected} | ${r.p50Ms} | ${r.p99Ms} | ${r.maxMs} | ${r.postP50Ms} | ${r.firstP50Ms} |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  measureStreaming().then(
    (f) => process.stdout.write(`${streamingTable(f)}\n`),
    (e: unknown) => {
      process.stderr.write(`bench streaming failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
