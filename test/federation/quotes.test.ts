// Quote posts: a member quotes a public post (quoted_status_id); the status shows the quoted one (Mastodon 4.5's
// quote entity), or why it cannot (deleted); followers-only posts cannot be quoted; the quote federates under the
// names other servers read (quote, _misskey_quote, quoteUri, quoteUrl), and the other side shows it quoted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('quote posts', () => {
  let a: TestServer;
  let b: TestServer;
  let tokenA: string;
  let tokenB: string;

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    const aOnB = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(a.url).host}`)).body.id;
    await api(b.url, tokenB, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    await eventually(async () => assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`)).body[0].following, true));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('shows the quoted post, and says when it has been deleted', async () => {
    const original = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'worth quoting' })).body;
    const quoting = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'so true', quoted_status_id: original.id });
    assert.equal(quoting.status, 200, quoting.text);
    assert.equal(quoting.body.quote.state, 'accepted');
    assert.equal(quoting.body.quote.quoted_status.id, original.id);
    await api(a.url, tokenA, 'DELETE', `/api/v1/statuses/${original.id}`);
    const after = (await api(a.url, undefined, 'GET', `/api/v1/statuses/${quoting.body.id}`)).body;
    assert.deepEqual(after.quote, { state: 'deleted', quoted_status: null });
  });

  it('refuses to quote followers-only posts and unknown ones', async () => {
    const priv = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'followers only', visibility: 'private' })).body;
    assert.equal((await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'x', quoted_status_id: priv.id })).status, 403);
    assert.equal((await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'x', quoted_status_id: '999999' })).status, 404);
  });

  it('federates the quote: the other server shows it quoting the post it already holds', async () => {
    const original = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'first, on A' })).body;
    const quoting = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'quoting myself', quoted_status_id: original.id })).body;
    const note = (await (await fetch(quoting.uri, { headers: { Accept: 'application/activity+json' } })).json()) as Json;
    for (const key of ['quote', '_misskey_quote', 'quoteUri', 'quoteUrl']) assert.equal(note[key], original.uri, key);
    let onB: Json;
    await eventually(async () => {
      onB = (await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.uri === quoting.uri);
      assert.ok(onB);
    });
    assert.equal(onB.quote.state, 'accepted');
    assert.equal(onB.quote.quoted_status.uri, original.uri);
  });
});
