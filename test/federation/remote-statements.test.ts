// RemoteStatements on its own, with the real verification pool and a recording store: what a remote actor's
// attachment turns into, including attachments that cannot even be serialised, and a pool that is down.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { VerifyPool } from '../../actors/verify-pool.js';
import { RemoteStatements } from '../../src/federation/remote-statements.js';
import type { Account } from '../../src/store/accounts.js';
import type { IdentityStatementStore, StoredStatement } from '../../src/store/identity-statements.js';
import { newIdentityKey, signStatement } from '../support/identity-statements.js';

const ACTOR = 'https://remote.example/users/ana';

function recordingStore(): { store: IdentityStatementStore; calls: StoredStatement[][] } {
  const calls: StoredStatement[][] = [];
  const store = { replaceAll: async (_id: string, s: readonly StoredStatement[]) => void calls.push([...s]) } as unknown as IdentityStatementStore;
  return { store, calls };
}

function deeplyNested(depth: number): unknown {
  let o: unknown = {};
  for (let i = 0; i < depth; i++) o = { a: o };
  return o;
}

describe('RemoteStatements', () => {
  let pool: VerifyPool;
  const account = { id: '1', uri: ACTOR } as Account;

  before(() => {
    pool = new VerifyPool({ minThreads: 1, maxThreads: 2, maxQueue: 64, idleTimeoutMs: 10_000 });
  });
  after(() => pool.stop(5_000));

  it('keeps the valid statements when another attachment is nested too deeply to serialise', async () => {
    const { store, calls } = recordingStore();
    const good = signStatement(newIdentityKey(), ACTOR);
    const hostile = { type: 'VerifiableIdentityStatement', subject: 'did:key:z6Mk', alsoKnownAs: ACTOR, deep: deeplyNested(200_000) };
    assert.throws(() => JSON.stringify(hostile), RangeError);
    await new RemoteStatements({ pool, statements: store, clock: { now: () => Date.now() }, log: pino({ level: 'silent' }) }).sync(account, [hostile, good]);
    assert.equal(calls.length, 1);
    assert.deepEqual(
      calls[0]!.map((s) => JSON.parse(s.document)),
      [good],
    );
  });

  it('stores expiry times and keeps only the first valid statement per subject', async () => {
    const { store, calls } = recordingStore();
    const key = newIdentityKey();
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const first = signStatement(key, ACTOR, { expires });
    const second = signStatement(key, ACTOR, { created: '2024-01-01T00:00:00Z' });
    await new RemoteStatements({ pool, statements: store, clock: { now: () => Date.now() }, log: pino({ level: 'silent' }) }).sync(account, [first, second]);
    assert.equal(calls[0]!.length, 1);
    assert.equal(calls[0]![0]!.subject, key.did);
    assert.equal(calls[0]![0]!.expiresAt?.toISOString(), expires);
    assert.deepEqual(JSON.parse(calls[0]![0]!.document), first);
  });

  it('leaves the stored statements alone when the pool cannot verify them', async () => {
    const { store, calls } = recordingStore();
    const stopped = new VerifyPool({ minThreads: 1, maxThreads: 1, maxQueue: 4, idleTimeoutMs: 1_000 });
    await stopped.stop(1_000);
    await new RemoteStatements({ pool: stopped, statements: store, clock: { now: () => Date.now() }, log: pino({ level: 'silent' }) }).sync(account, [
      signStatement(newIdentityKey(), ACTOR),
    ]);
    assert.deepEqual(calls, []);
  });

  it('leaves them alone too when a verification task fails as a whole (a fault of ours, not a verdict)', async () => {
    const { store, calls } = recordingStore();
    const failing = new VerifyPool({ minThreads: 1, maxThreads: 1, maxQueue: 4, idleTimeoutMs: 1_000 });
    failing.run = async () => ({ ok: false, reason: 'verification_error' });
    try {
      await assert.rejects(failing.verifyStatement({ input: '{}', actorId: ACTOR, nowMs: Date.now() }), /the verification task failed/);
      await new RemoteStatements({ pool: failing, statements: store, clock: { now: () => Date.now() }, log: pino({ level: 'silent' }) }).sync(account, [
        signStatement(newIdentityKey(), ACTOR),
      ]);
      assert.deepEqual(calls, []);
    } finally {
      await failing.stop(1_000);
    }
  });
});
