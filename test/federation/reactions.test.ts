// Emoji reactions: a member reacts through Pleroma's API and the author's server (another Stoa) shows the
// reaction; taking it back removes it there too. Reactions from Misskey-style servers (Like with an emoji) and
// Akkoma-style ones (EmojiReact) are shown, and their Undo removes them. Only single Unicode emoji are accepted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const path = (id: string, emoji: string) => `/api/v1/pleroma/statuses/${id}/reactions/${encodeURIComponent(emoji)}`;

describe('emoji reactions', () => {
  let a: TestServer;
  let b: TestServer;
  let peer: FakePeer;
  let tokenA: string;
  let tokenB: string;

  before(async () => {
    [a, b, peer] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV), startFakeActorPeer()]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    await peer.addActor('mika');
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop(), peer?.stop()]);
  });

  it("shows a remote member's reaction on the author's server, and removes it when taken back", async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'react to me' })).body;
    const found = await api(b.url, tokenB, 'GET', `/api/v2/search?${new URLSearchParams({ q: post.uri, resolve: 'true' })}`);
    const onB = found.body.statuses[0];
    const reacted = await api(b.url, tokenB, 'PUT', path(onB.id, '🎉'));
    assert.equal(reacted.status, 200, reacted.text);
    assert.deepEqual(reacted.body.pleroma.emoji_reactions, [{ name: '🎉', count: 1, me: true }]);
    await eventually(async () => {
      const there = (await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body;
      assert.deepEqual(there.pleroma.emoji_reactions, [{ name: '🎉', count: 1, me: false }]);
    });
    const who = (await api(a.url, undefined, 'GET', `/api/v1/pleroma/statuses/${post.id}/reactions`)).body;
    assert.deepEqual(who.map((r: Json) => [r.name, r.accounts.map((x: Json) => x.acct)]), [['🎉', [`admin@${new URL(b.url).host}`]]]);
    assert.equal((await api(b.url, tokenB, 'DELETE', path(onB.id, '🎉'))).body.pleroma.emoji_reactions.length, 0);
    await eventually(async () => assert.deepEqual((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.pleroma.emoji_reactions, []));
  });

  it('stores reactions sent as a Like with an emoji or as EmojiReact, and undoes them', async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'from elsewhere' })).body;
    const mika = peer.actor('mika');
    const like = { '@context': AS, id: peer.newId('likes'), type: 'Like', actor: mika.id, object: post.uri, content: '👍', _misskey_reaction: '👍' };
    const react = { '@context': AS, id: peer.newId('reacts'), type: 'EmojiReact', actor: mika.id, object: post.uri, content: '❤️' };
    for (const activity of [like, react]) assert.equal((await peer.signedPost(`${a.url}/inbox`, activity, { actor: 'mika' })).status, 202);
    await eventually(async () => {
      const names = (await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.pleroma.emoji_reactions.map((r: Json) => r.name).sort();
      assert.deepEqual(names, ['❤️', '👍'].sort());
    });
    assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.favourites_count, 0, 'a reaction is not a favourite');
    for (const inner of [like, react]) {
      const undo = { '@context': AS, id: peer.newId('undos'), type: 'Undo', actor: mika.id, object: { ...inner, '@context': undefined } };
      assert.equal((await peer.signedPost(`${a.url}/inbox`, undo, { actor: 'mika' })).status, 202);
    }
    await eventually(async () => assert.deepEqual((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.pleroma.emoji_reactions, []));
  });

  it('accepts only one Unicode emoji per reaction', async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'validation' })).body;
    for (const bad of ['abc', ':blobcat:', '🎉🎉', ' ', '%']) assert.equal((await api(a.url, tokenA, 'PUT', path(post.id, bad))).status, 422, bad);
    for (const good of ['👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '1️⃣']) assert.equal((await api(a.url, tokenA, 'PUT', path(post.id, good))).status, 200, good);
    assert.equal((await api(a.url, undefined, 'PUT', path(post.id, '👍'))).status, 401);
  });
});
