// The map under both render caches: least recently used out first, under a count and a byte bound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ByteLru } from '../../src/views/byte-lru.js';

describe('ByteLru', () => {
  it('drops the least recently used past the count bound (get marks an entry used)', () => {
    const removed: string[] = [];
    const lru = new ByteLru<string, number>(2, 1000, (k) => removed.push(k));
    lru.set('a', 1, 10);
    lru.set('b', 2, 10);
    assert.equal(lru.get('a'), 1);
    lru.set('c', 3, 10);
    assert.equal(lru.get('b'), undefined);
    assert.equal(lru.get('a'), 1);
    assert.equal(lru.get('c'), 3);
    assert.deepEqual(removed, ['b']);
  });

  it('drops the oldest until the bytes fit, counting a replaced entry once', () => {
    const lru = new ByteLru<string, string>(10, 100);
    lru.set('a', 'a', 40);
    lru.set('b', 'b', 40);
    lru.set('b', 'b2', 50);
    assert.equal(lru.size, 2);
    lru.set('c', 'c', 20);
    assert.equal(lru.get('a'), undefined);
    assert.equal(lru.get('b'), 'b2');
    assert.equal(lru.size, 2);
  });

  it('an entry over the byte bound takes everything with it', () => {
    const lru = new ByteLru<string, string>(10, 100);
    lru.set('a', 'a', 40);
    lru.set('b', 'b', 101);
    assert.equal(lru.size, 0);
  });

  it('calls onRemove on delete and replacement, not on clear', () => {
    const removed: [string, number][] = [];
    const lru = new ByteLru<string, number>(10, 1000, (k, v) => removed.push([k, v]));
    lru.set('a', 1, 1);
    lru.set('a', 2, 1);
    lru.delete('a');
    lru.delete('a');
    lru.set('b', 3, 1);
    lru.clear();
    assert.equal(lru.size, 0);
    assert.deepEqual(removed, [
      ['a', 1],
      ['a', 2],
    ]);
  });
});
