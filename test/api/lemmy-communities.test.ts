// Communities through the link-aggregator adapter as lemmy-js-client 0.19.9 sees them, against a real server and a
// remote Group served by the hand-written peer (WebFinger, actor type Group): found by `!name@host` for a member
// (never fetched for an anonymous caller), then by id or bare name; listed; followed (Pending until the Group's
// Accept, then Subscribed and in my_user.follows) and unfollowed (an Undo to the Group); Lemmy's error codes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LemmyHttp } from 'lemmy-js-client';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail('the call succeeded');
}

describe('GET /api/v3/community, community/list and POST community/follow', () => {
  let s: TestServer;
  let peer: FakePeer;
  let m: LocalMembers;
  let anon: LemmyHttp;
  const as = (name: string) => new LemmyHttp(s.url, { fetchFunction: fetch, headers: { Authorization: `Bearer ${m.token[name]}` } });
  let newsId: number;

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    m = await createMembers(s, ['alice', 'bob']);
    anon = new LemmyHttp(s.url, { fetchFunction: fetch });
    await peer.addActor('news', { displayName: 'World News', extra: { type: 'Group', summary: '<p>All the news</p>' } });
    await peer.addActor('pets', { displayName: 'Pets', extra: { type: 'Group' } });
    await peer.addActor('carol', { displayName: 'Carol' });
  });
  after(async () => {
    await s?.stop();
    await peer?.stop();
  });

  it('does not fetch a community for an anonymous caller: 404 couldnt_find_community', async () => {
    assert.equal(await failure(anon.getCommunity({ name: `news@${peer.host}` })), 'couldnt_find_community');
    const raw = await api(s.url, undefined, 'GET', `/api/v3/community?name=${encodeURIComponent(`news@${peer.host}`)}`);
    assert.equal(raw.status, 404);
    assert.deepEqual(raw.body, { error: 'couldnt_find_community' });
  });

  it('finds a remote Group by !name@host for a member, as a CommunityView with numbers where Lemmy has them', async () => {
    const res = await as('alice').getCommunity({ name: `!news@${peer.host}` });
    const v = res.community_view;
    assert.equal(v.community.name, 'news');
    assert.equal(v.community.title, 'World News');
    assert.equal(v.community.actor_id, peer.actor('news').id);
    assert.equal(v.community.local, false);
    assert.equal(v.community.deleted, false);
    assert.equal(v.community.visibility, 'Public');
    assert.equal(typeof v.community.id, 'number');
    assert.equal(typeof v.community.instance_id, 'number');
    assert.equal(v.subscribed, 'NotSubscribed');
    assert.equal(v.blocked, false);
    for (const k of ['community_id', 'subscribers', 'posts', 'comments', 'subscribers_local', 'users_active_day'] as const)
      assert.equal(typeof v.counts[k], 'number', k);
    assert.equal(v.counts.community_id, v.community.id);
    assert.match(v.counts.published, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(res.moderators, []);
    assert.deepEqual(res.discussion_languages, []);
    newsId = v.community.id;
    // Known now: by id and by bare name for anyone, and the same id again.
    assert.equal((await anon.getCommunity({ id: newsId })).community_view.community.name, 'news');
    assert.equal((await anon.getCommunity({ name: 'news' })).community_view.community.id, newsId);
    assert.equal((await as('bob').getCommunity({ name: `news@${peer.host}` })).community_view.community.id, newsId);
  });

  it('a person is no community; unknown ids and names are 404; malformed input is 400', async () => {
    assert.equal(await failure(as('alice').getCommunity({ name: `carol@${peer.host}` })), 'couldnt_find_community');
    assert.equal(await failure(anon.getCommunity({ id: 999_999 })), 'couldnt_find_community');
    assert.equal(await failure(anon.getCommunity({ name: 'nothing-here' })), 'couldnt_find_community');
    assert.equal(await failure(anon.getCommunity({})), 'no_id_given');
    for (const q of ['id=abc', 'id=-1', 'id=1.5', 'id=99999999999999999999']) {
      const r = await api(s.url, undefined, 'GET', `/api/v3/community?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(typeof r.body.error, 'string');
    }
  });

  it('lists the known communities: All for anyone, none Local, Subscribed only for a member', async () => {
    await as('alice').getCommunity({ name: `!pets@${peer.host}` });
    const all = await anon.listCommunities({ type_: 'All', sort: 'New' });
    assert.deepEqual(all.communities.map((c) => c.community.name).sort(), ['news', 'pets']);
    assert.ok(all.communities.every((c) => typeof c.counts.subscribers === 'number'));
    assert.deepEqual((await anon.listCommunities({ type_: 'Local' })).communities, []);
    assert.deepEqual((await anon.listCommunities({ type_: 'Subscribed' })).communities, []);
    assert.deepEqual((await anon.listCommunities({ limit: 1 })).communities.length, 1);
    assert.deepEqual((await anon.listCommunities({ limit: 1, page: 3 })).communities, []);
    const bad = await api(s.url, undefined, 'GET', '/api/v3/community/list?sort=Sideways');
    assert.equal(bad.status, 400);
  });

  it('follows: Pending until the Group accepts, then Subscribed, in my_user.follows and the Subscribed list; unfollow sends Undo', async () => {
    const alice = as('alice');
    const pending = await alice.followCommunity({ community_id: newsId, follow: true });
    assert.equal(pending.community_view.subscribed, 'Pending');
    assert.deepEqual(pending.discussion_languages, []);
    const follow = await peer.waitForPost((p) => p.body?.['type'] === 'Follow' && p.body['object'] === peer.actor('news').id);
    const accepted = await peer.signedPost(
      `${s.url}/inbox`,
      { '@context': AS, id: peer.newId('accepts'), type: 'Accept', actor: peer.actor('news').id, object: follow.body },
      { actor: 'news' },
    );
    assert.equal(accepted.status, 202);
    await eventually(async () => assert.equal((await alice.getCommunity({ id: newsId })).community_view.subscribed, 'Subscribed'));
    const site = await alice.getSite();
    assert.deepEqual(
      site.my_user?.follows.map((f) => [f.community.id, f.follower.name]),
      [[newsId, 'alice']],
    );
    const view = (await alice.getCommunity({ id: newsId })).community_view;
    assert.equal(view.counts.subscribers_local, 1);
    assert.ok(view.counts.subscribers >= 1);
    assert.deepEqual(
      (await alice.listCommunities({ type_: 'Subscribed' })).communities.map((c) => c.community.id),
      [newsId],
    );
    // Bob sees the community unfollowed.
    assert.equal((await as('bob').getCommunity({ id: newsId })).community_view.subscribed, 'NotSubscribed');

    const left = await alice.followCommunity({ community_id: newsId, follow: false });
    assert.equal(left.community_view.subscribed, 'NotSubscribed');
    const undo = await peer.waitForPost((p) => p.body?.['type'] === 'Undo');
    assert.equal((undo.body!['object'] as Json).type, 'Follow');
    assert.deepEqual((await alice.getSite()).my_user?.follows, []);
  });

  it('following needs a member (401 not_logged_in) and a known community (404)', async () => {
    assert.equal(await failure(anon.followCommunity({ community_id: newsId, follow: true })), 'not_logged_in');
    const r = await api(s.url, undefined, 'POST', '/api/v3/community/follow', { community_id: newsId, follow: true });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: 'not_logged_in' });
    assert.equal(await failure(as('alice').followCommunity({ community_id: 424_242, follow: true })), 'couldnt_find_community');
    for (const body of [{}, { community_id: 'x', follow: true }, { community_id: newsId }, { community_id: newsId, follow: 'yes' }, [1]]) {
      const bad = await api(s.url, m.token['alice'], 'POST', '/api/v3/community/follow', body);
      assert.equal(bad.status, 400, JSON.stringify(body));
    }
  });

  it('a blocked community shows as blocked, in my_user.community_blocks, and cannot be followed (community_is_blocked)', async () => {
    const group = await api(s.url, m.token['bob'], 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`pets@${peer.host}`)}`);
    assert.equal(group.status, 200, group.text);
    assert.equal((await api(s.url, m.token['bob'], 'POST', `/api/v1/accounts/${group.body.id}/block`)).status, 200);
    const bob = as('bob');
    const pets = (await bob.getCommunity({ name: `pets@${peer.host}` })).community_view;
    assert.equal(pets.blocked, true);
    assert.deepEqual(
      (await bob.getSite()).my_user?.community_blocks.map((b) => [b.person.name, b.community.id]),
      [['bob', pets.community.id]],
    );
    assert.equal(await failure(bob.followCommunity({ community_id: pets.community.id, follow: true })), 'community_is_blocked');
    assert.equal((await bob.getCommunity({ id: pets.community.id })).community_view.subscribed, 'NotSubscribed');
  });
});
