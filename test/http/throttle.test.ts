// The throttles' counting against the real PostgreSQL (migration 047): the limit per window, its retry time, a new
// window once the old one ended (moved into the past here rather than waited for), throttles sharing the table
// without counting each other's attempts, long keys, and two throttle objects (two nodes) counting together.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Throttle } from '../../src/http/throttle.js';
import { Database } from '../../src/store/db.js';
import { ThrottleCounterStore } from '../../src/store/throttle-counters.js';
import { freshDatabaseUrl } from '../support/db.js';

describe('throttle', () => {
  let db: Database;
  let counters: ThrottleCounterStore;

  before(async () => {
    db = new Database(await freshDatabaseUrl(), 2, pino({ level: 'silent' }));
    counters = new ThrottleCounterStore(db);
  });
  after(() => db.close());

  async function hits(th: Throttle, key: string, n: number): Promise<boolean[]> {
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) out.push((await th.hit(key)).allowed);
    return out;
  }

  it('allows the limit per window, then refuses with a retry time, then resets', async () => {
    const th = new Throttle(counters, 't1', 3, 10_000);
    assert.deepEqual(await hits(th, 'k', 4), [true, true, true, false]);
    const refused = await th.hit('k');
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterSeconds >= 9 && refused.retryAfterSeconds <= 10, `retry after ${refused.retryAfterSeconds} s`);
    assert.equal((await th.check('k')).allowed, false, 'check sees the block');
    await db.exec(`UPDATE throttle_counters SET expires_at = now() - interval '1 millisecond' WHERE key = 't1:k'`);
    assert.equal((await th.check('k')).allowed, true, 'the window ended');
    assert.deepEqual(await hits(th, 'k', 4), [true, true, true, false], 'a new window counts from one');
  });

  it('counts each throttle and each key apart', async () => {
    const a = new Throttle(counters, 't2a', 1, 60_000);
    const b = new Throttle(counters, 't2b', 1, 60_000);
    assert.deepEqual(await hits(a, 'same', 2), [true, false]);
    assert.deepEqual(await hits(b, 'same', 1), [true], 'another throttle with the same key');
    assert.deepEqual(await hits(a, 'other', 1), [true], 'another key');
    assert.equal((await b.check('never')).allowed, true);
  });

  it('two throttle objects over one table (two nodes) allow together what one allows', async () => {
    const node1 = new Throttle(new ThrottleCounterStore(db), 't3', 4, 60_000);
    const node2 = new Throttle(new ThrottleCounterStore(db), 't3', 4, 60_000);
    const allowed = [];
    for (let i = 0; i < 6; i++) allowed.push((await (i % 2 ? node2 : node1).hit('ip:203.0.113.9')).allowed);
    assert.deepEqual(allowed, [true, true, true, true, false, false]);
    const together = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? node2 : node1).hit('ip:198.51.100.1')));
    assert.equal(together.filter((r) => r.allowed).length, 4, 'concurrent attempts are counted one by one');
  });

  it('stores a long key as its hash, still counted', async () => {
    const th = new Throttle(counters, 't4', 1, 60_000);
    const long = `login:${'x'.repeat(5_000)}`;
    assert.deepEqual(await hits(th, long, 2), [true, false]);
    assert.equal((await th.hit(`${long}y`)).allowed, true, 'another long key');
    const r = await db.one<{ longest: number }>(`SELECT max(length(key)) AS longest FROM throttle_counters WHERE key LIKE 'sha256:%'`);
    assert.ok(r!.longest < 100);
  });
});
