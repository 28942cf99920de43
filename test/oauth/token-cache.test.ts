// The per-node token cache: what it serves, what invalidation drops, and the races it must not lose.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenCache } from '../../src/oauth/token-cache.js';
import type { TokenRecord } from '../../src/store/oauth-tokens.js';
import type { LocalUser } from '../../src/store/users.js';

const user = (userId: string) => ({ userId }) as LocalUser;
const rec = (tokenId: string, appId: string, userId: string | null): TokenRecord => ({ tokenId, appId, scopes: ['read'], user: userId ? user(userId) : null });

function trustedCache(max = 100): TokenCache {
  const c = new TokenCache(max, 1_000, 3, 500);
  c.reset(true);
  return c;
}

describe('TokenCache', () => {
  it('serves nothing until the event stream is connected, and forgets everything when it breaks', () => {
    const c = new TokenCache();
    c.put('t1', rec('1', 'a', 'u'), c.generation, 0);
    assert.equal(c.get('t1', 0), undefined, 'not trusted before the listener connects');
    c.reset(true);
    c.put('t1', rec('1', 'a', 'u'), c.generation, 0);
    assert.equal(c.get('t1', 0)?.record.tokenId, '1');
    c.reset(false);
    assert.equal(c.get('t1', 0), undefined);
    c.reset(true);
    assert.equal(c.get('t1', 0), undefined, 'starts empty after reconnecting');
  });

  it('does not cache a lookup that raced an invalidation', () => {
    const c = trustedCache();
    const gen = c.generation; // a lookup starts…
    c.dropToken('1'); // …the token is revoked meanwhile…
    c.put('t1', rec('1', 'a', 'u'), gen, 0); // …and the stale row comes back
    assert.equal(c.get('t1', 0), undefined);
  });

  it('drops by token, by grant (member + app) and by member', () => {
    const c = trustedCache();
    c.put('t1', rec('1', 'a', 'u'), c.generation, 0);
    c.put('t2', rec('2', 'b', 'u'), c.generation, 0);
    c.put('t3', rec('3', 'a', 'v'), c.generation, 0);
    c.put('t4', rec('4', 'a', null), c.generation, 0);
    c.dropGrant('u', 'a');
    assert.deepEqual(
      ['t1', 't2', 't3', 't4'].map((k) => c.get(k, 0) !== undefined),
      [false, true, true, true],
    );
    c.dropUser('v');
    assert.deepEqual(
      ['t2', 't3', 't4'].map((k) => c.get(k, 0) !== undefined),
      [true, false, true],
    );
    c.dropToken('4');
    assert.equal(c.get('t4', 0), undefined);
    assert.equal(c.get('t2', 0)?.record.tokenId, '2');
  });

  it('expires entries after the TTL and stays within its bound', () => {
    const c = trustedCache(2);
    c.put('t1', rec('1', 'a', 'u'), c.generation, 0);
    assert.equal(c.get('t1', 999)?.record.tokenId, '1');
    assert.equal(c.get('t1', 1_000), undefined, 'expired');
    c.put('t1', rec('1', 'a', 'u'), c.generation, 0);
    c.put('t2', rec('2', 'a', 'u'), c.generation, 0);
    c.put('t3', rec('3', 'a', 'u'), c.generation, 0);
    assert.equal(c.size, 2);
    assert.equal(c.get('t1', 0), undefined, 'the oldest went first');
  });

  it('remembers unknown tokens briefly and boundedly', () => {
    const c = trustedCache();
    c.rememberInvalid('x', 0);
    assert.equal(c.knownInvalid('x', 499), true);
    assert.equal(c.knownInvalid('x', 500), false, 'forgotten after its TTL');
    for (const k of ['a', 'b', 'c', 'd']) c.rememberInvalid(k, 0);
    assert.equal(c.knownInvalid('a', 1), false, 'the oldest was evicted (bound 3)');
    assert.equal(c.knownInvalid('d', 1), true);
  });
});
