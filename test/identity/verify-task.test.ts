// The verification pool's task function (actors/workers/verify.ts), called directly: one verdict per statement in
// order, garbage items as verdicts, and never a throw across the pool boundary.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import run, { type IdentityStatementsTask, type StatementItem, type VerifyTask } from '../../actors/workers/verify.js';
import { ACTOR, NOW_MS, freshKey, signStatement } from './statement-fixtures.js';

const key = freshKey();
const other = freshKey();
const valid = JSON.stringify(signStatement(key));
const validOther = JSON.stringify(signStatement(other, { proof: { verificationMethod: other.fragmentMethod, expires: '2030-01-01T00:00:00Z' } }));

function statements(items: unknown[]): unknown {
  return run({ op: 'identity-statements', items } as unknown as IdentityStatementsTask);
}

describe('verify task: identity-statements', () => {
  it('returns one verdict per item, in order, for strings and bytes', () => {
    const items: StatementItem[] = [
      { input: valid, actorId: ACTOR, nowMs: NOW_MS },
      { input: valid, actorId: 'https://stoa.example/users/bob', nowMs: NOW_MS },
      { input: new TextEncoder().encode(validOther), actorId: ACTOR, nowMs: NOW_MS },
      { input: validOther, actorId: ACTOR, nowMs: Date.parse('2030-01-01T00:00:00Z') },
      { input: '{}', actorId: ACTOR, nowMs: NOW_MS },
    ];
    assert.deepEqual(run({ op: 'identity-statements', items }), {
      ok: true,
      verdicts: [
        { ok: true, subject: key.did, expiresAtMs: null },
        { ok: false, reason: 'actor_mismatch' },
        { ok: true, subject: other.did, expiresAtMs: Date.parse('2030-01-01T00:00:00Z') },
        { ok: false, reason: 'expired' },
        { ok: false, reason: 'wrong_type' },
      ],
    });
  });

  it('returns an empty verdict list for an empty batch', () => {
    assert.deepEqual(run({ op: 'identity-statements', items: [] }), { ok: true, verdicts: [] });
  });

  it('turns garbage items into refusals without losing the valid items around them', () => {
    const huge = 'x'.repeat(5_000_000);
    const result = statements([
      { input: valid, actorId: ACTOR, nowMs: NOW_MS },
      { input: 42, actorId: ACTOR, nowMs: NOW_MS },
      { input: null, actorId: ACTOR, nowMs: NOW_MS },
      { input: undefined, actorId: ACTOR, nowMs: NOW_MS },
      { input: { type: 'VerifiableIdentityStatement' }, actorId: ACTOR, nowMs: NOW_MS },
      { input: huge, actorId: ACTOR, nowMs: NOW_MS },
      { input: new Uint8Array(20_000), actorId: ACTOR, nowMs: NOW_MS },
      { input: new Uint8Array([0xff, 0xfe]), actorId: ACTOR, nowMs: NOW_MS },
      { input: valid, actorId: 42, nowMs: NOW_MS },
      { input: valid, actorId: ACTOR, nowMs: 'now' },
      null,
      'statement',
      { input: valid, actorId: ACTOR, nowMs: NOW_MS },
    ]) as { ok: boolean; verdicts: { ok: boolean; reason?: string }[] };
    assert.equal(result.ok, true);
    assert.equal(result.verdicts.length, 13);
    assert.deepEqual(result.verdicts[0], { ok: true, subject: key.did, expiresAtMs: null });
    assert.deepEqual(result.verdicts[12], { ok: true, subject: key.did, expiresAtMs: null });
    assert.deepEqual(result.verdicts[5], { ok: false, reason: 'too_large' });
    assert.deepEqual(result.verdicts[6], { ok: false, reason: 'too_large' });
    assert.deepEqual(result.verdicts[7], { ok: false, reason: 'malformed_json' });
    assert.deepEqual(result.verdicts[8], { ok: false, reason: 'actor_mismatch' });
    for (const i of [1, 2, 3, 4, 9, 10, 11]) {
      const verdict = result.verdicts[i]!;
      assert.equal(verdict.ok, false, `item ${i}`);
      assert.ok(['malformed_json', 'verification_error'].includes(verdict.reason!), `item ${i}: ${verdict.reason}`);
    }
    // Without a clock reading expiry cannot be decided: a valid statement is refused rather than let through.
    assert.deepEqual(result.verdicts[9], { ok: false, reason: 'verification_error' });
  });

  it('answers a task without an item list with a refusal instead of throwing', () => {
    for (const items of [undefined, null, 'items', 7, { length: 1 }]) {
      assert.deepEqual(statements(items as unknown as unknown[]), { ok: false, reason: 'verification_error' }, String(items));
    }
  });

  it('verifies a batch of 200 statements from 20 keys in order', () => {
    const keys = Array.from({ length: 20 }, () => freshKey());
    const texts = keys.map((k) => JSON.stringify(signStatement(k)));
    const items = Array.from(
      { length: 200 },
      (_, i): StatementItem => ({ input: texts[i % 20]!, actorId: i % 7 === 0 ? 'https://stoa.example/users/bob' : ACTOR, nowMs: NOW_MS }),
    );
    const result = run({ op: 'identity-statements', items });
    assert.ok(result.ok && 'verdicts' in result);
    result.verdicts.forEach((verdict, i) => {
      assert.deepEqual(
        verdict,
        i % 7 === 0 ? { ok: false, reason: 'actor_mismatch' } : { ok: true, subject: keys[i % 20]!.did, expiresAtMs: null },
        `item ${i}`,
      );
    });
  });
});

describe('verify task: other operations', () => {
  it('answers an unknown operation with unknown_operation', () => {
    assert.deepEqual(run({ op: 'rsa-verify' } as unknown as VerifyTask), { ok: false, reason: 'unknown_operation' });
  });

  it('answers a null or empty task with a refusal instead of throwing', () => {
    assert.deepEqual(run({} as unknown as VerifyTask), { ok: false, reason: 'unknown_operation' });
    assert.deepEqual(run(null as unknown as VerifyTask), { ok: false, reason: 'verification_error' });
  });

  it('answers malformed ed25519-verify input with a reason', () => {
    const publicKey = key.publicKey;
    const message = new Uint8Array(4);
    const signature = new Uint8Array(64);
    const task = (t: Record<string, unknown>): unknown => run({ op: 'ed25519-verify', ...t } as unknown as VerifyTask);
    assert.deepEqual(task({ publicKey: 'key', message, signature }), { ok: false, reason: 'invalid_public_key' });
    assert.deepEqual(task({ publicKey, message, signature: new Uint8Array(63) }), { ok: false, reason: 'invalid_signature_length' });
    assert.deepEqual(task({ publicKey, message: 'text', signature }), { ok: false, reason: 'invalid_message' });
    assert.deepEqual(task({ publicKey, message, signature }), { ok: false, reason: 'signature_mismatch' });
  });
});
