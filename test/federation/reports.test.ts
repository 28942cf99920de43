// Reports: a member reports a remote account with one of its posts; forwarded, the report reaches the account's
// server as a Flag from our instance actor (the reporter is not named) and is filed there for its moderators.
// Validation: only the reported account's statuses the reporter can see; not oneself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('reports between two Stoa servers', () => {
  let a: TestServer;
  let b: TestServer;
  let tokenA: string;
  let tokenB: string;
  let aOnB: string;

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    aOnB = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(a.url).host}`)).body.id;
    await api(b.url, tokenB, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    await eventually(async () => assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`)).body[0].following, true));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('files the report and forwards it as a Flag that the other server files for its moderators', async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'objectionable' })).body;
    let onB: Json;
    await eventually(async () => {
      onB = (await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.uri === post.uri);
      assert.ok(onB);
    });
    const r = await api(b.url, tokenB, 'POST', '/api/v1/reports', { account_id: aOnB, status_ids: [onB.id], comment: 'please look', forward: true, category: 'spam' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.forwarded, true);
    assert.equal(r.body.category, 'spam');
    assert.deepEqual(r.body.status_ids, [onB.id]);
    assert.equal(r.body.target_account.id, aOnB);
    assert.equal(r.body.action_taken, false);
    await eventually(async () => {
      const rows = (await a.app.db.pool.query('SELECT r.comment, r.status_ids::text[] AS ids, acc.uri FROM reports r JOIN accounts acc ON acc.id = r.account_id')).rows;
      assert.equal(rows.length, 1);
      assert.equal(rows[0].comment, 'please look');
      assert.deepEqual(rows[0].ids, [post.id]);
      assert.equal(rows[0].uri, `${b.url}/actor`, 'filed as coming from the other server, not the member');
    });
  });

  it('refuses statuses of other accounts or invisible ones, unknown accounts and oneself', async () => {
    const mine = (await api(b.url, tokenB, 'POST', '/api/v1/statuses', { status: 'my own' })).body;
    const me = (await api(b.url, tokenB, 'GET', '/api/v1/accounts/verify_credentials')).body.id;
    // As Mastodon: a status that is not the reported account's (or not visible, or unknown) is not found.
    for (const ids of [[mine.id], ['999999']]) {
      const r = await api(b.url, tokenB, 'POST', '/api/v1/reports', { account_id: aOnB, status_ids: ids });
      assert.deepEqual([r.status, r.body], [404, { error: 'Record not found' }]);
    }
    assert.equal((await api(b.url, tokenB, 'POST', '/api/v1/reports', { account_id: '999999' })).status, 404);
    assert.equal((await api(b.url, tokenB, 'POST', '/api/v1/reports', { account_id: me })).status, 422);
    assert.equal((await api(b.url, tokenB, 'POST', '/api/v1/reports', {})).status, 422);
    assert.equal((await api(b.url, undefined, 'POST', '/api/v1/reports', { account_id: aOnB })).status, 401);
    const local = await api(b.url, tokenB, 'POST', '/api/v1/reports', { account_id: aOnB, comment: 'not forwarded' });
    assert.equal(local.body.forwarded, false);
  });
});
