// HTTP-signature crypto, measured where it could run: RSA-2048 verify and sign on the event loop (synchronous
// node:crypto) and through node:crypto's callback form on libuv's thread pool as src/federation/rsa.ts does, each
// as throughput over the same batch and the share of it the event loop was busy. This decided where inbox
// verification and delivery signing run (RESULTS.md also has the Piscina figures measured before the choice).
// Run alone with `node dist/bench/signatures.js`; `npm run bench` runs it after the HTTP scenarios.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { RsaSigner } from '../src/federation/rsa.js';

const N = Number(process.env['BENCH_SIGNATURES'] ?? 4000);

export interface SignatureFigures {
  readonly rows: readonly { what: string; perSec: number; eventLoopShare: string }[];
}

async function timed(fn: () => Promise<void> | void): Promise<{ ms: number; loopMs: number }> {
  const t0 = performance.now();
  const e0 = performance.eventLoopUtilization();
  await fn();
  const e1 = performance.eventLoopUtilization(e0);
  return { ms: performance.now() - t0, loopMs: e1.active };
}

export async function measureSignatures(): Promise<SignatureFigures> {
  const { publicKey: pub, privateKey: priv } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const pubKey = createPublicKey(pub);
  const privKey = createPrivateKey(priv);
  const message =
    '(request-target): post /inbox\nhost: stoa.example\ndate: Sat, 21 Nov 2026 10:00:00 GMT\ndigest: SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';
  const data = Buffer.from(message);
  const sig = sign('sha256', data, privKey);
  const rsa = new RsaSigner(N * 2);
  await Promise.all(Array.from({ length: 16 }, () => rsa.verify(pub, message, sig)));
  await Promise.all(Array.from({ length: 16 }, () => rsa.sign(priv, message)));

  const rows: SignatureFigures['rows'][number][] = [];
  const add = (what: string, n: number, t: { ms: number; loopMs: number }) =>
    rows.push({ what, perSec: Math.round((n / t.ms) * 1000), eventLoopShare: `${Math.round((t.loopMs / t.ms) * 100)} %` });

  add(
    'verify, event loop (sync)',
    N,
    await timed(() => {
      for (let i = 0; i < N; i++) verify('sha256', data, pubKey, sig);
    }),
  );
  add(
    'verify, libuv pool (callback)',
    N,
    await timed(() =>
      Promise.all(Array.from({ length: N }, () => new Promise<void>((r, j) => verify('sha256', data, pubKey, sig, (e) => (e ? j(e) : r()))))).then(
        () => undefined,
      ),
    ),
  );
  add(
    'verify, RsaSigner (libuv, keys cached)',
    N,
    await timed(() => Promise.all(Array.from({ length: N }, () => rsa.verify(pub, message, sig))).then(() => undefined)),
  );
  const S = Math.max(200, Math.floor(N / 10));
  add(
    'sign, event loop (sync)',
    S,
    await timed(() => {
      for (let i = 0; i < S; i++) sign('sha256', data, privKey);
    }),
  );
  add(
    'sign, libuv pool (callback)',
    S,
    await timed(() =>
      Promise.all(Array.from({ length: S }, () => new Promise<void>((r, j) => sign('sha256', data, privKey, (e) => (e ? j(e) : r()))))).then(() => undefined),
    ),
  );
  add(
    'sign, RsaSigner (libuv, keys cached)',
    S,
    await timed(() => Promise.all(Array.from({ length: S }, () => rsa.sign(priv, message))).then(() => undefined)),
  );
  return { rows };
}

export function signatureTable(f: SignatureFigures): string {
  const w = Math.max(...f.rows.map((r) => r.what.length));
  return [
    'RSA-2048 / SHA-256 (HTTP signatures)'.padEnd(w) + '      ops/s   event-loop busy',
    ...f.rows.map((r) => `${r.what.padEnd(w)}  ${String(r.perSec.toLocaleString('en-US')).padStart(9)}   ${r.eventLoopShare}`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureSignatures().then(
    (f) => process.stdout.write(signatureTable(f) + '\n'),
    (e: unknown) => {
      process.stderr.write(String(e) + '\n');
      process.exit(1);
    },
  );
}
