// Notification filtering as Mastodon 4.3+ over real HTTP, with masto where it has the calls: the policy (v2 and v1
// shapes), filtered notifications kept out of the lists and unread counts (unless include_filtered), dropped ones
// never made, the requests gathering them per sender, and accepting or dismissing them one at a time or in bulk.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRestAPIClient, type mastodon } from 'masto';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('notification policy and requests', () => {
  let s: TestServer;
  let m: LocalMembers;
  const client: Record<string, mastodon.rest.Client> = {};

  const call = (who: string, method: string, path: string, body?: unknown) => api(s.url, m.token[who], method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  /** What `who` is shown in the v1 list: type:sender. */
  const shown = async (who: string, query = ''): Promise<string[]> =>
    ((await ok(who, 'GET', `/api/v1/notifications${query}`)) as Json[]).map((n) => `${n.type}:${n.account.username}`);
  const post = async (who: string, status: string, visibility = 'public'): Promise<string> =>
    (await ok(who, 'POST', '/api/v1/statuses', { status, visibility })).id;
  const requests = async (who: string): Promise<Json[]> => ok(who, 'GET', '/api/v1/notifications/requests');

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['alice', 'bob', 'carol', 'dave', 'erin', 'fay', 'gus', 'hal']);
    for (const name of ['alice', 'erin']) client[name] = createRestAPIClient({ url: s.url, accessToken: m.token[name]! });
  });
  after(() => s.stop());

  it('has Mastodon defaults, changes by PATCH (v2) and PUT (v1), and refuses an unknown value', async () => {
    const p = await client['alice']!.v2.notifications.policy.fetch();
    assert.deepEqual(
      { ...p, summary: { ...p.summary } },
      {
        forNotFollowing: 'accept',
        forNotFollowers: 'accept',
        forNewAccounts: 'accept',
        forPrivateMentions: 'filter',
        forLimitedAccounts: 'filter',
        summary: { pendingRequestsCount: 0, pendingNotificationsCount: 0 },
      },
    );
    const changed = await client['alice']!.v2.notifications.policy.update({ forNotFollowers: 'drop', forNewAccounts: 'filter' });
    assert.equal(changed.forNotFollowers, 'drop');
    assert.equal(changed.forNewAccounts, 'filter');
    assert.equal(changed.forNotFollowing, 'accept');
    assert.equal((await client['alice']!.v2.notifications.policy.fetch()).forNotFollowers, 'drop');

    const v1 = await ok('alice', 'GET', '/api/v1/notifications/policy');
    assert.deepEqual(v1, {
      filter_not_following: false,
      filter_not_followers: true,
      filter_new_accounts: true,
      filter_private_mentions: true,
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    });
    const put = await ok('alice', 'PUT', '/api/v1/notifications/policy', { filter_not_followers: false, filter_new_accounts: 'false' });
    assert.equal(put.filter_not_followers, false);
    const v2 = await ok('alice', 'GET', '/api/v2/notifications/policy');
    assert.equal(v2.for_not_followers, 'accept');
    assert.equal(v2.for_new_accounts, 'accept');

    const bad = await call('alice', 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'maybe' });
    assert.equal(bad.status, 422);
    assert.equal(typeof bad.body.error, 'string');
    const readOnly = await m.tokenFor('alice', ['read:notifications']);
    assert.equal((await api(s.url, readOnly, 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' })).status, 403);
  });

  it('filters, drops and accepts by the policy; filtered ones are left out of lists and counts unless asked for', async () => {
    await ok('bob', 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' });
    const mine = await post('bob', 'a post of bob');
    await ok('bob', 'POST', `/api/v1/accounts/${m.id['carol']}/follow`); // bob follows carol: hers pass
    await ok('carol', 'POST', `/api/v1/statuses/${mine}/favourite`);
    await ok('dave', 'POST', `/api/v1/statuses/${mine}/favourite`); // not followed: filtered
    await ok('dave', 'POST', `/api/v1/statuses/${mine}/reblog`);

    assert.deepEqual(await shown('bob'), ['favourite:carol']);
    assert.deepEqual(await shown('bob', '?include_filtered=true'), ['reblog:dave', 'favourite:dave', 'favourite:carol']);
    const grouped = await ok('bob', 'GET', '/api/v2/notifications');
    assert.deepEqual(
      grouped.notification_groups.map((g: Json) => g.type),
      ['favourite'],
    );
    assert.equal(grouped.notification_groups[0].notifications_count, 1);
    assert.equal((await ok('bob', 'GET', '/api/v1/notifications/unread_count')).count, 1);
    assert.equal((await ok('bob', 'GET', '/api/v2/notifications/unread_count')).count, 1);

    const [req, ...more] = await requests('bob');
    assert.equal(more.length, 0);
    assert.equal(req.account.id, m.id['dave']);
    assert.equal(req.notifications_count, '2');
    assert.equal((await ok('bob', 'GET', '/api/v2/notifications/policy')).summary.pending_notifications_count, 2);

    // Drop: no notification at all, not even a filtered one, and no request.
    await ok('bob', 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'drop' });
    await ok('erin', 'POST', `/api/v1/statuses/${mine}/favourite`);
    await ok('carol', 'POST', `/api/v1/statuses/${mine}/reblog`);
    assert.deepEqual(await shown('bob', '?include_filtered=true'), ['reblog:carol', 'reblog:dave', 'favourite:dave', 'favourite:carol']);
    assert.deepEqual(
      (await requests('bob')).map((r) => r.account.username),
      ['dave'],
    );
    // Taken back, a filtered notification leaves its request; the last one takes the request with it.
    await ok('dave', 'POST', `/api/v1/statuses/${mine}/unreblog`);
    assert.equal((await requests('bob'))[0].notifications_count, '1');
    await ok('dave', 'POST', `/api/v1/statuses/${mine}/unfavourite`);
    assert.deepEqual(await requests('bob'), []);
  });

  it('filters a private mention from someone not followed by default, unless it answers the member', async () => {
    const dm = await post('fay', '@gus secret', 'direct');
    assert.deepEqual(await shown('gus'), []);
    const [req] = await requests('gus');
    assert.equal(req.account.username, 'fay');
    assert.equal(req.last_status.id, dm);
    // gus writes to fay first: her direct answer passes.
    const gusDm = await post('gus', '@fay hello', 'direct');
    await ok('fay', 'POST', '/api/v1/statuses', { status: '@gus answer', visibility: 'direct', in_reply_to_id: gusDm });
    assert.deepEqual(await shown('gus'), ['mention:fay']);
    // A public mention is not private: it passes too; a new private one does not.
    await post('fay', '@gus in public');
    await post('fay', '@gus again', 'direct');
    assert.deepEqual(await shown('gus'), ['mention:fay', 'mention:fay']);
    assert.equal((await requests('gus'))[0].notifications_count, '2');
  });

  it('lists requests with Link pages, shows one, accepts one (later ones pass) and dismisses one, with masto', async () => {
    await ok('erin', 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' });
    const mine = await post('erin', 'erin writes');
    for (const who of ['alice', 'bob', 'carol']) await ok(who, 'POST', `/api/v1/statuses/${mine}/favourite`);
    const page = await call('erin', 'GET', '/api/v1/notifications/requests?limit=2');
    assert.equal(page.body.length, 2);
    assert.match(page.headers.get('link') ?? '', /max_id=\d+>; rel="next"/);
    const rest = await ok('erin', 'GET', `/api/v1/notifications/requests?limit=2&max_id=${page.body[1].id}`);
    assert.equal(rest.length, 1);

    const erin = client['erin']!;
    const listed = await erin.v1.notifications.requests.list();
    const byName = new Map(listed.map((r) => [r.account.username, r]));
    assert.deepEqual([...byName.keys()].sort(), ['alice', 'bob', 'carol']);
    const fromAlice = byName.get('alice')!;
    assert.equal((await erin.v1.notifications.requests.$select(fromAlice.id).fetch()).account.id, m.id['alice']);

    await erin.v1.notifications.requests.$select(fromAlice.id).accept();
    assert.deepEqual(await shown('erin'), ['favourite:alice']);
    assert.deepEqual(await erin.v1.notifications.requests.merged.fetch(), { merged: true });
    await ok('alice', 'POST', `/api/v1/statuses/${mine}/reblog`); // accepted: passes from now on
    assert.deepEqual(await shown('erin'), ['reblog:alice', 'favourite:alice']);

    await erin.v1.notifications.requests.$select(byName.get('bob')!.id).dismiss();
    assert.deepEqual(
      (await requests('erin')).map((r) => r.account.username),
      ['carol'],
    );
    assert.deepEqual(await shown('erin', '?include_filtered=true'), ['reblog:alice', 'favourite:carol', 'favourite:alice']);
    // Gone: and not someone else's to see or accept.
    assert.equal((await call('erin', 'GET', `/api/v1/notifications/requests/${byName.get('bob')!.id}`)).status, 404);
    assert.equal((await call('alice', 'POST', `/api/v1/notifications/requests/${byName.get('carol')!.id}/accept`)).status, 404);
    assert.equal((await call('erin', 'GET', '/api/v1/notifications/requests/nope')).status, 404);
  });

  it('accepts and dismisses in bulk (id[]), each member only their own', async () => {
    await ok('hal', 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' });
    const mine = await post('hal', 'hal writes');
    for (const who of ['alice', 'bob', 'carol', 'dave']) await ok(who, 'POST', `/api/v1/statuses/${mine}/favourite`);
    const ids = new Map(((await requests('hal')) as Json[]).map((r) => [r.account.username, r.id as string]));
    assert.equal(ids.size, 4);
    // JSON `{"id": [...]}`, or id[]=… in the query; another member's ids do nothing.
    assert.equal((await call('alice', 'POST', '/api/v1/notifications/requests/accept', { id: [ids.get('alice')] })).status, 200);
    const accept = await api(s.url, m.token['hal'], 'POST', '/api/v1/notifications/requests/accept', { id: [ids.get('alice'), ids.get('bob')] });
    assert.equal(accept.status, 200);
    assert.deepEqual((await shown('hal')).sort(), ['favourite:alice', 'favourite:bob']);
    const dismiss = await api(s.url, m.token['hal'], 'POST', `/api/v1/notifications/requests/dismiss?id[]=${ids.get('carol')}&id[]=${ids.get('dave')}`);
    assert.equal(dismiss.status, 200);
    assert.deepEqual(await requests('hal'), []);
    assert.deepEqual((await shown('hal', '?include_filtered=true')).sort(), ['favourite:alice', 'favourite:bob']);
    assert.equal((await api(s.url, m.token['hal'], 'POST', '/api/v1/notifications/requests/accept', { id: ['x'] })).status, 422);
  });
});
