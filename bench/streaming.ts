// Streaming fan-out, measured against the socket's own cost. The same client processes hold SOCKETS WebSocket
// subscribers of Stoa's `public:local` and SOCKETS of a bare uWS server (bench/bare-uws.ts) joined to one topic; each
// round, a member posts on Stoa and every socket records the `update`'s arrival, then the bare server `publish`es the
// very frame Stoa sent to as many sockets as Stoa had to reach. Latency runs from the moment the server began: Stoa's
// node heard the event on its channel (bench/stoa-server.ts stamps it), the bare server called publish. The ratio of
// the p99s compares the fan-out (audience query, rendering, per-viewer filtering, the sends) with a bare publish.
// Per-viewer filtering is on (bench/streaming-seed.ts): 20 % of the sockets must not be shown the post, 4 % get a
// payload of their own. Every socket a post should reach and did not, and every close the server made, is reported.
// Then two Stoa nodes (and two bare servers) with the sockets spread over both, posts on the first.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { startBare, startStoa, type ServerProcess, type StoaProcess } from './processes.js';
import type { ClientRequest, Closed, Expected, SetName } from './streaming-clients.js';
import { kindOf, POST_WORD, receives, seedMembers, seedRelations, VIEWERS, type Members } from './streaming-seed.js';

export interface StreamingFigures {
  readonly sockets: number;
  readonly posts: number;
  readonly viewers: number;
  readonly rows: readonly StreamingRow[];
}

export interface Latencies {
  readonly delivered: number;
  readonly expected: number;
  /** Deliveries to sockets that should not have been shown the post (a filtering error). */
  readonly unexpected: number;
  /** Closes the server made while the posts went out. */
  readonly closes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface StreamingRow {
  readonly setup: string;
  readonly stoa: Latencies;
  readonly bare: Latencies;
  /** Stoa p99 ÷ bare p99: the goal is ≤ 1.25. */
  readonly ratio: number;
  /** Post by post, Stoa's p99 ÷ the bare p99 of the publish right after it, the median: steadier under a load that comes and goes. */
  readonly pairedRatio: number;
  /** Stoa from just before the POST (commit and the channel included), p99. */
  readonly fromPostP99Ms: number;
  readonly stoaKibPerSocket: number;
  readonly bareKibPerSocket: number;
  readonly frameBytes: number;
}

const SOCKETS = Number(process.env['BENCH_STREAM_SOCKETS'] ?? 10_000);
const POSTS = Number(process.env['BENCH_STREAM_POSTS'] ?? 20);
const CLIENTS = 2;
/** How long one post may take to reach every socket before the bench counts the rest as lost. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** A plain reader's socket: its frame is the one the bare server publishes. */
const SAMPLE = VIEWERS - 1;

interface Client {
  readonly child: ChildProcess;
  readonly first: number;
  readonly count: number;
  request<T>(msg: ClientRequest): Promise<T>;
}

function startClient(first: number, count: number): Client {
  const child = fork(fileURLToPath(new URL('./streaming-clients.js', import.meta.url)), [], { serialization: 'advanced' });
  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: { seq: number; ok: boolean; value?: unknown; error?: string }) => {
    const p = pending.get(m.seq);
    if (!p) return;
    pending.delete(m.seq);
    if (m.ok) p.resolve(m.value);
    else p.reject(new Error(m.error));
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`streaming client exited (${code})`));
    pending.clear();
  });
  return {
    child,
    first,
    count,
    request: <T>(msg: ClientRequest) =>
      new Promise<T>((resolve, reject) => {
        const id = ++seq;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ ...msg, seq: id });
      }),
  };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const round1 = (x: number) => Math.round(x * 10) / 10;
const now = () => performance.timeOrigin + performance.now();
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;

async function post(base: string, token: string, n: number): Promise<{ id: string; sentAt: number }> {
  const sentAt = now();
  const res = await fetch(`${base}/api/v1/statuses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: `bench ${POST_WORD} ${n}`, visibility: 'public', language: 'en' }),
  });
  if (res.status !== 200) throw new Error(`posting failed: ${res.status} ${await res.text()}`);
  return { id: ((await res.json()) as { id: string }).id, sentAt };
}

async function publish(bare: ServerProcess, frame: string): Promise<number> {
  const res = await fetch(`${bare.url}/publish`, { method: 'POST', body: frame });
  return ((await res.json()) as { at: number }).at;
}

/** Per round and set: the arrivals of every socket in global order, and the tally against who should have had it. */
class Tally {
  readonly latencies: number[] = [];
  readonly fromPost: number[] = [];
  delivered = 0;
  expected = 0;
  unexpected = 0;
  readonly missed = new Map<number, number>();
  /** Each round's own p99. */
  readonly rounds: number[] = [];

  add(arrivals: Float64Array, start: number, should: (socket: number) => boolean, sentAt?: number): void {
    const round: number[] = [];
    for (let k = 0; k < arrivals.length; k++) {
      const at = arrivals[k]!;
      const want = should(k);
      if (want) this.expected++;
      if (Number.isNaN(at)) {
        if (want) this.missed.set(k, (this.missed.get(k) ?? 0) + 1);
        continue;
      }
      if (!want) {
        this.unexpected++;
        continue;
      }
      this.delivered++;
      this.latencies.push(at - start);
      round.push(at - start);
      if (sentAt !== undefined) this.fromPost.push(at - sentAt);
    }
    round.sort((a, b) => a - b);
    this.rounds.push(quantile(round, 0.99));
  }

  figures(closes: number): Latencies {
    this.latencies.sort((a, b) => a - b);
    return {
      delivered: this.delivered,
      expected: this.expected,
      unexpected: this.unexpected,
      closes,
      p50Ms: round1(quantile(this.latencies, 0.5)),
      p99Ms: round1(quantile(this.latencies, 0.99)),
      maxMs: round1(this.latencies.at(-1) ?? Number.NaN),
    };
  }
}

async function expectAll(clients: readonly Client[], set: SetName, should: (socket: number) => boolean): Promise<{ arrivals: Float64Array; frame: string }> {
  const parts = await Promise.all(
    clients.map((c) => {
      let count = 0;
      for (let k = c.first; k < c.first + c.count; k++) if (should(k)) count++;
      const sample = SAMPLE >= c.first && SAMPLE < c.first + c.count ? SAMPLE - c.first : -1;
      return c.request<Expected>({ kind: 'expect', set, count, timeoutMs: DELIVERY_TIMEOUT_MS, sample });
    }),
  );
  const arrivals = new Float64Array(SOCKETS);
  for (const [i, p] of parts.entries()) arrivals.set(p.arrivals, clients[i]!.first);
  return { arrivals, frame: parts.map((p) => p.sampleFrame).join('') };
}

/** Opens both sets of sockets (spread over the nodes), then posts POSTS times on the first node, each followed by a bare publish. */
async function measureSetup(
  setup: string,
  nodes: readonly StoaProcess[],
  bares: readonly ServerProcess[],
  clients: readonly Client[],
  m: Members,
): Promise<StreamingRow> {
  const stoaBefore = await Promise.all(nodes.map((n) => n.memory()));
  const bareBefore = bares.map((b) => rssOf(b.pid));
  // Socket k goes to node (k mod nodes) with reader (k mod VIEWERS); its bare twin joins the topic iff it should receive.
  const stoaUrl = (k: number) =>
    `${nodes[k % nodes.length]!.url.replace(/^http/, 'ws')}/api/v1/streaming?stream=public:local&access_token=${encodeURIComponent(m.readers[k % VIEWERS]!)}`;
  const bareUrl = (k: number) => `${bares[k % bares.length]!.url.replace(/^http/, 'ws')}/ws?topic=${receives(k % VIEWERS) ? 1 : 0}`;
  const urls = (c: Client, f: (k: number) => string) => Array.from({ length: c.count }, (_, i) => f(c.first + i));
  await Promise.all(clients.map((c) => c.request({ kind: 'open', set: 'stoa', urls: urls(c, stoaUrl) })));
  await Promise.all(clients.map((c) => c.request({ kind: 'open', set: 'bare', urls: urls(c, bareUrl) })));
  const stoaAfter = await Promise.all(nodes.map((n) => n.memory()));
  const bareAfter = bares.map((b) => rssOf(b.pid));
  const should = (k: number) => receives(k % VIEWERS);
  const stoa = new Tally();
  const bare = new Tally();
  let frameBytes = 0;
  const opened = now();
  let firstPost = Number.NaN;
  // Round -1 warms up both sides (the first event plans the audience statement, the first publish its topic) and is
  // not counted.
  for (let i = -1; i < POSTS; i++) {
    const stoaRound = expectAll(clients, 'stoa', should);
    const { id, sentAt } = await post(nodes[0]!.url, m.poster, i);
    if (i === 0) firstPost = sentAt;
    const tally = i >= 0;
    const got = await stoaRound;
    const heard = await Promise.all(nodes.map((n) => n.streamHeard(id)));
    const start = Math.min(...heard.map((h) => h ?? Number.POSITIVE_INFINITY));
    if (!Number.isFinite(start)) throw new Error(`no node heard status ${id}`);
    if (tally) stoa.add(got.arrivals, start, should, sentAt);
    if (!got.frame.includes(id)) throw new Error(`the sample socket did not receive status ${id}`);
    frameBytes = Buffer.byteLength(got.frame);
    const bareRound = expectAll(clients, 'bare', should);
    const published = Math.min(...(await Promise.all(bares.map((b) => publish(b, got.frame)))));
    const bareGot = await bareRound;
    if (tally) bare.add(bareGot.arrivals, published, should);
  }
  const closes = async (set: SetName) => (await Promise.all(clients.map((c) => c.request<Closed[]>({ kind: 'closes', set })))).flat();
  const stoaCloses = await closes('stoa');
  const bareCloses = await closes('bare');
  for (const [k, n] of [...stoa.missed].slice(0, 20)) {
    const closed = stoaCloses.find((x) => x.socket === k - clients.find((c) => k >= c.first && k < c.first + c.count)!.first);
    process.stderr.write(
      `bench streaming (${setup}): Stoa socket ${k} (reader ${k % VIEWERS}, ${kindOf(k % VIEWERS)}) missed ${n} of ${POSTS}${closed ? `, closed ${closed.code} ${closed.reason}` : ''}\n`,
    );
  }
  const when = (at: number) => `${Math.round(at - opened)} ms after the sockets were open, ${Math.round(at - firstPost)} ms after the first post`;
  for (const c of stoaCloses.slice(0, 10)) process.stderr.write(`bench streaming (${setup}): Stoa closed a socket: ${c.code} ${c.reason}, ${when(c.at)}\n`);
  for (const c of bareCloses.slice(0, 10))
    process.stderr.write(`bench streaming (${setup}): the bare server closed a socket: ${c.code} ${c.reason}, ${when(c.at)}\n`);
  await Promise.all(clients.map((c) => c.request({ kind: 'close', set: 'stoa' })));
  await Promise.all(clients.map((c) => c.request({ kind: 'close', set: 'bare' })));
  const stoaFigures = stoa.figures(stoaCloses.length);
  const bareFigures = bare.figures(bareCloses.length);
  stoa.fromPost.sort((a, b) => a - b);
  const kib = (before: number, after: number) => round1((after - before) / 1024 / SOCKETS);
  const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
  return {
    setup,
    stoa: stoaFigures,
    bare: bareFigures,
    ratio: Math.round((stoaFigures.p99Ms / bareFigures.p99Ms) * 100) / 100,
    pairedRatio:
      Math.round(
        quantile(
          stoa.rounds.map((x, i) => x / bare.rounds[i]!).sort((a, b) => a - b),
          0.5,
        ) * 100,
      ) / 100,
    fromPostP99Ms: round1(quantile(stoa.fromPost, 0.99)),
    stoaKibPerSocket: kib(sum(stoaBefore.map((x) => x.rss)), sum(stoaAfter.map((x) => x.rss))),
    bareKibPerSocket: kib(sum(bareBefore), sum(bareAfter)),
    frameBytes,
  };
}

export async function measureStreaming(): Promise<StreamingFigures> {
  let bench: BenchDatabase | undefined;
  const nodes: StoaProcess[] = [];
  const bares: ServerProcess[] = [];
  const per = Math.ceil(SOCKETS / CLIENTS);
  const clients = Array.from({ length: CLIENTS }, (_, i) => startClient(i * per, Math.min(per, SOCKETS - i * per)));
  try {
    bench = await openBenchDatabase();
    const env = (i: number) => ({
      DATABASE_URL: bench!.url,
      STOA_DATA_DIR: path.join(bench!.dataDir, `stoa-${i}`),
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] || 'info',
    });
    nodes.push(await startStoa(env(0), ['--expose-gc']));
    bares.push(await startBare());
    const members = await seedMembers(bench.url);
    await seedRelations(nodes[0]!.url, members);
    const rows: StreamingRow[] = [];
    rows.push(await measureSetup('1 node', nodes, bares, clients, members));
    nodes.push(await startStoa(env(1), ['--expose-gc']));
    bares.push(await startBare());
    rows.push(await measureSetup('2 nodes (half the sockets on each; posts on the first)', nodes, bares, clients, members));
    return { sockets: SOCKETS, posts: POSTS, viewers: VIEWERS, rows };
  } finally {
    for (const c of clients) c.child.kill();
    await Promise.allSettled([...nodes, ...bares].map((n) => n.stop()));
    await bench?.stop();
  }
}

export function streamingTable(f: StreamingFigures): string {
  const lines = [
    `Streaming fan-out: ${f.sockets} WebSocket subscribers of public:local (${f.viewers} members, 20 % filtered out, 4 % with their own payload) against a bare uWS publish to as many, ${f.posts} posts, ${os.availableParallelism()} CPUs`,
    '| setup | Stoa p50 / p99 / max ms (from heard) | bare publish p50 / p99 / max ms | **ratio p99** | per-post ratio, median | Stoa p99 from POST | delivered Stoa | delivered bare | unexpected | closes Stoa / bare | KiB per socket Stoa / bare | frame bytes |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of f.rows) {
    const l = (x: Latencies) => `${x.p50Ms} / ${x.p99Ms} / ${x.maxMs}`;
    lines.push(
      `| ${r.setup} | ${l(r.stoa)} | ${l(r.bare)} | **${r.ratio}** | ${r.pairedRatio} | ${r.fromPostP99Ms} | ${r.stoa.delivered} / ${r.stoa.expected} | ${r.bare.delivered} / ${r.bare.expected} | ${r.stoa.unexpected} | ${r.stoa.closes} / ${r.bare.closes} | ${r.stoaKibPerSocket} / ${r.bareKibPerSocket} | ${r.frameBytes} |`,
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
