// Restart/retry delay policies: pure functions, with randomness pinned.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exponentialBackoff, immediately } from '../../actors/policy.js';

describe('exponentialBackoff', () => {
  it('grows by the factor from baseMs and is capped at maxMs', () => {
    const delay = exponentialBackoff({ baseMs: 100, maxMs: 1000, factor: 3, jitter: 0.5 }, () => 0);
    assert.deepEqual([1, 2, 3, 4, 5, 10].map(delay), [100, 300, 900, 1000, 1000, 1000]);
  });

  it('defaults to a factor of 2', () => {
    const delay = exponentialBackoff({ baseMs: 50, maxMs: 10_000, jitter: 0 }, () => 0.9);
    assert.deepEqual([1, 2, 3, 4].map(delay), [50, 100, 200, 400]);
  });

  it('treats attempts below 1 like the first', () => {
    const delay = exponentialBackoff({ baseMs: 100, maxMs: 1000, jitter: 0 });
    assert.equal(delay(0), 100);
  });

  it('jitter removes up to that fraction of the delay, per the random source', () => {
    const base = { baseMs: 1000, maxMs: 60_000, factor: 2, jitter: 0.5 } as const;
    assert.equal(exponentialBackoff(base, () => 0)(1), 1000);
    assert.equal(exponentialBackoff(base, () => 0.5)(1), 750);
    assert.equal(exponentialBackoff(base, () => 1)(1), 500);
    assert.equal(exponentialBackoff(base, () => 1)(3), 2000);
    // The default jitter is 0.2.
    assert.equal(exponentialBackoff({ baseMs: 1000, maxMs: 60_000 }, () => 1)(1), 800);
    // The cap applies before jitter.
    assert.equal(exponentialBackoff({ ...base, maxMs: 3000 }, () => 1)(10), 1500);
  });

  it('with a real random source stays within [raw * (1 - jitter), raw]', () => {
    const delay = exponentialBackoff({ baseMs: 100, maxMs: 5000, factor: 2, jitter: 0.3 });
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      for (let attempt = 1; attempt <= 8; attempt++) {
        const raw = Math.min(5000, 100 * 2 ** (attempt - 1));
        const d = delay(attempt);
        assert.ok(d !== null && d >= Math.round(raw * 0.7) && d <= raw, `attempt ${attempt}: ${d} outside [${raw * 0.7}, ${raw}]`);
        if (attempt === 8) seen.add(d!);
      }
    }
    assert.ok(seen.size > 10, 'jitter should actually spread the delays');
  });

  it('gives up (null) after maxAttempts', () => {
    const delay = exponentialBackoff({ baseMs: 10, maxMs: 1000, jitter: 0, maxAttempts: 3 }, () => 0);
    assert.deepEqual([1, 2, 3].map(delay), [10, 20, 40]);
    assert.equal(delay(4), null);
    assert.equal(delay(100), null);
  });

  it('without maxAttempts never gives up', () => {
    const delay = exponentialBackoff({ baseMs: 10, maxMs: 1000, jitter: 0 }, () => 0);
    assert.equal(delay(1000), 1000);
  });
});

describe('immediately', () => {
  it('is always 0', () => {
    assert.deepEqual([1, 2, 50].map(immediately), [0, 0, 0]);
  });
});
