// Favourites and boosts between two Stoa servers: a favourite reaches the author's server as a Like and is
// counted there, an unfavourite takes it back; a boost reaches the booster's followers (who see it in their home
// with the boosted post inside) and the author's server (where it is counted); unboosting removes it on both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('favourites and boosts between two Stoa servers', () => {
  let a: TestServer; // the author
  let b: TestServer; // follows A's admin and interacts
  let c: TestServer; // follows B's admin: sees B's boosts
  let tokenA: string;
  let tokenB: string;
  let tokenC: string;

  const follow = async (from: TestServer, token: string, to: TestServer) => {
    const found = await api(from.url, token, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(to.url).host}`);
    assert.equal((await api(from.url, token, 'POST', `/api/v1/accounts/${found.body.id}/follow`)).status, 200);
    await eventually(async () =>
      assert.equal((await api(from.url, token, 'GET', `/api/v1/accounts/relationships?id[]=${found.body.id}`)).body[0].following, true),
    );
  };
  /** The post as B holds it (after delivery). */
  const onB = async (uri: string): Promise<Json> => {
    let found: Json;
    await eventually(async () => {
      found = (await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.uri === uri);
      assert.ok(found);
    });
    return found;
  };

  before(async () => {
    [a, b, c] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [tokenA, tokenB, tokenC] = await Promise.all([adminToken(a), adminToken(b), adminToken(c)]);
    await follow(b, tokenB, a);
    await follow(c, tokenC, b);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
  });

  it("a favourite is counted on the author's server, and an unfavourite takes it back", async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'like me' })).body;
    const remote = await onB(post.uri);
    const fav = await api(b.url, tokenB, 'POST', `/api/v1/statuses/${remote.id}/favourite`);
    assert.equal(fav.status, 200);
    assert.equal(fav.body.favourited, true);
    assert.equal(fav.body.favourites_count, 1);
    await eventually(async () => assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.favourites_count, 1));
    const by = await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}/favourited_by`);
    assert.deepEqual(
      by.body.map((x: Json) => x.acct),
      [`admin@${new URL(b.url).host}`],
    );
    assert.deepEqual(
      (await api(b.url, tokenB, 'GET', '/api/v1/favourites')).body.map((x: Json) => x.uri),
      [post.uri],
    );
    const favNote = (await api(a.url, tokenA, 'GET', '/api/v1/notifications?types[]=favourite')).body.find((n: Json) => n.status.id === post.id);
    assert.equal(favNote.account.acct, `admin@${new URL(b.url).host}`);
    const unfav = await api(b.url, tokenB, 'POST', `/api/v1/statuses/${remote.id}/unfavourite`);
    assert.equal(unfav.body.favourited, false);
    await eventually(async () => assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.favourites_count, 0));
    assert.ok(!(await api(a.url, tokenA, 'GET', '/api/v1/notifications?types[]=favourite')).body.some((n: Json) => n.status.id === post.id));
  });

  it("a boost reaches the booster's followers with the post inside, is counted by the author, and can be undone", async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'boost me' })).body;
    const remote = await onB(post.uri);
    const boost = await api(b.url, tokenB, 'POST', `/api/v1/statuses/${remote.id}/reblog`);
    assert.equal(boost.status, 200);
    assert.equal(boost.body.reblog.uri, post.uri);
    assert.equal(boost.body.reblog.reblogged, true);
    // C follows B, not A: the boost brings A's post into C's home.
    let onC: Json;
    await eventually(async () => {
      onC = (await api(c.url, tokenC, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.reblog?.uri === post.uri);
      assert.ok(onC);
    });
    assert.equal(onC.account.acct, `admin@${new URL(b.url).host}`);
    assert.equal(onC.reblog.account.acct, `admin@${new URL(a.url).host}`);
    assert.match(onC.reblog.content, /boost me/);
    await eventually(async () => assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.reblogs_count, 1));
    assert.ok((await api(a.url, tokenA, 'GET', '/api/v1/notifications?types[]=reblog')).body.some((n: Json) => n.status.id === post.id));
    assert.equal((await api(b.url, tokenB, 'POST', `/api/v1/statuses/${remote.id}/unreblog`)).body.reblogged, false);
    await eventually(async () => assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.reblogs_count, 0));
    await eventually(async () => assert.ok(!(await api(c.url, tokenC, 'GET', '/api/v1/timelines/home')).body.some((x: Json) => x.reblog?.uri === post.uri)));
  });

  it('followers-only posts cannot be boosted', async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'only followers', visibility: 'private' })).body;
    const remote = await onB(post.uri);
    const r = await api(b.url, tokenB, 'POST', `/api/v1/statuses/${remote.id}/reblog`);
    assert.equal(r.status, 403);
    assert.equal(typeof r.body.error, 'string');
  });

  it("its author may boost a followers-only post, to the same followers only, here and on the followers' servers", async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'for my followers, again', visibility: 'private' })).body;
    await onB(post.uri);
    const boosted = await api(a.url, tokenA, 'POST', `/api/v1/statuses/${post.id}/reblog`, { visibility: 'public' });
    assert.equal(boosted.status, 200, JSON.stringify(boosted.body));
    assert.equal(boosted.body.visibility, 'private', "the post's own audience, whatever was asked");
    assert.equal(boosted.body.reblog.id, post.id);
    assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.reblogged, true);
    // Not shown to a member who does not follow the author, here nor on B.
    const adminOnA = (await api(a.url, tokenA, 'GET', '/api/v1/accounts/verify_credentials')).body.id;
    const [ned, bea] = await Promise.all([createMembers(a, ['ned']).then((m) => m.token['ned']!), createMembers(b, ['bea']).then((m) => m.token['bea']!)]);
    assert.ok((await api(a.url, ned, 'GET', `/api/v1/accounts/${adminOnA}/statuses`)).body.length > 0, 'ned sees the public posts');
    assert.ok(!(await api(a.url, ned, 'GET', `/api/v1/accounts/${adminOnA}/statuses`)).body.some((x: Json) => x.id === boosted.body.id || x.id === post.id));
    assert.equal((await api(a.url, ned, 'GET', `/api/v1/statuses/${boosted.body.id}`)).status, 404);
    // A follower on B gets it in home, as a boost of the post B already holds.
    let boostOnB: Json;
    await eventually(async () => {
      boostOnB = (await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.reblog?.uri === post.uri);
      assert.ok(boostOnB, 'the boost reached the follower');
    });
    assert.equal(boostOnB.visibility, 'private');
    assert.equal((await api(b.url, bea, 'GET', `/api/v1/statuses/${boostOnB.id}`)).status, 404, 'bea on B does not follow the author');
    await api(a.url, tokenA, 'POST', `/api/v1/statuses/${post.id}/unreblog`);
    await eventually(async () => assert.ok(!(await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.some((x: Json) => x.reblog?.uri === post.uri)));
  });
});
