// Identity statements through the real pool: statements asked for in one event-loop turn travel together (so a
// small queue holds a burst that one task per statement would overflow), each caller gets its own verdict, and
// a full queue refuses whole batches with PoolBusyError.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PoolBusyError, VerifyPool } from '../../actors/verify-pool.js';
import { verifyIdentityStatement } from '../../src/identity/identity-statement.js';
import { newIdentityKey, signStatement } from '../support/identity-statements.js';

const ACTOR = 'https://stoa.example/users/ana';

/** Valid and invalid statements, mixed, so a verdict given to the wrong caller shows. */
function mixedStatements(n: number): string[] {
  const key = newIdentityKey();
  return Array.from({ length: n }, (_, i) => {
    if (i % 3 === 0) return JSON.stringify(signStatement(newIdentityKey(), ACTOR));
    if (i % 3 === 1) return JSON.stringify({ ...signStatement(key, ACTOR), extra: i });
    return JSON.stringify(signStatement(key, `${ACTOR}-${i}`));
  });
}

describe('VerifyPool identity statements', () => {
  it('gives every caller its own verdict when a burst spans several batches', async () => {
    const pool = new VerifyPool({ minThreads: 1, maxThreads: 2, maxQueue: 64, idleTimeoutMs: 1000 });
    try {
      const texts = mixedStatements(100);
      const now = Date.now();
      const verdicts = await Promise.all(texts.map((input) => pool.verifyStatement({ input, actorId: ACTOR, nowMs: now })));
      assert.deepEqual(verdicts, texts.map((t) => verifyIdentityStatement(t, ACTOR, now)));
      assert.deepEqual(new Set(verdicts.map((v) => (v.ok ? 'ok' : v.reason))), new Set(['ok', 'signature_invalid', 'actor_mismatch']));
    } finally {
      await pool.stop(1000);
    }
  });

  it('holds a burst of 100 in a queue of 4 (batched), where 100 separate tasks are refused', async () => {
    const pool = new VerifyPool({ minThreads: 1, maxThreads: 1, maxQueue: 4, idleTimeoutMs: 1000 });
    try {
      const texts = mixedStatements(100);
      const now = Date.now();
      const batched = await Promise.allSettled(texts.map((input) => pool.verifyStatement({ input, actorId: ACTOR, nowMs: now })));
      assert.ok(batched.every((r) => r.status === 'fulfilled'));
      const separate = await Promise.allSettled(texts.map((input) => pool.run({ op: 'identity-statements', items: [{ input, actorId: ACTOR, nowMs: now }] })));
      const refused = separate.filter((r) => r.status === 'rejected');
      assert.ok(refused.length > 0);
      for (const r of refused) assert.ok(r.reason instanceof PoolBusyError);
    } finally {
      await pool.stop(1000);
    }
  });

  it('refuses whole batches with PoolBusyError past the queue and still answers the accepted ones', async () => {
    const pool = new VerifyPool({ minThreads: 1, maxThreads: 1, maxQueue: 1, idleTimeoutMs: 1000 });
    try {
      const texts = mixedStatements(300);
      const now = Date.now();
      const results = await Promise.allSettled(texts.map((input) => pool.verifyStatement({ input, actorId: ACTOR, nowMs: now })));
      const refused = results.filter((r) => r.status === 'rejected');
      assert.ok(refused.length >= 32, 'at least one whole batch refused');
      for (const r of refused) assert.ok(r.reason instanceof PoolBusyError);
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') assert.deepEqual(r.value, verifyIdentityStatement(texts[i]!, ACTOR, now));
      });
      const again = JSON.stringify(signStatement(newIdentityKey(), ACTOR));
      assert.equal((await pool.verifyStatement({ input: again, actorId: ACTOR, nowMs: Date.now() })).ok, true);
    } finally {
      await pool.stop(1000);
    }
  });
});
