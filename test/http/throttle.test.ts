import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Throttle } from '../../src/http/throttle.js';

describe('throttle', () => {
  it('allows the limit per window, then refuses with a retry time, then resets', () => {
    let t = 0;
    const th = new Throttle(3, 10_000, 100, () => t);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => th.hit('k').allowed),
      [true, true, true, false],
    );
    assert.equal(th.hit('k').retryAfterSeconds, 10);
    t = 10_000;
    assert.equal(th.hit('k').allowed, true);
  });

  it('cannot be reset by flooding fresh keys: blocked windows are never evicted', () => {
    const t = 0;
    const th = new Throttle(2, 60_000, 10, () => t);
    for (let i = 0; i < 3; i++) th.hit('attacker');
    assert.equal(th.check('attacker').allowed, false);
    for (let i = 0; i < 1000; i++) th.hit(`junk${i}`);
    assert.equal(th.check('attacker').allowed, false);
    assert.equal(th.hit('attacker').allowed, false);
  });

  it('fails closed when every window is blocking, and frees expired windows first', () => {
    let t = 0;
    const th = new Throttle(1, 1000, 2, () => t);
    th.hit('a');
    th.hit('a');
    th.hit('b');
    th.hit('b');
    assert.equal(th.hit('c').allowed, false, 'no room without evicting a block');
    t = 1000;
    assert.equal(th.hit('c').allowed, true, 'expired windows make room');
  });
});
