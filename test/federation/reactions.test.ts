// Emoji reactions: a member reacts through Pleroma's API and the author's server (another Stoa) shows the
// reaction; taking it back removes it there too. Reactions from Misskey-style servers (Like with an emoji) and
// Akkoma-style ones (EmojiReact) are shown, and their Undo removes them. Custom emoji (`:blobcat:` with an Emoji tag
// carrying its image) are shown as Akkoma shows them (`blobcat@host`, with `url`), and a member may react with one
// someone already used on the status. Otherwise only single Unicode emoji are accepted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers } from '../support/members.js';
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
    assert.deepEqual(reacted.body.pleroma.emoji_reactions, [{ name: '🎉', count: 1, me: true, url: null }]);
    await eventually(async () => {
      const there = (await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body;
      assert.deepEqual(there.pleroma.emoji_reactions, [{ name: '🎉', count: 1, me: false, url: null }]);
    });
    const who = (await api(a.url, undefined, 'GET', `/api/v1/pleroma/statuses/${post.id}/reactions`)).body;
    assert.deepEqual(
      who.map((r: Json) => [r.name, r.accounts.map((x: Json) => x.acct)]),
      [['🎉', [`admin@${new URL(b.url).host}`]]],
    );
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

  it('shows custom emoji reactions with their image, lets a member use one, and sends it as Akkoma does', async () => {
    await Promise.all([peer.addActor('wren'), peer.addActor('mira')]);
    const mika = peer.actor('mika');
    const wren = peer.actor('wren');
    const image = `${peer.url}/files/webpublic-blobcat.png`;
    const emojiTag = (name: string) => ({
      id: `${peer.url}/emojis/blobcat`,
      type: 'Emoji',
      name,
      updated: '2024-01-01T00:00:00.000Z',
      icon: { type: 'Image', mediaType: 'image/png', url: image },
    });
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'custom emoji, please' })).body;
    // Misskey: a Like carrying the reaction; Akkoma: an EmojiReact whose tag names the emoji without colons.
    const like = {
      '@context': AS,
      id: peer.newId('likes'),
      type: 'Like',
      actor: mika.id,
      object: post.uri,
      content: ':blobcat:',
      _misskey_reaction: ':blobcat:',
      tag: [emojiTag(':blobcat:')],
    };
    const react = {
      '@context': AS,
      id: peer.newId('reacts'),
      type: 'EmojiReact',
      actor: wren.id,
      object: post.uri,
      content: ':blobcat:',
      tag: [emojiTag('blobcat')],
    };
    // Without its image a custom emoji cannot be shown: this EmojiReact is dropped.
    const bare = {
      '@context': AS,
      id: peer.newId('reacts'),
      type: 'EmojiReact',
      actor: peer.actor('mira').id,
      object: post.uri,
      content: ':blobfox:',
      tag: [],
    };
    for (const [activity, actor] of [
      [like, 'mika'],
      [react, 'wren'],
      [bare, 'mira'],
    ] as const) {
      assert.equal((await peer.signedPost(`${a.url}/inbox`, activity, { actor })).status, 202);
    }
    const name = `blobcat@${peer.host}`;
    await eventually(async () => {
      const seen = (await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body;
      assert.deepEqual(seen.pleroma.emoji_reactions, [{ name, count: 2, me: false, url: image }]);
    });
    assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.favourites_count, 0);
    const who = (await api(a.url, undefined, 'GET', `/api/v1/pleroma/statuses/${post.id}/reactions/${encodeURIComponent(name)}`)).body;
    assert.deepEqual(
      who.map((r: Json) => [r.name, r.url, r.accounts.map((x: Json) => x.acct).sort()]),
      [[name, image, [`mika@${peer.host}`, `wren@${peer.host}`]]],
    );

    // The admin reacts with the same emoji, written the Akkoma way (colons, name@domain).
    const mine = await api(a.url, tokenA, 'PUT', path(post.id, `:${name}:`));
    assert.equal(mine.status, 200, mine.text);
    assert.deepEqual(mine.body.pleroma.emoji_reactions, [{ name, count: 3, me: true, url: image }]);
    for (const unknown of [':blobcat:', 'blobcat@elsewhere.example', ':blobfox@' + peer.host + ':']) {
      const r = await api(a.url, tokenA, 'PUT', path(post.id, unknown));
      assert.equal(r.status, 422, unknown);
      assert.equal(typeof r.body.error, 'string');
    }
    assert.deepEqual((await api(a.url, tokenA, 'DELETE', path(post.id, name))).body.pleroma.emoji_reactions, [{ name, count: 2, me: false, url: image }]);
    const undo = { '@context': AS, id: peer.newId('undos'), type: 'Undo', actor: mika.id, object: { ...like, '@context': undefined } };
    assert.equal((await peer.signedPost(`${a.url}/inbox`, undo, { actor: 'mika' })).status, 202);
    await eventually(async () =>
      assert.deepEqual((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${post.id}`)).body.pleroma.emoji_reactions, [
        { name, count: 1, me: false, url: image },
      ]),
    );

    // On a remote post, the admin's custom reaction goes to its author as an EmojiReact with the Emoji tag.
    const note = {
      id: peer.newId('notes'),
      type: 'Note',
      attributedTo: mika.id,
      to: [`${AS}#Public`],
      cc: [`${a.url}/users/admin`],
      content: '<p>hi admin</p>',
      tag: [{ type: 'Mention', href: `${a.url}/users/admin` }],
    };
    assert.equal(
      (await peer.signedPost(`${a.url}/inbox`, { '@context': AS, id: `${note.id}/activity`, type: 'Create', actor: mika.id, object: note }, { actor: 'mika' }))
        .status,
      202,
    );
    let remote: Json;
    await eventually(async () => {
      remote = (await api(a.url, tokenA, 'GET', '/api/v1/notifications?types[]=mention')).body.find((n: Json) => n.status.uri === note.id)?.status;
      assert.ok(remote);
    });
    assert.equal((await peer.signedPost(`${a.url}/inbox`, { ...react, id: peer.newId('reacts'), object: note.id }, { actor: 'wren' })).status, 202);
    await eventually(async () => assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${remote.id}`)).body.pleroma.emoji_reactions.length, 1));
    assert.equal((await api(a.url, tokenA, 'PUT', path(remote.id, name))).status, 200);
    const sent = await peer.waitForPost((r) => r.path === '/users/mika/inbox' && r.body?.['type'] === 'EmojiReact');
    assert.equal(sent.body!['object'], note.id);
    assert.equal(sent.body!['content'], ':blobcat:');
    assert.deepEqual(sent.body!['tag'], [{ id: image, type: 'Emoji', name: ':blobcat:', icon: { type: 'Image', url: image } }]);
    await api(a.url, tokenA, 'DELETE', path(remote.id, name));
    const undone = await peer.waitForPost((r) => r.path === '/users/mika/inbox' && r.body?.['type'] === 'Undo');
    assert.deepEqual((undone.body!['object'] as Json).tag, sent.body!['tag']);
    assert.equal((undone.body!['object'] as Json).id, sent.body!['id']);
  });

  it("leaves out of a member's view the reactions of accounts they block or mute, in the list and in the status", async () => {
    const m = await createMembers(a, ['rue', 'sol', 'tam']);
    const post = (await api(a.url, m.token['rue'], 'POST', '/api/v1/statuses', { status: 'react away' })).body;
    for (const who of ['sol', 'tam']) assert.equal((await api(a.url, m.token[who], 'PUT', path(post.id, '🎉'))).status, 200);
    assert.equal((await api(a.url, m.token['tam'], 'PUT', path(post.id, '🌊'))).status, 200);
    const seen = async (token: string | undefined) => {
      const list = (await api(a.url, token, 'GET', `/api/v1/pleroma/statuses/${post.id}/reactions`)).body;
      const shown = (await api(a.url, token, 'GET', `/api/v1/statuses/${post.id}`)).body.pleroma.emoji_reactions;
      assert.deepEqual(
        shown.map((r: Json) => [r.name, r.count]),
        list.map((r: Json) => [r.name, r.count]),
        'the status shows what the list does',
      );
      return list.map((r: Json) => [r.name, r.count, r.accounts.map((x: Json) => x.username)]);
    };
    assert.deepEqual(await seen(m.token['rue']), [
      ['🎉', 2, ['sol', 'tam']],
      ['🌊', 1, ['tam']],
    ]);
    assert.equal((await api(a.url, m.token['rue'], 'POST', `/api/v1/accounts/${m.id['tam']}/mute`)).status, 200);
    assert.deepEqual(await seen(m.token['rue']), [['🎉', 1, ['sol']]], 'a muted account: gone, and an emoji only it used');
    assert.equal((await api(a.url, m.token['sol'], 'POST', `/api/v1/accounts/${m.id['rue']}/block`)).status, 200);
    assert.deepEqual(await seen(m.token['rue']), [], 'an account that blocks the viewer');
    assert.deepEqual(
      await seen(undefined),
      [
        ['🎉', 2, ['sol', 'tam']],
        ['🌊', 1, ['tam']],
      ],
      'anonymous readers see all',
    );
  });

  it('accepts only one Unicode emoji per reaction', async () => {
    const post = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'validation' })).body;
    for (const bad of ['abc', ':blobcat:', '🎉🎉', ' ', '%']) assert.equal((await api(a.url, tokenA, 'PUT', path(post.id, bad))).status, 422, bad);
    for (const good of ['👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '1️⃣']) assert.equal((await api(a.url, tokenA, 'PUT', path(post.id, good))).status, 200, good);
    assert.equal((await api(a.url, undefined, 'PUT', path(post.id, '👍'))).status, 401);
  });
});
