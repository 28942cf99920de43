// Search over real HTTP: accounts by name and handle, statuses by words (only what the member may read), hashtags
// by prefix; resolve=true fetches a remote handle or a remote post's URL through federation, for members only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('search', () => {
  let a: TestServer;
  let b: TestServer;
  let tokenA: string;
  let tokenB: string;
  const q = (params: Record<string, string>) => `/api/v2/search?${new URLSearchParams(params).toString()}`;

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('finds statuses by their words, only those the member may read', async () => {
    const pub = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'Zebras crossing the <b>savanna</b> #Wildlife' })).body;
    const priv = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'zebras in private', visibility: 'private' })).body;
    const mine = await api(a.url, tokenA, 'GET', q({ q: 'zebras', type: 'statuses' }));
    assert.deepEqual(
      mine.body.statuses.map((x: Json) => x.id),
      [priv.id, pub.id],
    );
    assert.deepEqual(
      (await api(a.url, tokenA, 'GET', q({ q: 'savanna zebras' }))).body.statuses.map((x: Json) => x.id),
      [pub.id],
    );
    assert.deepEqual((await api(a.url, tokenA, 'GET', q({ q: 'giraffes' }))).body.statuses, []);
    // Anonymous searches never list statuses.
    assert.deepEqual((await api(a.url, undefined, 'GET', q({ q: 'zebras' }))).body.statuses, []);
    assert.deepEqual(
      (await api(a.url, undefined, 'GET', q({ q: '#wild', type: 'hashtags' }))).body.hashtags.map((h: Json) => h.name),
      ['Wildlife'],
    );
  });

  it('finds accounts by name, and resolves a remote handle and a remote post URL for members', async () => {
    const local = await api(a.url, undefined, 'GET', q({ q: 'adm', type: 'accounts' }));
    assert.deepEqual(
      local.body.accounts.map((x: Json) => x.acct),
      ['admin'],
    );
    const handle = `admin@${new URL(b.url).host}`;
    // Anonymous: refused as Mastodon does, and nothing is fetched (the handle is still unknown here afterwards).
    const anonymous = await api(a.url, undefined, 'GET', q({ q: handle, resolve: 'true' }));
    assert.equal(anonymous.status, 401);
    assert.deepEqual(anonymous.body, { error: 'Search queries that resolve remote resources are not supported without authentication' });
    assert.deepEqual((await api(a.url, tokenA, 'GET', q({ q: handle }))).body.accounts, [], 'not fetched by the anonymous search');
    const resolved = await api(a.url, tokenA, 'GET', q({ q: handle, resolve: 'true', type: 'accounts' }));
    assert.deepEqual(
      resolved.body.accounts.map((x: Json) => x.acct),
      [handle],
    );
    const post = (await api(b.url, tokenB, 'POST', '/api/v1/statuses', { status: 'a post elsewhere' })).body;
    assert.deepEqual((await api(a.url, tokenA, 'GET', q({ q: post.uri }))).body.statuses, [], 'not known without resolve');
    const byUrl = await api(a.url, tokenA, 'GET', q({ q: post.uri, resolve: 'true' }));
    assert.deepEqual(
      byUrl.body.statuses.map((x: Json) => x.uri),
      [post.uri],
    );
    assert.equal(byUrl.body.statuses[0].account.acct, handle);
    const actor = await api(a.url, tokenA, 'GET', q({ q: `${b.url}/users/admin`, resolve: 'true' }));
    assert.deepEqual(
      actor.body.accounts.map((x: Json) => x.acct),
      [handle],
    );
  });

  it('refuses a missing query, negative or malformed pages, an unknown type and a malformed account_id with 400', async () => {
    const missing = await api(a.url, tokenA, 'GET', '/api/v2/search');
    assert.deepEqual([missing.status, missing.text], [400, '{"error":"q is required"}']);
    assert.deepEqual((await api(a.url, tokenA, 'GET', q({ q: '   ' }))).body, { error: 'q is required' });
    const positive = { error: 'Pagination values for `offset` and `limit` must be positive' };
    for (const params of [{ limit: '-1' }, { offset: '-5', type: 'statuses' }, { offset: '-5' }] as Record<string, string>[]) {
      const r = await api(a.url, tokenA, 'GET', q({ q: 'x', ...params }));
      assert.equal(r.status, 400, JSON.stringify(params));
      assert.deepEqual(r.body, positive);
    }
    assert.deepEqual((await api(a.url, tokenA, 'GET', q({ q: 'x', limit: 'ten' }))).body, { error: 'limit must be an integer' });
    assert.deepEqual((await api(a.url, tokenA, 'GET', q({ q: 'x', type: 'people' }))).body, { error: 'type must be accounts, statuses or hashtags' });
    assert.deepEqual((await api(a.url, tokenA, 'GET', q({ q: 'x', account_id: 'alice' }))).body, { error: 'account_id must be an account id' });
    for (const odd of ['%', '_', '\\', "'", '((', '@', '#', 'a:b', '&&', '"']) {
      const r = await api(a.url, tokenA, 'GET', q({ q: odd }));
      assert.equal(r.status, 200, odd);
      assert.deepEqual(Object.keys(r.body).sort(), ['accounts', 'hashtags', 'statuses']);
    }
  });
});
