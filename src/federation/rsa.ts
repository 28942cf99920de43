// RSA-SHA256 for HTTP signatures, run on libuv's thread pool through node:crypto's callback form. Measured
// (bench/signatures.ts, RESULTS.md): a verification costs the event loop ~17 µs this way against ~22 µs done
// synchronously and 63–94 µs through the Piscina pool (its message passing dominates such short tasks). In-flight
// operations are bounded; past the bound callers get PoolBusyError (503 + Retry-After at the edge).
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { PoolBusyError } from '../../actors/worker-pool.js';

const KEY_CACHE_MAX = 4096;

export class RsaSigner {
  private inflight = 0;
  // Parsing a PEM costs more than a verification; actors' keys repeat, so parsed keys are kept (bounded, FIFO).
  private readonly publicKeys = new Map<string, KeyObject>();
  private readonly privateKeys = new Map<string, KeyObject>();

  constructor(private readonly maxInflight: number) {}

  /** false for a wrong signature, an unparsable key or a key that is not RSA; throws only PoolBusyError. */
  verify(publicKeyPem: string, message: string, signature: Uint8Array): Promise<boolean> {
    let key: KeyObject;
    try {
      key = cached(this.publicKeys, publicKeyPem, createPublicKey);
    } catch {
      return Promise.resolve(false);
    }
    if (key.asymmetricKeyType !== 'rsa') return Promise.resolve(false);
    return this.run<boolean>((done) => verify('sha256', Buffer.from(message), key, signature, done)).catch((e: unknown) => {
      // Overload must reach the client as 503, not pass for a bad signature (which would refetch keys).
      if (e instanceof PoolBusyError) throw e;
      return false;
    });
  }

  /** Base64 RSASSA-PKCS1-v1_5 SHA-256 signature. */
  async sign(privateKeyPem: string, message: string): Promise<string> {
    const key = cached(this.privateKeys, privateKeyPem, createPrivateKey);
    const sig = await this.run<Buffer>((done) => sign('sha256', Buffer.from(message), key, done));
    return sig.toString('base64');
  }

  private run<T>(start: (done: (err: Error | null, result: T) => void) => void): Promise<T> {
    if (this.inflight >= this.maxInflight) return Promise.reject(new PoolBusyError());
    this.inflight++;
    return new Promise<T>((resolve, reject) =>
      start((err, result) => {
        this.inflight--;
        if (err) reject(err);
        else resolve(result);
      }),
    );
  }
}

function cached(cache: Map<string, KeyObject>, pem: string, parse: (pem: string) => KeyObject): KeyObject {
  let key = cache.get(pem);
  if (!key) {
    key = parse(pem);
    if (cache.size >= KEY_CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(pem, key);
  }
  return key;
}
