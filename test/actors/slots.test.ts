import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Slots } from '../../actors/slots.js';

describe('Slots (the per-node cap on running history jobs)', () => {
  it('lets `size` holders in at once and the rest in arrival order as slots are released', async () => {
    const slots = new Slots(2);
    const order: number[] = [];
    const a = await slots.acquire();
    const b = await slots.acquire();
    const waiters = [3, 4, 5].map((n) =>
      slots.acquire().then((release) => {
        order.push(n);
        return release;
      }),
    );
    await Promise.resolve();
    assert.equal(slots.inUse, 2);
    assert.equal(slots.queued, 3);
    a();
    a(); // a second release of the same slot gives nothing away
    const c = await waiters[0]!;
    assert.deepEqual(order, [3]);
    assert.equal(slots.queued, 2);
    b();
    c();
    const [d, e] = await Promise.all([waiters[1]!, waiters[2]!]);
    assert.deepEqual(order, [3, 4, 5]);
    d();
    e();
    assert.equal(slots.inUse, 0);
  });

  it('a waiter whose signal aborts leaves the queue and takes nothing', async () => {
    const slots = new Slots(1);
    const held = await slots.acquire();
    const stop = new AbortController();
    const abandoned = slots.acquire(stop.signal);
    const next = slots.acquire();
    stop.abort(new Error('shutting down'));
    await assert.rejects(abandoned, /shutting down/);
    assert.equal(slots.queued, 1);
    held();
    (await next)();
    assert.equal(slots.inUse, 0);
    await assert.rejects(slots.acquire(stop.signal), /shutting down/, 'an aborted signal is refused at once');
  });

  it('refuses a size that is not a positive integer', () => {
    assert.throws(() => new Slots(0), RangeError);
    assert.throws(() => new Slots(1.5), RangeError);
  });
});
