// Posts and interactions as real servers send them (test/fixtures/activities: Mastodon's Create of a Note and of a
// Question, Announce and Like; Misskey's Create with its quote and custom emoji, and its Like carrying a reaction;
// Akkoma's EmojiReact, Unicode and custom; GoToSocial's Create with single-valued addressing). First what
// note-schema and the reaction reader make of them, then each delivered signed by the hand-written peer, its URLs
// moved onto the peer's origin, and what a member then sees through the client API.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { reactionOf } from '../../src/federation/emoji-reactions.js';
import { noteSchema, visibilityOf, type NoteDoc } from '../../src/federation/note-schema.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/activities/', import.meta.url));
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const SOL = 'https://stoa.example/users/sol';
/** The Stoa post the fixtures' interactions name. */
const SOL_POST = 'https://stoa.example/users/sol/statuses/7241896355120586001';
const ORIGINS = ['https://mastodon.example', 'https://misskey.example', 'https://akkoma.example', 'https://gts.example'];

const fixture = (name: string): Json => JSON.parse(readFileSync(`${FIXTURES}${name}.json`, 'utf8'));
const noteOf = (name: string): NoteDoc => noteSchema.parse(fixture(name).object);

describe('Notes and reactions from real servers, as parsed', () => {
  it("reads Mastodon's Note: mention, hashtag, image, content warning, language", () => {
    const n = noteOf('mastodon-create-note');
    const M = 'https://mastodon.example/users/alder';
    assert.equal(n.attributedTo, M);
    assert.match(n.content, /A grey heron at the pond this morning/);
    assert.equal(n.summary, 'bird photo');
    assert.equal(n.sensitive, true);
    assert.equal(n.language, 'en');
    assert.deepEqual(n.mentions, [SOL]);
    assert.deepEqual(n.hashtags, ['birds']);
    assert.deepEqual(n.attachments, [
      {
        url: 'https://mastodon.example/system/media_attachments/files/112/233/445/566/778/899/original/3f2a1b0c9d8e7f6a.jpeg',
        mediaType: 'image/jpeg',
        description: 'A grey heron standing in shallow water',
        width: 1600,
        height: 1200,
      },
    ]);
    assert.equal(n.url, 'https://mastodon.example/@alder/112233445566778899');
    assert.equal(n.published?.toISOString(), '2024-05-11T18:02:44.000Z');
    assert.equal(n.inReplyTo, null);
    assert.equal(n.quote, null);
    assert.equal(n.poll, null);
    assert.equal(visibilityOf(n, `${M}/followers`), 'public');
  });

  it("reads Mastodon's Question: options with their counts, voters and end", () => {
    const n = noteOf('mastodon-create-question');
    assert.deepEqual(n.poll, { options: ['Tea', 'Coffee'], counts: [2, 1], multiple: false, endTime: new Date('2024-05-13T08:30:00Z'), voters: 3 });
    assert.match(n.content, /Tea or coffee at the hide\?/);
    assert.equal(n.summary, '', 'a null summary is no content warning');
    assert.equal(n.updated?.toISOString(), '2024-05-12T09:14:51.000Z');
  });

  it("reads Misskey's Note: its HTML content (not the MFM source), the quoted post, hashtag and mention", () => {
    const n = noteOf('misskey-create-note');
    assert.match(n.content, /this one, with a heron :blobcat:/);
    assert.match(n.content, /RE: /);
    assert.equal(n.quote, SOL_POST);
    assert.deepEqual(n.mentions, [SOL]);
    assert.deepEqual(n.hashtags, ['herons']);
    assert.equal(n.sensitive, false);
    assert.equal(n.summary, '');
    assert.equal(visibilityOf(n, 'https://misskey.example/users/9mxq3t5b2k/followers'), 'public');
  });

  it("reads GoToSocial's Note, addressed with single values", () => {
    const n = noteOf('gotosocial-create-note');
    assert.deepEqual(n.to, [PUBLIC]);
    assert.deepEqual(n.cc, ['https://gts.example/users/birch/followers', SOL]);
    assert.equal(visibilityOf(n, 'https://gts.example/users/birch/followers'), 'public');
    assert.match(n.content, /the herons are back/);
    assert.deepEqual(n.mentions, [SOL]);
    assert.deepEqual(n.hashtags, ['herons']);
    assert.equal(n.summary, '');
    assert.equal(n.language, 'en');
    assert.equal(n.url, 'https://gts.example/@birch/statuses/01HXZ4K2M8N6P4R2T0V8X6Z4B2');
  });

  it('reads the emoji of Misskey and Akkoma reactions; a plain Mastodon Like carries none', () => {
    assert.deepEqual(reactionOf(fixture('misskey-like-reaction')), {
      name: 'blobcat@misskey.example',
      url: 'https://misskey.example/files/webpublic-6c2f1e0a-4b7d-4c1e-9a3f-2d8b7e5c1a90.png',
    });
    assert.deepEqual(reactionOf(fixture('akkoma-emoji-react')), { name: '🎉', url: null });
    assert.deepEqual(reactionOf(fixture('akkoma-emoji-react-custom')), {
      name: 'blobcat@akkoma.example',
      url: 'https://akkoma.example/emoji/blobs.gg/blobcat.png',
    });
    assert.equal(reactionOf(fixture('mastodon-like')), null);
    // A custom emoji whose image is not given, or a shortcode no server allows, is no reaction we can show.
    assert.equal(reactionOf({ ...fixture('akkoma-emoji-react-custom'), tag: [] }), null);
    assert.equal(reactionOf({ ...fixture('misskey-like-reaction'), content: ':<b>x</b>:', _misskey_reaction: ':<b>x</b>:' }), null);
  });
});

describe('Notes and reactions from real servers, delivered', () => {
  let s: TestServer;
  let peer: FakePeer;
  let sol: string;
  let post: Json; // sol's post the interactions go to
  let other: Json; // and a second one, for Misskey's reaction

  /** The fixture with its servers moved onto the peer's origin and its Stoa post onto `target`. */
  const delivered = (name: string, target: string = post.uri): Json => {
    let text = readFileSync(`${FIXTURES}${name}.json`, 'utf8').replaceAll(SOL_POST, target).replaceAll('https://stoa.example', s.url);
    for (const origin of ORIGINS) text = text.replaceAll(origin, peer.url);
    return JSON.parse(text);
  };
  const send = async (name: string, actor: string, target?: string) => {
    const r = await peer.signedPost(`${s.url}/inbox`, delivered(name, target), { actor });
    assert.equal(r.status, 202, `${name}: ${JSON.stringify(r.body)}`);
  };
  /** The status of sol's notification of this type about the post with this uri, once it is there. */
  const notified = async (type: string, uri: string): Promise<Json> => {
    let found: Json;
    await eventually(async () => {
      found = (await api(s.url, sol, 'GET', `/api/v1/notifications?types[]=${type}`)).body.find((n: Json) => n.status?.uri === uri);
      assert.ok(found, `no ${type} notification about ${uri}`);
    });
    return found;
  };

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    sol = (await createMembers(s, ['sol'])).token['sol']!;
    for (const name of ['alder', '9mxq3t5b2k', 'wren', 'birch']) await peer.addActor(name);
    post = (await api(s.url, sol, 'POST', '/api/v1/statuses', { status: 'herons at dawn' })).body;
    other = (await api(s.url, sol, 'POST', '/api/v1/statuses', { status: 'and at dusk' })).body;
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it("shows Mastodon's post with its content warning, mention, hashtag, image and language", async () => {
    await send('mastodon-create-note', 'alder');
    const { status: n, account } = await notified('mention', `${peer.url}/users/alder/statuses/112233445566778899`);
    assert.equal(account.acct, `alder@${peer.host}`);
    assert.equal(n.account.acct, `alder@${peer.host}`);
    assert.match(n.content, /A grey heron at the pond this morning/);
    assert.equal(n.spoiler_text, 'bird photo');
    assert.equal(n.sensitive, true);
    assert.equal(n.language, 'en');
    assert.equal(n.visibility, 'public');
    assert.equal(n.created_at, '2024-05-11T18:02:44.000Z');
    assert.equal(n.url, `${peer.url}/@alder/112233445566778899`);
    assert.deepEqual(
      n.mentions.map((m: Json) => m.acct),
      ['sol'],
    );
    assert.deepEqual(
      n.tags.map((t: Json) => t.name),
      ['birds'],
    );
    assert.equal(n.media_attachments.length, 1);
    const m = n.media_attachments[0];
    assert.equal(m.type, 'image');
    assert.equal(m.description, 'A grey heron standing in shallow water');
    assert.equal(m.remote_url, `${peer.url}/system/media_attachments/files/112/233/445/566/778/899/original/3f2a1b0c9d8e7f6a.jpeg`);
    assert.ok(m.url.startsWith(`${s.url}/media_proxy/`), m.url);
    assert.deepEqual([m.meta.original.width, m.meta.original.height], [1600, 1200]);
  });

  it("shows Mastodon's poll with the counts its server published", async () => {
    await send('mastodon-create-question', 'alder');
    const { status: n } = await notified('mention', `${peer.url}/users/alder/statuses/112233445566779001`);
    assert.match(n.content, /Tea or coffee at the hide\?/);
    assert.deepEqual(n.poll.options, [
      { title: 'Tea', votes_count: 2 },
      { title: 'Coffee', votes_count: 1 },
    ]);
    assert.equal(n.poll.votes_count, 3);
    assert.equal(n.poll.multiple, false);
    assert.equal(n.poll.expires_at, '2024-05-13T08:30:00.000Z');
    assert.equal(n.poll.expired, true);
  });

  it("shows GoToSocial's post", async () => {
    await send('gotosocial-create-note', 'birch');
    const { status: n } = await notified('mention', `${peer.url}/users/birch/statuses/01HXZ4K2M8N6P4R2T0V8X6Z4B2`);
    assert.equal(n.account.acct, `birch@${peer.host}`);
    assert.match(n.content, /the herons are back/);
    assert.equal(n.visibility, 'public');
    assert.equal(n.spoiler_text, '');
    assert.equal(n.sensitive, false);
    assert.deepEqual(
      n.tags.map((t: Json) => t.name),
      ['herons'],
    );
    assert.deepEqual(
      n.mentions.map((m: Json) => m.acct),
      ['sol'],
    );
  });

  it("shows Misskey's quote of sol's post, and tells sol of it", async () => {
    await send('misskey-create-note', '9mxq3t5b2k');
    const uri = `${peer.url}/notes/9t2a3b4c5d`;
    const { status: n, account } = await notified('quote', uri);
    assert.equal(account.acct, `9mxq3t5b2k@${peer.host}`);
    assert.match(n.content, /this one, with a heron :blobcat:/);
    assert.equal(n.quote.state, 'accepted');
    assert.equal(n.quote.quoted_status.id, post.id);
    assert.deepEqual(
      n.tags.map((t: Json) => t.name),
      ['herons'],
    );
    assert.equal((await notified('mention', uri)).status.id, n.id);
  });

  it("counts Mastodon's Announce as a boost and its Like as a favourite, each notified", async () => {
    await send('mastodon-announce', 'alder');
    await send('mastodon-like', 'alder');
    await eventually(async () => {
      const seen = (await api(s.url, sol, 'GET', `/api/v1/statuses/${post.id}`)).body;
      assert.equal(seen.reblogs_count, 1);
      assert.equal(seen.favourites_count, 1);
    });
    assert.equal((await notified('reblog', post.uri)).account.acct, `alder@${peer.host}`);
    assert.equal((await notified('favourite', post.uri)).account.acct, `alder@${peer.host}`);
    assert.deepEqual(
      (await api(s.url, sol, 'GET', `/api/v1/statuses/${post.id}/reblogged_by`)).body.map((a: Json) => a.acct),
      [`alder@${peer.host}`],
    );
    assert.deepEqual(
      (await api(s.url, sol, 'GET', `/api/v1/statuses/${post.id}/favourited_by`)).body.map((a: Json) => a.acct),
      [`alder@${peer.host}`],
    );
  });

  it("shows Akkoma's reactions, Unicode and custom, and Misskey's custom one, with their images", async () => {
    await send('akkoma-emoji-react', 'wren');
    await send('akkoma-emoji-react-custom', 'wren');
    await send('misskey-like-reaction', '9mxq3t5b2k', other.uri);
    const blobcat = `blobcat@${peer.host}`;
    await eventually(async () => {
      const seen = (await api(s.url, sol, 'GET', `/api/v1/statuses/${post.id}`)).body;
      assert.deepEqual(seen.pleroma.emoji_reactions, [
        { name: '🎉', count: 1, me: false, url: null },
        { name: blobcat, count: 1, me: false, url: `${peer.url}/emoji/blobs.gg/blobcat.png` },
      ]);
      const misskey = (await api(s.url, sol, 'GET', `/api/v1/statuses/${other.id}`)).body;
      assert.deepEqual(misskey.pleroma.emoji_reactions, [
        { name: blobcat, count: 1, me: false, url: `${peer.url}/files/webpublic-6c2f1e0a-4b7d-4c1e-9a3f-2d8b7e5c1a90.png` },
      ]);
      assert.equal(misskey.favourites_count, 0, "Misskey's reaction is not a favourite");
    });
    const who = (await api(s.url, sol, 'GET', `/api/v1/pleroma/statuses/${post.id}/reactions`)).body;
    assert.deepEqual(
      who.map((r: Json) => [r.name, r.accounts.map((a: Json) => a.acct)]),
      [
        ['🎉', [`wren@${peer.host}`]],
        [blobcat, [`wren@${peer.host}`]],
      ],
    );
  });
});
