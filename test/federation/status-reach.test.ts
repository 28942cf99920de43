// A post's reach beyond the author's followers: a server that holds a copy only because one of its members found the
// post (search with resolve) and then boosted, favourited or replied to it is told of the post's edits and of its
// deletion, as Mastodon's StatusReachFinder reaches it. Here nobody on B follows alice on A.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('edits and deletions reach the servers that interacted with a post', () => {
  let a: TestServer;
  let b: TestServer;
  let alice: string;
  let bob: string;

  /** The post as B holds it once bob has looked it up by its URL. */
  const found = async (uri: string): Promise<Json> => {
    const r = await api(b.url, bob, 'GET', `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(uri)}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.statuses.length, 1);
    return r.body.statuses[0];
  };
  const onB = (id: string) => api(b.url, bob, 'GET', `/api/v1/statuses/${id}`);

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [alice, bob] = await Promise.all([createMembers(a, ['alice']).then((m) => m.token['alice']!), createMembers(b, ['bob']).then((m) => m.token['bob']!)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('edits reach a server whose member favourited the post, and a deletion one whose member boosted it', async () => {
    const liked = (await api(a.url, alice, 'POST', '/api/v1/statuses', { status: 'first words' })).body;
    const likedOnB = await found(liked.uri);
    assert.equal((await api(b.url, bob, 'POST', `/api/v1/statuses/${likedOnB.id}/favourite`)).status, 200);
    await eventually(async () => assert.equal((await api(a.url, alice, 'GET', `/api/v1/statuses/${liked.id}`)).body.favourites_count, 1));
    assert.equal((await api(a.url, alice, 'PUT', `/api/v1/statuses/${liked.id}`, { status: 'better words' })).status, 200);
    await eventually(async () => assert.equal((await onB(likedOnB.id)).body.content, '<p>better words</p>'));

    const boosted = (await api(a.url, alice, 'POST', '/api/v1/statuses', { status: 'boost me' })).body;
    const boostedOnB = await found(boosted.uri);
    assert.equal((await api(b.url, bob, 'POST', `/api/v1/statuses/${boostedOnB.id}/reblog`)).status, 200);
    await eventually(async () => assert.equal((await api(a.url, alice, 'GET', `/api/v1/statuses/${boosted.id}`)).body.reblogs_count, 1));
    assert.equal((await api(a.url, alice, 'DELETE', `/api/v1/statuses/${boosted.id}`)).status, 200);
    await eventually(async () => assert.equal((await onB(boostedOnB.id)).status, 404));
  });

  it('a deletion reaches a server whose member replied', async () => {
    const post = (await api(a.url, alice, 'POST', '/api/v1/statuses', { status: 'reply to me' })).body;
    const postOnB = await found(post.uri);
    const reply = await api(b.url, bob, 'POST', '/api/v1/statuses', { status: 'a reply', in_reply_to_id: postOnB.id });
    assert.equal(reply.status, 200, reply.text);
    await eventually(async () => assert.equal((await api(a.url, alice, 'GET', `/api/v1/statuses/${post.id}`)).body.replies_count, 1));
    await api(a.url, alice, 'DELETE', `/api/v1/statuses/${post.id}`);
    await eventually(async () => assert.equal((await onB(postOnB.id)).status, 404));
  });
});
