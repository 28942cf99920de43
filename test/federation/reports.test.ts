// Reports: a member reports a remote account with one of its posts; forwarded, the report reaches the account's
// server as a Flag from our instance actor (the reporter is not named) and is filed there for its moderators, who
// see it through the admin API and are notified.
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
  let moderatorA: string;

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    moderatorA = await adminToken(a, 'read admin:read:reports admin:write:reports');
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
    const r = await api(b.url, tokenB, 'POST', '/api/v1/reports', {
      account_id: aOnB,
      status_ids: [onB.id],
      comment: 'please look',
      forward: true,
      category: 'spam',
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.forwarded, true);
    assert.equal(r.body.category, 'spam');
    assert.deepEqual(r.body.status_ids, [onB.id]);
    assert.equal(r.body.target_account.id, aOnB);
    assert.equal(r.body.action_taken, false);
    // A's moderators see it through the admin API: from B's instance actor (the member is not named), about A's
    // member, with the reported post.
    let report: Json;
    await eventually(async () => {
      const r = await api(a.url, moderatorA, 'GET', '/api/v1/admin/reports');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.length, 1);
      report = r.body[0];
    });
    assert.equal(report.comment, 'please look');
    assert.equal(report.action_taken, false);
    assert.equal(report.account.domain, new URL(b.url).host);
    assert.equal(report.account.account.uri, `${b.url}/actor`, 'filed as coming from the other server, not the member');
    assert.equal(report.account.email, null, 'a remote account has no member data');
    assert.equal(report.account.role, null);
    assert.equal(report.target_account.domain, null);
    assert.equal(report.target_account.username, 'admin');
    assert.deepEqual(
      report.statuses.map((s: Json) => s.id),
      [post.id],
    );
    assert.equal(report.statuses[0].content, post.content);
    const notes = (await api(a.url, moderatorA, 'GET', '/api/v1/notifications?types[]=admin.report')).body;
    assert.equal(notes.length, 1);
    assert.equal(notes[0].account.uri, `${b.url}/actor`);
    assert.equal(notes[0].report.id, report.id);
    assert.deepEqual(notes[0].report.status_ids, [post.id]);
    // Handled there like any report.
    const resolved = await api(a.url, moderatorA, 'POST', `/api/v1/admin/reports/${report.id}/resolve`);
    assert.equal(resolved.body.action_taken, true);
    assert.equal(resolved.body.action_taken_by_account.username, 'admin');
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
