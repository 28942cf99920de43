// People, search and resolve_object through the link-aggregator adapter as lemmy-js-client 0.19.9 sees them,
// against a real server and a peer serving a Group and a Person. Posts and comments are members' statuses filed in
// the community through the store (as the community service files them): what search lists follows the house's
// rules (a private post only for those who may read it, a remote-history row never listed); GET /api/v3/user shows a
// person's posts, comments and counts, local or remote (found by name@host for a member); resolve_object names a
// community, a person or a post by handle or URL, for members only. A property: any search query is a 4xx or a 200.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { LemmyHttp } from 'lemmy-js-client';
import { FollowStore } from '../../src/store/follows.js';
import { LinkAggregatorStore } from '../../src/store/link-aggregator.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { assertLemmyShape } from '../support/lemmy-shapes.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail('the call succeeded');
}

describe('GET /api/v3/user, search and resolve_object', () => {
  let s: TestServer;
  let peer: FakePeer;
  let m: LocalMembers;
  let links: LinkAggregatorStore;
  let anon: LemmyHttp;
  const as = (name: string) => new LemmyHttp(s.url, { fetchFunction: fetch, headers: { Authorization: `Bearer ${m.token[name]}` } });
  let newsId: number;
  const post: Record<string, { id: number; statusId: string; uri: string }> = {};
  let commentId: number;
  let commentUri: string;

  /** A member's status filed as a post of the community, as the community service files it. */
  const filePost = async (who: string, name: string, url: string | null, visibility = 'public') => {
    const st = await api(s.url, m.token[who], 'POST', '/api/v1/statuses', { status: `${name} ${url ?? ''}`, visibility });
    assert.equal(st.status, 200, st.text);
    const rec = await links.recordPost({ statusId: st.body.id, communityId: newsId, name, url, body: `about ${name}`, nsfw: false, published: new Date() });
    return { id: rec.id, statusId: st.body.id as string, uri: st.body.uri as string };
  };

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    m = await createMembers(s, ['alice', 'bob', 'stranger']);
    links = new LinkAggregatorStore(s.app.db);
    anon = new LemmyHttp(s.url, { fetchFunction: fetch });
    await peer.addActor('news', { displayName: 'World News', extra: { type: 'Group' } });
    await peer.addActor('carol', { displayName: 'Carol' });
    newsId = (await as('alice').getCommunity({ name: `!news@${peer.host}` })).community_view.community.id;
    post['open'] = await filePost('alice', 'Pangolins are scaly', 'https://pangolin.example/scales');
    post['private'] = await filePost('alice', 'Pangolins in private', null, 'private');
    post['history'] = await filePost('bob', 'Pangolins of old', null);
    // A remote-history row is readable by id, but no listing may show it.
    await s.app.db.exec('UPDATE statuses SET history = true WHERE id = $1', [post['history'].statusId]);
    const reply = await api(s.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'Pangolin comment here', in_reply_to_id: post['open'].statusId });
    commentId = (await links.recordComment(reply.body.id, post['open'].id, null, 'Pangolin comment here', new Date())).id;
    commentUri = reply.body.uri;
  });
  after(async () => {
    await s?.stop();
    await peer?.stop();
  });

  it('searches posts under the visibility rules: the private one for its author only, the history row never', async () => {
    const ids = async (c: LemmyHttp) => (await c.search({ q: 'pangolin', type_: 'Posts' })).posts.map((p) => p.post.id);
    assert.deepEqual(await ids(anon), [post['open']!.id]);
    assert.deepEqual(await ids(as('stranger')), [post['open']!.id]);
    assert.deepEqual((await ids(as('alice'))).sort(), [post['open']!.id, post['private']!.id].sort());
    const view = (await anon.search({ q: 'scaly', type_: 'Posts' })).posts[0]!;
    assert.equal(view.post.name, 'Pangolins are scaly');
    assert.equal(view.post.url, 'https://pangolin.example/scales');
    assert.equal(view.community.id, newsId);
    assert.equal(view.creator.name, 'alice');
    assert.equal(typeof view.counts.score, 'number');
  });

  it('searches comments, communities, users and exact links; All holds each kind', async () => {
    const comments = await anon.search({ q: 'comment', type_: 'Comments' });
    assert.deepEqual(
      comments.comments.map((c) => [c.comment.id, c.creator.name, c.post.id]),
      [[commentId, 'bob', post['open']!.id]],
    );
    assert.deepEqual(
      (await anon.search({ q: 'news', type_: 'Communities' })).communities.map((c) => c.community.id),
      [newsId],
    );
    const users = (await anon.search({ q: 'alice', type_: 'Users' })).users;
    // Counts are the person's whole record (as Mastodon's statuses_count): the private post too.
    assert.deepEqual(
      users.map((u) => [u.person.name, u.counts.post_count]),
      [['alice', 2]],
    );
    assert.deepEqual(
      (await anon.search({ q: 'https://pangolin.example/scales', type_: 'Url' })).posts.map((p) => p.post.id),
      [post['open']!.id],
    );
    assert.deepEqual((await anon.search({ q: 'https://pangolin.example/', type_: 'Url' })).posts, []);
    const all = await anon.search({ q: 'pangolin' });
    assertLemmyShape('SearchResponse', all);
    assertLemmyShape('SearchResponse', await anon.search({ q: 'a', type_: 'Users' }));
    assertLemmyShape('SearchResponse', await anon.search({ q: 'news', type_: 'Communities' }));
    assert.equal(all.type_, 'All');
    assert.equal(all.posts.length, 1);
    assert.equal(all.comments.length, 1);
    // In one community, by id or by name; an unknown one is 404.
    assert.equal((await anon.search({ q: 'pangolin', community_id: newsId })).posts.length, 1);
    assert.equal((await anon.search({ q: 'pangolin', community_name: `news@${peer.host}` })).posts.length, 1);
    assert.equal(await failure(anon.search({ q: 'pangolin', community_id: 777 })), 'couldnt_find_community');
  });

  it('keeps to the listing type: Local finds nothing (no community lives here), Subscribed only followed communities', async () => {
    const bob = as('bob');
    assert.deepEqual(await bob.search({ q: 'pangolin', listing_type: 'Local' }), { type_: 'All', comments: [], posts: [], communities: [], users: [] });
    assert.deepEqual((await bob.search({ q: 'pangolin', listing_type: 'Subscribed' })).posts, []);
    assert.deepEqual((await anon.search({ q: 'pangolin', listing_type: 'Subscribed' })).posts, []);
    // Bob follows the community (as its Accept leaves it).
    const group = await s.app.db.one<{ id: string }>('SELECT account_id::text AS id FROM lemmy_communities WHERE id = $1', [newsId]);
    await new FollowStore(s.app.db).follow(m.id['bob']!, group!.id, null);
    const subscribed = await bob.search({ q: 'pangolin', listing_type: 'Subscribed' });
    assert.deepEqual(
      subscribed.posts.map((p) => p.post.id),
      [post['open']!.id],
    );
    assert.equal(subscribed.comments.length, 1);
    assert.deepEqual(
      (await bob.search({ q: 'news', type_: 'Communities', listing_type: 'Subscribed' })).communities.map((c) => c.subscribed),
      ['Subscribed'],
    );
    assert.deepEqual((await as('stranger').search({ q: 'news', type_: 'Communities', listing_type: 'Subscribed' })).communities, []);
  });

  it('shows a local person with their posts, comments and counts, by name or id', async () => {
    const d = await anon.getPersonDetails({ username: 'alice' });
    assert.equal(d.person_view.person.name, 'alice');
    assert.equal(d.person_view.is_admin, false);
    // Anonymous: only the public post, and it is counted as filed.
    assert.deepEqual(
      d.posts.map((p) => p.post.id),
      [post['open']!.id],
    );
    assert.equal(typeof d.person_view.counts.comment_count, 'number');
    const byId = await as('alice').getPersonDetails({ person_id: d.person_view.person.id });
    assert.equal(byId.person_view.person.name, 'alice');
    // Lemmy's sorts: New (the default), Old, Top by score.
    const sorted = async (sort?: 'New' | 'Old' | 'TopAll') =>
      (await as('alice').getPersonDetails({ username: 'alice', ...(sort ? { sort } : {}) })).posts.map((p) => p.post.id);
    const [open, hidden] = [post['open']!.id, post['private']!.id];
    assert.deepEqual(await sorted(), [hidden, open]);
    assert.deepEqual(await sorted('New'), [hidden, open]);
    assert.deepEqual(await sorted('Old'), [open, hidden]);
    await links.vote(post['open']!.statusId, m.id['bob']!, 1, null);
    assert.deepEqual(await sorted('TopAll'), [open, hidden]);
    assert.deepEqual(
      (await as('alice').getPersonDetails({ username: 'alice', limit: 1, page: 2 })).posts.map((p) => p.post.id),
      [open],
    );
    const bob = await anon.getPersonDetails({ username: 'bob' });
    assert.deepEqual(
      bob.comments.map((c) => c.comment.id),
      [commentId],
    );
    assert.deepEqual(bob.moderates, []);
    assertLemmyShape('GetPersonDetailsResponse', bob);
    assertLemmyShape('GetPersonDetailsResponse', byId);
    // Saved things are one's own.
    assert.equal((await api(s.url, m.token['alice'], 'POST', `/api/v1/statuses/${post['open']!.statusId}/bookmark`)).status, 200);
    assert.deepEqual(
      (await as('alice').getPersonDetails({ username: 'alice', saved_only: true })).posts.map((p) => p.post.id),
      [post['open']!.id],
    );
    assert.deepEqual((await as('bob').getPersonDetails({ username: 'alice', saved_only: true })).posts, []);
  });

  it('finds a remote person by name@host for a member only; unknown people are 404 couldnt_find_person', async () => {
    const handle = `carol@${peer.host}`;
    assert.equal(await failure(anon.getPersonDetails({ username: handle })), 'couldnt_find_person');
    const d = await as('bob').getPersonDetails({ username: handle });
    assert.equal(d.person_view.person.name, 'carol');
    assert.equal(d.person_view.person.local, false);
    assert.equal(d.person_view.person.actor_id, peer.actor('carol').id);
    assert.equal(d.person_view.person.display_name, 'Carol');
    assertLemmyShape('GetPersonDetailsResponse', d);
    assert.equal((await anon.getPersonDetails({ username: handle })).person_view.person.id, d.person_view.person.id);
    assert.equal(await failure(anon.getPersonDetails({ username: 'nobody' })), 'couldnt_find_person');
    assert.equal(await failure(anon.getPersonDetails({ person_id: 987_654 })), 'couldnt_find_person');
    assert.equal(await failure(anon.getPersonDetails({})), 'no_id_given');
    // A community is no person.
    assert.equal(await failure(anon.getPersonDetails({ username: `news@${peer.host}` })), 'couldnt_find_person');
  });

  it('resolves a community, a person and a post by handle or URL, for members only', async () => {
    assert.equal(await failure(anon.resolveObject({ q: `!news@${peer.host}` })), 'not_logged_in');
    const alice = as('alice');
    assert.equal((await alice.resolveObject({ q: `!news@${peer.host}` })).community?.community.id, newsId);
    assert.equal((await alice.resolveObject({ q: peer.actor('news').id })).community?.community.id, newsId);
    assert.equal((await alice.resolveObject({ q: peer.actor('carol').id })).person?.person.name, 'carol');
    assert.equal((await alice.resolveObject({ q: `carol@${peer.host}` })).person?.person.name, 'carol');
    const found = await alice.resolveObject({ q: post['open']!.uri });
    assert.equal(found.post?.post.id, post['open']!.id);
    assert.equal(found.comment, undefined);
    assertLemmyShape('ResolveObjectResponse', found);
    const comment = await as('stranger').resolveObject({ q: commentUri });
    assert.equal(comment.comment?.comment.id, commentId);
    assert.equal(comment.comment?.post.id, post['open']!.id);
    assert.equal(comment.post, undefined);
    assertLemmyShape('ResolveObjectResponse', comment);
    assertLemmyShape('ResolveObjectResponse', await alice.resolveObject({ q: `!news@${peer.host}` }));
    assertLemmyShape('ResolveObjectResponse', await alice.resolveObject({ q: peer.actor('carol').id }));
    // A private post is not resolved for someone who may not read it.
    assert.equal(await failure(as('stranger').resolveObject({ q: post['private']!.uri })), 'couldnt_find_object');
    assert.equal(await failure(alice.resolveObject({ q: `${peer.url}/nothing/here` })), 'couldnt_find_object');
    assert.equal(await failure(alice.resolveObject({ q: 'no such thing at all' })), 'couldnt_find_object');
  });

  it('shows a community’s moderators, and the communities a person moderates (my_user too)', async () => {
    const carol = (await as('bob').getPersonDetails({ username: `carol@${peer.host}` })).person_view.person;
    await links.setModerators(newsId, [
      (await s.app.db.one<{ id: string }>('SELECT id::text AS id FROM accounts WHERE uri = $1', [carol.actor_id]))!.id,
      m.id['alice']!,
    ]);
    const community = await anon.getCommunity({ id: newsId });
    assertLemmyShape('GetCommunityResponse', community);
    assert.deepEqual(
      community.moderators.map((x) => [x.moderator.name, x.community.id]),
      [
        ['carol', newsId],
        ['alice', newsId],
      ],
    );
    assert.deepEqual(
      (await anon.getPersonDetails({ person_id: carol.id })).moderates.map((x) => [x.community.name, x.moderator.id]),
      [['news', carol.id]],
    );
    const site = await as('alice').getSite();
    assertLemmyShape('GetSiteResponse', site);
    const me = site.my_user!;
    assert.deepEqual(
      me.moderates.map((x) => [x.community.id, x.moderator.name]),
      [[newsId, 'alice']],
    );
    assert.deepEqual(
      (await as('alice').listCommunities({ type_: 'ModeratorView' })).communities.map((c) => c.community.id),
      [newsId],
    );
  });

  it('answers any search query with a 4xx or a 200, never a 5xx (property)', async () => {
    const types = fc.constantFrom(undefined, 'All', 'Comments', 'Posts', 'Communities', 'Users', 'Url', 'Nope');
    const params = fc.record(
      {
        // Handles and URLs only on the loopback peer: resolving must not send the test's requests elsewhere.
        q: fc.oneof(
          fc.string(),
          fc.webPath().map((p) => `${peer.url}${p}`),
          fc.stringMatching(/^[!@]?[a-z]{1,8}$/).map((n) => `${n}@${peer.host}`),
          fc.constantFrom('pangolin', '%', '_', '\\', "'", `!news@${peer.host}`, '@a', ''),
        ),
        type_: types,
        page: fc.oneof(fc.integer({ min: -2, max: 5 }).map(String), fc.string()),
        limit: fc.oneof(fc.integer({ min: -1, max: 60 }).map(String), fc.string()),
        community_id: fc.oneof(fc.integer({ min: 0, max: 2 ** 53 }).map(String), fc.string()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(params, fc.boolean(), async (p, signedIn) => {
        const qs = new URLSearchParams(Object.entries(p).filter((e): e is [string, string] => e[1] !== undefined)).toString();
        for (const path of ['/api/v3/search', '/api/v3/resolve_object', '/api/v3/user', '/api/v3/community']) {
          const r = await api(s.url, signedIn ? m.token['stranger'] : undefined, 'GET', `${path}?${qs}`);
          assert.ok(r.status === 200 || (r.status >= 400 && r.status < 500), `${path}?${qs}: ${r.status} ${r.text}`);
          if (r.status !== 200) assert.equal(typeof (r.body as Json).error, 'string', r.text);
        }
      }),
      { seed: 37, numRuns: 60 },
    );
  });

  it('answers NULs and ids past PostgreSQL integers with 400 or 404, never 422 (property)', async () => {
    const nul = fc.string({ maxLength: 8 }).map((t) => `${t}\u0000${t}`);
    const huge = fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }).map(String);
    const asks = fc.oneof(
      nul.map((v) => `/api/v3/search?q=${encodeURIComponent(v)}`),
      nul.map((v) => `/api/v3/search?q=a&community_name=${encodeURIComponent(v)}`),
      nul.map((v) => `/api/v3/resolve_object?q=${encodeURIComponent(v)}`),
      nul.map((v) => `/api/v3/user?username=${encodeURIComponent(v)}`),
      nul.map((v) => `/api/v3/community?name=${encodeURIComponent(v)}`),
      huge.map((v) => `/api/v3/community?id=${v}`),
      huge.map((v) => `/api/v3/user?person_id=${v}`),
      huge.map((v) => `/api/v3/search?q=a&community_id=${v}`),
      huge.map((v) => `/api/v3/post?id=${v}`),
      huge.map((v) => `/api/v3/comment/list?post_id=${v}`),
      huge.map((v) => `/api/v3/comment/list?parent_id=${v}`),
      huge.map((v) => `/api/v3/post/list?community_id=${v}`),
    );
    await fc.assert(
      fc.asyncProperty(asks, fc.boolean(), async (path, signedIn) => {
        const r = await api(s.url, signedIn ? m.token['stranger'] : undefined, 'GET', path);
        // resolve_object is for members: anonymous, not_logged_in.
        assert.ok(r.status === 400 || r.status === 404 || (r.status === 401 && !signedIn), `${path}: ${r.status} ${r.text}`);
        assert.equal(typeof (r.body as Json).error, 'string', r.text);
      }),
      { seed: 37, numRuns: 80 },
    );
  });

  it('lists nothing of a community the viewer blocks or that is suspended, nor a saved post whose author is', async () => {
    await peer.addActor('quiet', { displayName: 'Quiet', extra: { type: 'Group' } });
    const quiet = (await as('alice').getCommunity({ name: `!quiet@${peer.host}` })).community_view.community.id;
    const st = await api(s.url, m.token['alice'], 'POST', '/api/v1/statuses', { status: 'Armadillo facts' });
    const inQuiet = await links.recordPost({
      statusId: st.body.id,
      communityId: quiet,
      name: 'Armadillo facts',
      url: null,
      body: 'x',
      nsfw: false,
      published: new Date(),
    });
    const found = async (c: LemmyHttp) => (await c.search({ q: 'armadillo', type_: 'Posts' })).posts.map((p) => p.post.id);
    const alicePosts = async () => (await anon.getPersonDetails({ username: 'alice', limit: 50 })).posts.map((p) => p.post.id);
    assert.deepEqual(await found(as('stranger')), [inQuiet.id]);
    const group = (await s.app.db.one<{ id: string }>('SELECT account_id::text AS id FROM lemmy_communities WHERE id = $1', [quiet]))!.id;
    assert.equal((await api(s.url, m.token['stranger'], 'POST', `/api/v1/accounts/${group}/block`)).status, 200);
    assert.deepEqual(await found(as('stranger')), [], 'the blocked community');
    assert.deepEqual(await found(anon), [inQuiet.id]);
    assert.ok((await alicePosts()).includes(inQuiet.id));
    // A saved post whose author is suspended since.
    const bobs = await filePost('bob', 'Armadillo saved', null);
    assert.equal((await api(s.url, m.token['stranger'], 'POST', `/api/v1/statuses/${bobs.statusId}/bookmark`)).status, 200);
    const saved = async () => (await as('stranger').getPersonDetails({ username: 'stranger', saved_only: true })).posts.map((p) => p.post.id);
    assert.deepEqual(await saved(), [bobs.id]);
    await s.app.db.exec('UPDATE accounts SET suspended_at = now() WHERE id = $1', [m.id['bob']]);
    assert.deepEqual(await saved(), []);
    // The suspended community takes its posts out of search and the author's page.
    await s.app.db.exec('UPDATE accounts SET suspended_at = now() WHERE id = $1', [group]);
    assert.deepEqual(await found(anon), []);
    assert.ok(!(await alicePosts()).includes(inQuiet.id));
    assert.ok((await alicePosts()).includes(post['open']!.id));
  });
});
