// Identity-statement verification (FEP-c390: JSON parse, JCS, SHA-256, Ed25519), measured three ways over the same
// statements: single-threaded with node:crypto (OpenSSL) and with @noble/ed25519, and through the Piscina pool as
// the server runs it (batched per event-loop turn), at several pool sizes. The goal is pool ≥ 0.8 × cores × native
// single-thread. This decided the hot-path Ed25519 (node:crypto) and the batching in actors/verify-pool.ts.
// Run alone with `node dist/bench/identity.js`; `npm run bench` runs it after the HTTP scenarios.
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import * as noble from '@noble/ed25519';
import { VerifyPool } from '../actors/verify-pool.js';
import { checkProof, proofHashData, signDataIntegrityProof, type JsonObject } from '../src/identity/data-integrity.js';
import { ed25519DidKey, parseEd25519DidKey } from '../src/identity/did-key.js';
import { ed25519PublicKey } from '../src/identity/ed25519.js';
import { verifyIdentityStatement } from '../src/identity/identity-statement.js';

const N = Number(process.env['BENCH_STATEMENTS'] ?? 20000);
const KEYS = 256;
const NOW = Date.now();

noble.etc.sha512Sync = (...m) =>
  new Uint8Array(
    createHash('sha512')
      .update(noble.etc.concatBytes(...m))
      .digest(),
  );

export interface IdentityFigures {
  readonly cores: number;
  readonly nativePerSec: number;
  /** The lowest and highest of the single-thread figures each pool figure is compared with. */
  readonly nativeRange: readonly [number, number];
  readonly noblePerSec: number;
  /** The machine's own ceiling: `cores` bare worker threads each running the native loop, no pool, no messages. */
  readonly bare: { perSec: number; ratio: number };
  readonly pool: readonly { threads: number; batched: boolean; perSec: number; ratio: number }[];
  /** Batched, but as requests arrive: CLIENTS callers each wait for their verdict and a turn before the next. */
  readonly closedLoop: { threads: number; clients: number; perSec: number; ratio: number; meanBatch: number };
}

const CLIENTS = 64;

function statements(): { text: string; actorId: string }[] {
  const out: { text: string; actorId: string }[] = [];
  for (let k = 0; k < KEYS; k++) {
    const seed = randomBytes(32);
    const subject = ed25519DidKey(ed25519PublicKey(seed));
    const actorId = `https://peer${k % 16}.example/users/member${k}`;
    const signed = signDataIntegrityProof(
      { type: 'VerifiableIdentityStatement', subject, alsoKnownAs: actorId },
      {
        type: 'DataIntegrityProof',
        cryptosuite: 'eddsa-jcs-2022',
        created: new Date(NOW).toISOString(),
        verificationMethod: subject,
        proofPurpose: 'assertionMethod',
      },
      seed,
    );
    out.push({ text: JSON.stringify(signed), actorId });
  }
  return out;
}

/** The same steps as verifyIdentityStatement, with @noble/ed25519 for the signature (strict: zip215 off). */
function verifyWithNoble(text: string, actorId: string): boolean {
  const s = JSON.parse(text) as JsonObject;
  if (s['alsoKnownAs'] !== actorId) return false;
  const key = parseEd25519DidKey(s['subject'] as string);
  const checked = checkProof(s['proof'], { purpose: 'assertionMethod', nowMs: NOW });
  if (!key.ok || !checked.ok) return false;
  const hash = proofHashData(s, s['proof'] as JsonObject);
  return Buffer.isBuffer(hash) && noble.verify(checked.signature, hash, key.publicKey, { zip215: false });
}

function rate(n: number, ms: number): number {
  return Math.round((n / ms) * 1000);
}

async function throughPool(threads: number, batched: boolean, items: { text: string; actorId: string }[]): Promise<number> {
  const pool = new VerifyPool({ minThreads: threads, maxThreads: threads, maxQueue: N * 2, idleTimeoutMs: 60_000 });
  const one = (i: number) => {
    const it = items[i % items.length]!;
    const item = { input: it.text, actorId: it.actorId, nowMs: NOW };
    return batched ? pool.verifyStatement(item) : pool.run({ op: 'identity-statements', items: [item] });
  };
  try {
    await Promise.all(Array.from({ length: 2000 }, (_, i) => one(i))); // warm the workers and their key caches
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: N }, (_, i) => one(i)));
    const ms = performance.now() - t0;
    const ok = results.every((r) => r.ok && (!('verdicts' in r) || r.verdicts.every((v) => v.ok)));
    if (!ok) throw new Error('a statement failed to verify through the pool');
    return rate(N, ms);
  } finally {
    await pool.stop(5_000);
  }
}

/**
 * The server's arrival pattern rather than one burst: each of `clients` callers (think HTTP connections) submits a
 * statement, awaits its verdict, yields a turn (the request's other awaits), and submits the next. Batches then
 * form only from what arrives within one turn, so this is the honest figure for the batching in VerifyPool.
 */
async function closedLoop(threads: number, clients: number, items: { text: string; actorId: string }[]): Promise<{ perSec: number; meanBatch: number }> {
  const pool = new VerifyPool({ minThreads: threads, maxThreads: threads, maxQueue: N * 2, idleTimeoutMs: 60_000 });
  let tasks = 0;
  const run = pool.run.bind(pool);
  pool.run = (task) => {
    tasks++;
    return run(task);
  };
  const drive = async (count: number): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < count) {
          const it = items[next++ % items.length]!;
          if (!(await pool.verifyStatement({ input: it.text, actorId: it.actorId, nowMs: NOW })).ok) throw new Error('a statement failed to verify');
          await new Promise<void>((r) => setImmediate(r));
        }
      }),
    );
  };
  try {
    await drive(2000);
    tasks = 0;
    const t0 = performance.now();
    await drive(N);
    return { perSec: rate(N, performance.now() - t0), meanBatch: N / tasks };
  } finally {
    await pool.stop(5_000);
  }
}

type Items = { text: string; actorId: string }[];

/**
 * `threads` bare worker threads, each verifying its share in a plain loop after a warm-up, all started together:
 * how close two busy cores of this machine come to twice one busy core, whatever the pool does.
 */
async function bareThreads(threads: number, items: Items): Promise<number> {
  const share = Math.floor(N / threads);
  const workers = Array.from({ length: threads }, () => new Worker(new URL(import.meta.url), { workerData: { bare: { items, n: share } } }));
  const next = (w: Worker) =>
    new Promise<unknown>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
  try {
    await Promise.all(workers.map(next)); // warmed up
    const t0 = performance.now();
    const done = workers.map(next);
    for (const w of workers) w.postMessage('go');
    await Promise.all(done);
    return rate(share * threads, performance.now() - t0);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

function bareWorker(job: { items: Items; n: number }): void {
  nativeRate(job.items, 2000);
  parentPort!.postMessage('ready');
  parentPort!.once('message', () => {
    nativeRate(job.items, job.n);
    parentPort!.postMessage('done');
  });
}

/** Single-threaded node:crypto verifications per second over `n` statements. */
function nativeRate(items: { text: string; actorId: string }[], n: number): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const it = items[i % KEYS]!;
    if (!verifyIdentityStatement(it.text, it.actorId, NOW).ok) throw new Error('native verification failed');
  }
  return rate(n, performance.now() - t0);
}

export async function measureIdentity(): Promise<IdentityFigures> {
  const items = statements();
  const cores = os.availableParallelism();
  for (let i = 0; i < 500; i++) verifyIdentityStatement(items[i % KEYS]!.text, items[i % KEYS]!.actorId, NOW); // warm-up
  const natives = [nativeRate(items, N)];
  const M = Math.max(200, Math.floor(N / 10));
  const t0 = performance.now();
  for (let i = 0; i < M; i++) {
    const it = items[i % KEYS]!;
    if (!verifyWithNoble(it.text, it.actorId)) throw new Error('noble verification failed');
  }
  const noblePerSec = rate(M, performance.now() - t0);
  // This machine's speed drifts by tens of percent between minutes (a shared host), so each pool figure is set
  // against a single-thread figure measured just before it rather than against one taken at the start.
  const paired = () => {
    const n = nativeRate(items, Math.max(500, Math.floor(N / 4)));
    natives.push(n);
    return n;
  };
  const pool: IdentityFigures['pool'][number][] = [];
  for (let threads = 1; threads <= cores + 1; threads++) {
    for (const batched of [false, true]) {
      const base = paired();
      const perSec = await throughPool(threads, batched, items);
      pool.push({ threads, batched, perSec, ratio: perSec / (cores * base) });
    }
  }
  let base = paired();
  const bareRate = await bareThreads(cores, items);
  const bare = { perSec: bareRate, ratio: bareRate / (cores * base) };
  base = paired();
  const loop = await closedLoop(cores, CLIENTS, items);
  const closed = { threads: cores, clients: CLIENTS, ...loop, ratio: loop.perSec / (cores * base) };
  return { cores, nativePerSec: natives[0]!, nativeRange: [Math.min(...natives), Math.max(...natives)], noblePerSec, bare, pool, closedLoop: closed };
}

export function identityTable(f: IdentityFigures): string {
  const best = f.pool.reduce((a, b) => (b.perSec > a.perSec ? b : a));
  const fmt = (n: number) => n.toLocaleString('en-US').padStart(9);
  return [
    'Identity statements (FEP-c390)                 statements/s   vs cores × native',
    `single thread, node:crypto (native)           ${fmt(f.nativePerSec)}   (${f.nativeRange[0].toLocaleString('en-US')} – ${f.nativeRange[1].toLocaleString('en-US')} over the run)`,
    `single thread, @noble/ed25519                 ${fmt(f.noblePerSec)}   (native is ${(f.nativePerSec / f.noblePerSec).toFixed(1)}× faster)`,
    `${f.cores} bare threads, no pool (the ceiling)  ${fmt(f.bare.perSec)}   ${f.bare.ratio.toFixed(2)}`,
    ...f.pool.map(
      (p) =>
        `pool, ${p.threads} thread${p.threads > 1 ? 's' : ' '}, ${p.batched ? 'batched per turn' : 'one task each  '}       ${fmt(p.perSec)}   ${p.ratio.toFixed(2)}`,
    ),
    `pool, ${f.closedLoop.threads} threads, ${f.closedLoop.clients} callers one at a time ${fmt(f.closedLoop.perSec)}   ${f.closedLoop.ratio.toFixed(2)}   (mean batch ${f.closedLoop.meanBatch.toFixed(1)})`,
    `best: ${best.threads} threads, ${best.batched ? 'batched' : 'unbatched'}: ${best.ratio.toFixed(2)} of ${f.cores} cores × native single-thread measured just before (goal ≥ 0.80)`,
  ].join('\n');
}

if (!isMainThread && (workerData as { bare?: unknown } | null)?.bare) {
  bareWorker((workerData as { bare: { items: Items; n: number } }).bare);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  measureIdentity().then(
    (f) => process.stdout.write(identityTable(f) + '\n'),
    (e: unknown) => {
      process.stderr.write(String(e) + '\n');
      process.exit(1);
    },
  );
}
