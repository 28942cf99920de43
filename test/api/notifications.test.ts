// Notifications over real HTTP between local members: follow, follow_request, mention, favourite and reblog arrive
// for the member concerned (never for one's own actions); undoing a favourite, boost or follow takes its
// notification back; types[] / exclude_types[] / account_id filter; one by id, dismiss, clear; scopes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newNonce } from '../../src/store/auth-events.js';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('notifications API', () => {
  let s: TestServer;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? (token[who] ?? who) : undefined, method, path, body);
  const notes = async (who: string, query = ''): Promise<Json[]> => {
    const r = await call(who, 'GET', `/api/v1/notifications${query}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const summary = (list: Json[]) => list.map((n) => `${n.type}:${n.account.username}${n.status ? `:${n.status.id}` : ''}`);

  before(async () => {
    s = await startTestServer();
    const members = await createMembers(s, ['nia', 'oto', 'pim', 'lok']);
    Object.assign(id, members.id);
    Object.assign(token, members.token);
    token['nia-read-only'] = await members.tokenFor('nia', ['read:statuses']);
    await s.app.federation.accounts.updateLocalProfile(id['lok']!, { locked: true }, newNonce());
  });
  after(() => s.stop());

  it('tells a member about follows, mentions, favourites and boosts by others, newest first', async () => {
    assert.equal((await call('oto', 'POST', `/api/v1/accounts/${id['nia']}/follow`)).status, 200);
    const post = (await call('nia', 'POST', '/api/v1/statuses', { status: 'hello @oto and @nia' })).body;
    const mention = (await call('oto', 'POST', '/api/v1/statuses', { status: '@nia hi', in_reply_to_id: post.id })).body;
    assert.equal((await call('oto', 'POST', `/api/v1/statuses/${post.id}/favourite`)).status, 200);
    assert.equal((await call('oto', 'POST', `/api/v1/statuses/${post.id}/reblog`)).status, 200);
    await call('nia', 'POST', `/api/v1/statuses/${post.id}/favourite`); // one's own action: no notification
    const list = await notes('nia');
    assert.deepEqual(summary(list), [`reblog:oto:${post.id}`, `favourite:oto:${post.id}`, `mention:oto:${mention.id}`, 'follow:oto']);
    for (const n of list) {
      assert.match(n.id, /^\d+$/);
      assert.match(n.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(n.account.id, id['oto']);
      assert.equal(typeof n.group_key, 'string');
    }
    assert.equal('status' in list.at(-1), false, 'a follow has no status');
    // oto was mentioned in nia's post too.
    assert.deepEqual(summary(await notes('oto')), [`mention:nia:${post.id}`]);
  });

  it('takes back the notification when the favourite, boost or follow is undone', async () => {
    const post = (await call('pim', 'POST', '/api/v1/statuses', { status: 'undo me' })).body;
    await call('oto', 'POST', `/api/v1/accounts/${id['pim']}/follow`);
    await call('oto', 'POST', `/api/v1/statuses/${post.id}/favourite`);
    await call('oto', 'POST', `/api/v1/statuses/${post.id}/reblog`);
    assert.equal((await notes('pim')).length, 3);
    await call('oto', 'POST', `/api/v1/statuses/${post.id}/unfavourite`);
    await call('oto', 'POST', `/api/v1/statuses/${post.id}/unreblog`);
    await call('oto', 'POST', `/api/v1/accounts/${id['pim']}/unfollow`);
    assert.deepEqual(await notes('pim'), []);
  });

  it('tells a locked member about a follow request', async () => {
    await call('pim', 'POST', `/api/v1/accounts/${id['lok']}/follow`);
    assert.deepEqual(summary(await notes('lok')), ['follow_request:pim']);
  });

  it('filters by types[], exclude_types[] and account_id, and pages with Link headers', async () => {
    assert.deepEqual(
      summary(await notes('nia', '?types[]=mention&types[]=follow')).map((x) => x.split(':')[0]),
      ['mention', 'follow'],
    );
    assert.deepEqual(
      summary(await notes('nia', '?exclude_types[]=mention&exclude_types[]=follow')).map((x) => x.split(':')[0]),
      ['reblog', 'favourite'],
    );
    assert.equal((await notes('nia', `?account_id=${id['pim']}`)).length, 0);
    assert.equal((await notes('nia', `?account_id=${id['oto']}`)).length, 4);
    const first = await call('nia', 'GET', '/api/v1/notifications?limit=2&types[]=mention&types[]=follow&types[]=favourite');
    assert.equal(first.body.length, 2);
    const next = /<([^>]+)>; rel="next"/.exec(first.link ?? '')![1]!;
    assert.ok(next.startsWith(`${s.url}/api/v1/notifications?`));
    const second = await call('nia', 'GET', next.slice(s.url.length));
    assert.deepEqual(
      summary(second.body).map((x) => x.split(':')[0]),
      ['follow'],
    );
    const last = /<([^>]+)>; rel="next"/.exec(second.link ?? '')![1]!;
    const empty = await call('nia', 'GET', last.slice(s.url.length));
    assert.deepEqual(empty.body, []);
    assert.equal(empty.link, null);
  });

  it("shows one notification, dismisses one and clears all, only the member's own", async () => {
    const [top] = await notes('nia');
    assert.deepEqual((await call('nia', 'GET', `/api/v1/notifications/${top.id}`)).body, top);
    assert.equal((await call('oto', 'GET', `/api/v1/notifications/${top.id}`)).status, 404);
    const foreign = await call('oto', 'POST', `/api/v1/notifications/${top.id}/dismiss`);
    assert.deepEqual([foreign.status, foreign.body], [404, { error: 'Record not found' }], "another member's notification is not found");
    assert.equal((await notes('nia'))[0].id, top.id, "another member's dismiss changes nothing");
    const dismissed = await call('nia', 'POST', `/api/v1/notifications/${top.id}/dismiss`);
    assert.deepEqual([dismissed.status, dismissed.body], [200, {}]);
    assert.equal((await call('nia', 'POST', `/api/v1/notifications/${top.id}/dismiss`)).status, 404, 'dismissed already');
    assert.ok(!(await notes('nia')).some((n) => n.id === top.id));
    const cleared = await call('nia', 'POST', '/api/v1/notifications/clear');
    assert.deepEqual([cleared.status, cleared.body], [200, {}]);
    assert.deepEqual(await notes('nia'), []);
    assert.equal((await notes('oto')).length, 1, 'clearing is per member');
  });

  it('needs read:notifications to list and write:notifications to dismiss', async () => {
    assert.equal((await call(undefined, 'GET', '/api/v1/notifications')).status, 401);
    assert.equal((await call('nia-read-only', 'GET', '/api/v1/notifications')).status, 403);
    assert.equal((await call('nia-read-only', 'POST', '/api/v1/notifications/clear')).status, 403);
  });

  it('hides a mention once its status is deleted', async () => {
    const m = (await call('pim', 'POST', '/api/v1/statuses', { status: '@oto soon deleted' })).body;
    assert.ok((await notes('oto')).some((n) => n.status?.id === m.id));
    await call('pim', 'DELETE', `/api/v1/statuses/${m.id}`);
    assert.ok(!(await notes('oto')).some((n) => n.status?.id === m.id));
  });
});
