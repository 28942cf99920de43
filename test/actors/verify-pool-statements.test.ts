// Identity statements through the real pool: statements asked for in one event-loop turn travel together (so a
// small queue holds a burst that one task per statement would overflow), each caller gets its own verdict, and
// a full queue refuses whole batches with PoolBusyError. Verdicts are checked against ones written out per
// statement, not against the verifier itself, so a pool that refused everything would fail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VerifyPool } from '../../actors/verify-pool.js';
import { PoolBusyError } from '../../actors/worker-pool.js';
import type { StatementVerdict } from '../../src/identity/identity-statement.js';
import { newIdentityKey, signStatement } from '../support/identity-statements.js';

const ACTOR = 'https://stoa.example/users/ana';

interface Case {
  readonly input: string;
  /** The verdict this statement must get, written out rather than computed by the verifier under test. */
  readonly expected: StatementVerdict;
}

/** Valid and invalid statements, mixed, so a verdict given to the wrong caller shows. */
function mixedStatements(n: number): Case[] {
  const key = newIdentityKey();
  return Array.from({ length: n }, (_, i) => {
    if (i % 3 === 0) {
      const own = newIdentityKey();
      return { input: JSON.stringify(signStatement(own, ACTOR)), expected: { ok: true, subject: own.did, expiresAtMs: null } };
    }
    // A property added after signing: the signature no longer covers the document.
    if (i % 3 === 1) return { input: JSON.stringify({ ...signStatement(key, ACTOR), extra: i }), expected: { ok: false, reason: 'signature_invalid' } };
    return { input: JSON.stringify(signStatement(key, `${ACTOR}-${i}`)), expected: { ok: false, reason: 'actor_mismatch' } };
  });
}

describe('VerifyPool identity statements', () => {
  it('gives every caller its own verdict when a burst spans several batches', async () => {
    const pool = new VerifyPool({ minThreads: 1, maxThreads: 2, maxQueue: 64, idleTimeoutMs: 1000 });
    try {
      const cases = mixedStatements(100);
      const now = Date.now();
      const verdicts = await Promise.all(cases.map((c) => pool.verifyStatement({ input: c.input, actorId: ACTOR, nowMs: now })));
      assert.deepEqual(
        verdicts,
        cases.map((c) => c.expected),
      );
    } finally {
      await pool.stop(1000);
    }
  });

  it('holds a burst of 100 in a queue of 4 (batched), where 100 separate tasks are refused', async () => {
    const pool = new VerifyPool({ minThreads: 1, maxThreads: 1, maxQueue: 4, idleTimeoutMs: 1000 });
    try {
      const cases = mixedStatements(100);
      const now = Date.now();
      const batched = await Promise.allSettled(cases.map((c) => pool.verifyStatement({ input: c.input, actorId: ACTOR, nowMs: now })));
      assert.deepEqual(
        batched,
        cases.map((c) => ({ status: 'fulfilled', value: c.expected })),
      );
      const separate = await Promise.allSettled(
        cases.map((c) => pool.run({ op: 'identity-statements', items: [{ input: c.input, actorId: ACTOR, nowMs: now }] })),
      );
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
      const cases = mixedStatements(300);
      const now = Date.now();
      const results = await Promise.allSettled(cases.map((c) => pool.verifyStatement({ input: c.input, actorId: ACTOR, nowMs: now })));
      // Batches are the runs of 32 asked for in turn: each is answered whole or refused whole.
      const batches = Array.from({ length: Math.ceil(results.length / 32) }, (_, b) => results.slice(b * 32, b * 32 + 32));
      for (const batch of batches) assert.equal(new Set(batch.map((r) => r.status)).size, 1, 'a batch is answered or refused as a whole');
      const refused = results.filter((r) => r.status === 'rejected');
      assert.ok(refused.length >= 32, 'at least one whole batch refused');
      for (const r of refused) assert.ok(r.reason instanceof PoolBusyError);
      // The first batch finds the queue empty, so it is always accepted.
      assert.ok(results.length - refused.length >= 32, 'at least one whole batch answered');
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') assert.deepEqual(r.value, cases[i]!.expected, `statement ${i}`);
      });
      const own = newIdentityKey();
      const again = JSON.stringify(signStatement(own, ACTOR));
      assert.deepEqual(await pool.verifyStatement({ input: again, actorId: ACTOR, nowMs: Date.now() }), { ok: true, subject: own.did, expiresAtMs: null });
    } finally {
      await pool.stop(1000);
    }
  });
});
