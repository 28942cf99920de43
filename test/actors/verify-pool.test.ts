// The Piscina verifier pool, for real: Ed25519 verification in a worker thread, bad input as results, and an
// explicit PoolBusyError (HTTP 503 + Retry-After) when its queue is full.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ed25519PublicKey, signEd25519 } from '../../src/identity/ed25519.js';
import { after, before, describe, it } from 'node:test';
import { VerifyPool } from '../../actors/verify-pool.js';
import { PoolBusyError } from '../../actors/worker-pool.js';
import { toHttpError } from '../../src/errors.js';
import { exitOf } from './helpers.js';

function ed25519Fixture(): { publicKey: Uint8Array; message: Uint8Array; signature: Uint8Array } {
  // From a seed, not generateKeyPairSync + export, which can deadlock on Node 20 when a GC lands mid-export.
  const seed = randomBytes(32);
  const raw = ed25519PublicKey(seed);
  assert.equal(raw.length, 32);
  const message = new TextEncoder().encode('stoa verify-pool test message');
  const signature = signEd25519(seed, message);
  assert.equal(signature.length, 64);
  return { publicKey: raw, message, signature };
}

describe('VerifyPool Ed25519 verification', () => {
  let pool: VerifyPool;
  const fx = ed25519Fixture();

  before(() => {
    pool = new VerifyPool({ minThreads: 1, maxThreads: 1, maxQueue: 16, idleTimeoutMs: 1000 });
  });
  after(async () => {
    await pool.stop(1000);
  });

  it('accepts a valid signature', async () => {
    assert.deepEqual(await pool.verifyEd25519(fx.publicKey, fx.message, fx.signature), { ok: true });
  });

  it('rejects a message with one flipped byte', async () => {
    const tampered = Uint8Array.from(fx.message);
    tampered[3]! ^= 0x01;
    assert.deepEqual(await pool.verifyEd25519(fx.publicKey, tampered, fx.signature), { ok: false, reason: 'signature_mismatch' });
  });

  it('rejects a signature made by another key', async () => {
    const other = ed25519Fixture();
    assert.deepEqual(await pool.verifyEd25519(other.publicKey, fx.message, fx.signature), { ok: false, reason: 'signature_mismatch' });
  });

  it('returns invalid_public_key for a 31-byte key instead of throwing', async () => {
    const short = fx.publicKey.slice(0, 31);
    assert.deepEqual(await pool.verifyEd25519(short, fx.message, fx.signature), { ok: false, reason: 'invalid_public_key' });
  });

  it('returns invalid_signature_length for a truncated signature', async () => {
    assert.deepEqual(await pool.verifyEd25519(fx.publicKey, fx.message, fx.signature.slice(0, 63)), {
      ok: false,
      reason: 'invalid_signature_length',
    });
  });
});

describe('VerifyPool when full', () => {
  let pool: VerifyPool;
  const fx = ed25519Fixture();

  before(() => {
    pool = new VerifyPool({ minThreads: 1, maxThreads: 1, maxQueue: 2, idleTimeoutMs: 1000 });
  });
  after(async () => {
    await pool.stop(1000);
  });

  it('refuses with PoolBusyError past maxQueue, completes the accepted tasks, and keeps answering', async () => {
    const results = await Promise.allSettled(Array.from({ length: 200 }, () => pool.verifyEd25519(fx.publicKey, fx.message, fx.signature)));
    const refused = results.filter((r) => r.status === 'rejected');
    const done = results.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<VerifyPool['verifyEd25519']>>> => r.status === 'fulfilled');
    assert.ok(refused.length >= 1, 'at least one call must be refused');
    for (const r of refused) assert.ok(r.reason instanceof PoolBusyError, `unexpected rejection: ${String(r.reason)}`);
    assert.ok(done.length >= 1, 'some calls must be accepted');
    for (const r of done) assert.deepEqual(r.value, { ok: true });
    assert.equal(refused.length + done.length, 200);
    // With one thread and a queue of 2, far fewer than 200 can have been accepted at once.
    assert.ok(done.length < 200);

    // The pool recovers once the burst has drained.
    assert.deepEqual(await pool.verifyEd25519(fx.publicKey, fx.message, fx.signature), { ok: true });
    assert.equal(pool.queued, 0);
  });

  it('PoolBusyError maps to HTTP 503 with Retry-After: 1', () => {
    const http = toHttpError(new PoolBusyError());
    assert.equal(http.status, 503);
    assert.equal(http.headers['Retry-After'], '1');
    assert.equal(http.internal, false);
    assert.equal(toHttpError(new PoolBusyError(7)).headers['Retry-After'], '7');
  });
});

describe('VerifyPool lifecycle', () => {
  it('stop() exits with shutdown and later runs are refused', async () => {
    const pool = new VerifyPool({ minThreads: 1, maxThreads: 1, maxQueue: 4, idleTimeoutMs: 1000 });
    try {
      const fx = ed25519Fixture();
      assert.deepEqual(await pool.verifyEd25519(fx.publicKey, fx.message, fx.signature), { ok: true });
      const exit = exitOf(pool, 3000);
      await pool.stop(1000);
      assert.deepEqual(await exit, { kind: 'shutdown' });
      assert.equal(pool.alive, false);
      await assert.rejects(pool.verifyEd25519(fx.publicKey, fx.message, fx.signature), /stopped/);
    } finally {
      await pool.stop(1000);
    }
  });
});
