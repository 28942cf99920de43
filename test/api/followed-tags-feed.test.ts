// A followed hashtag's public posts reach the follower's home, as Mastodon's
// FanOutOnWriteService#deliver_to_hashtag_followers!: local and remote public posts by strangers (not unlisted,
// private or direct ones, not boosts themselves), in the home timeline and on the `user` stream, except from an
// author the follower blocks or mutes, mentioning someone they block or mute, or where a filter hides it. The
// materialised feed (home_feeds) and the pull query agree throughout (store/timelines.ts homeFromFeed, homePulled).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TimelineStore } from '../../src/store/timelines.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { everyPage, HistoryFixture, type RemotePost } from '../support/history-posts.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

describe('followed hashtags in the home feed', () => {
  let s: TestServer;
  let peer: FakePeer;
  let fx: HistoryFixture;
  let m: LocalMembers;
  let stream: WsClient;
  let n = 0;

  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const post = async (who: string, status: string, visibility = 'public'): Promise<string> =>
    (await ok(who, 'POST', '/api/v1/statuses', { status, visibility })).id;
  const home = async (who = 'alice'): Promise<string[]> => (await everyPage(s.url, m.token[who], '/api/v1/timelines/home')).map((x: Json) => x.id);
  const remote = (over: Partial<RemotePost> = {}): RemotePost => ({
    uri: peer.newId('notes'),
    actor: 'rem',
    visibility: 'public',
    text: `from afar ${++n} #cats`,
    tags: ['cats'],
    mentions: [],
    inReplyTo: null,
    published: new Date(),
    ...over,
  });
  /** The feed and the pull query give alice the same pages: newest, and paged down by max_id. */
  const feedEqualsPull = async () => {
    const t = new TimelineStore(s.app.db);
    const fed = await t.homeFromFeed(m.id['alice']!, { limit: 40 });
    const pulled = await t.homePulled(m.id['alice']!, { limit: 40 });
    assert.ok(fed, 'the feed answers for the first page');
    assert.deepEqual(
      fed.map((x) => x.id),
      pulled.map((x) => x.id),
    );
  };
  /** alice's user stream has shown the status. */
  const streamed = (id: string) => framesOf(stream.frames, 'update').some((f) => f.payload.id === id && f.stream!.join() === 'user');

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    fx = new HistoryFixture(s, peer);
    m = await createMembers(s, ['alice', 'bob', 'carol', 'dave', 'erin', 'ben']);
    await peer.addActor('rem');
    // ben follows rem, so rem's deliveries concern this server; alice follows only the tag.
    await fx.follow(m.token['ben']!, 'ben', 'rem');
    await ok('alice', 'POST', '/api/v1/tags/cats/follow');
    await ok('alice', 'POST', `/api/v1/accounts/${m.id['carol']}/block`);
    await ok('alice', 'POST', `/api/v1/accounts/${m.id['dave']}/mute`);
    await ok('alice', 'POST', '/api/v2/filters', {
      title: 'No spoilers',
      context: ['home'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'spoiler' }],
    });
    stream = await openWs(s.url, m.token['alice'], 'stream=user');
    await subscribed(s, m.id['alice']!, 'user');
  });
  after(async () => {
    stream?.ws.terminate();
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it("brings a stranger's public post with the tag into home and onto the user stream; not unlisted, private, direct or boosts", async () => {
    const unlisted = await post('bob', 'quiet #cats', 'unlisted');
    const priv = await post('bob', 'friends only #cats', 'private');
    const direct = await post('bob', '@erin just you #cats', 'direct');
    const untagged = await post('bob', 'no tag here');
    const other = await post('bob', 'other tag #dogs');
    const shown = await post('bob', 'hello #Cats');
    const boost = (await ok('erin', 'POST', `/api/v1/statuses/${shown}/reblog`)).id as string;
    await eventually(() => assert.ok(streamed(shown), 'on the user stream'));
    const mine = await home();
    assert.ok(mine.includes(shown), 'in home');
    for (const [what, id] of Object.entries({ unlisted, priv, direct, untagged, other, boost })) {
      assert.ok(!mine.includes(id), `${what} stays out of home`);
      assert.ok(!streamed(id), `${what} stays off the stream`);
    }
    await feedEqualsPull();
  });

  it("leaves out a blocked or muted author's post and one a filter hides", async () => {
    const blocked = await post('carol', 'blocked #cats');
    const muted = await post('dave', 'muted #cats');
    const filtered = await post('erin', 'a spoiler #cats');
    // As Mastodon's FeedManager#filter_from_tags?: a post mentioning someone alice blocks or mutes.
    const mentionsBlocked = await post('erin', '@carol look #cats');
    const mentionsMuted = await post('erin', '@dave look #cats');
    const canary = await post('erin', 'canary #cats');
    await eventually(() => assert.ok(streamed(canary)));
    const mine = await home();
    for (const [what, id] of Object.entries({ blocked, muted, filtered, mentionsBlocked, mentionsMuted })) {
      assert.ok(!mine.includes(id), `${what} stays out of home`);
      assert.ok(!streamed(id), `${what} stays off the stream`);
    }
    await feedEqualsPull();
  });

  it('brings a remote public post with the tag (delivered because someone here follows its author), not an unlisted one', async () => {
    const unlisted = await fx.deliverCreate(remote({ visibility: 'unlisted' }));
    const shown = await fx.deliverCreate(remote());
    await eventually(() => assert.ok(streamed(shown), 'on the user stream'));
    const mine = await home();
    assert.ok(mine.includes(shown), 'in home');
    assert.ok(!mine.includes(unlisted), 'an unlisted remote post stays out');
    assert.ok(!streamed(unlisted));
    assert.ok((await home('ben')).includes(shown), "in the author's follower's home as ever");
    await feedEqualsPull();
  });

  it('brings a remote history post in when a delivery promotes it', async () => {
    const p = remote();
    const remId = await fx.accountId(m.token['ben']!, 'rem');
    const id = await fx.storeHistory(p, remId, m.id);
    assert.ok(!(await home()).includes(id), 'a history post is listed nowhere');
    await fx.deliverCreate(p);
    await eventually(async () => assert.ok((await home()).includes(id)));
    await feedEqualsPull();
  });

  it("takes the tag's posts out on unfollow, and a new follow brings its earlier posts in", async () => {
    const before = await post('bob', 'before the follow #birds');
    assert.ok(!(await home()).includes(before));
    await ok('alice', 'POST', '/api/v1/tags/birds/follow');
    assert.ok((await home()).includes(before), 'an earlier post of a newly followed tag');
    await feedEqualsPull();
    const catPosts = (await everyPage(s.url, undefined, '/api/v1/timelines/tag/cats')).map((x: Json) => x.id);
    await ok('alice', 'POST', '/api/v1/tags/cats/unfollow');
    const mine = await home();
    assert.deepEqual(
      catPosts.filter((id: string) => mine.includes(id)),
      [],
      'no #cats post by a stranger once unfollowed',
    );
    await feedEqualsPull();
  });

  it('tells the stream of a deleted post that came by a followed tag', async () => {
    const id = await post('bob', 'soon gone #birds');
    await eventually(() => assert.ok(streamed(id)));
    await ok('bob', 'DELETE', `/api/v1/statuses/${id}`);
    await eventually(() => assert.ok(framesOf(stream.frames, 'delete').some((f) => String(f.payload) === id && f.stream!.join() === 'user')));
  });
});
