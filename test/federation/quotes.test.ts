// Quote posts: a member quotes a public post (quoted_status_id); the status shows the quoted one (Mastodon 4.5's
// quote entity), or why it cannot (deleted); followers-only posts cannot be quoted; the quote federates under the
// names other servers read (quote, _misskey_quote, quoteUri, quoteUrl), and the other side shows it quoted. The
// quoted post's author is told (a `quote` notification), also when on another server that follows nobody involved;
// a quote from another server is read from any one of those four names.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('quote posts', () => {
  let a: TestServer;
  let b: TestServer;
  let tokenA: string;
  let tokenB: string;
  let peer: FakePeer;

  before(async () => {
    [a, b, peer] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV), startFakeActorPeer()]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    const aOnB = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(a.url).host}`)).body.id;
    await api(b.url, tokenB, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    await eventually(async () => assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`)).body[0].following, true));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop(), peer?.stop()]);
  });

  it('shows the quoted post, and says when it has been deleted', async () => {
    const original = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'worth quoting' })).body;
    const quoting = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'so true', quoted_status_id: original.id });
    assert.equal(quoting.status, 200, quoting.text);
    assert.equal(quoting.body.quote.state, 'accepted');
    assert.equal(quoting.body.quote.quoted_status.id, original.id);
    assert.deepEqual((await api(a.url, tokenA, 'GET', '/api/v1/notifications?types[]=quote')).body, [], 'quoting oneself tells nobody');
    await api(a.url, tokenA, 'DELETE', `/api/v1/statuses/${original.id}`);
    const after = (await api(a.url, undefined, 'GET', `/api/v1/statuses/${quoting.body.id}`)).body;
    assert.deepEqual(after.quote, { state: 'deleted', quoted_status: null });
  });

  it('tells a member of the same server that their post was quoted, with the quoting post', async () => {
    const quinn = (await createMembers(a, ['quinn'])).token['quinn']!;
    const original = (await api(a.url, quinn, 'POST', '/api/v1/statuses', { status: 'mine to be quoted' })).body;
    const quoting = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'quoting quinn', quoted_status_id: original.id })).body;
    const told = (await api(a.url, quinn, 'GET', '/api/v1/notifications')).body;
    assert.deepEqual(
      told.map((n: Json) => [n.type, n.account.username, n.status.id, n.status.quote.quoted_status.id]),
      [['quote', 'admin', quoting.id, original.id]],
    );
    // quotes_count counts public and unlisted quotes still there (a followers-only quote is not counted, as a
    // followers-only reply is not in replies_count).
    await api(a.url, quinn, 'POST', '/api/v1/statuses', { status: 'quoting myself, unlisted', visibility: 'unlisted', quoted_status_id: original.id });
    await api(a.url, quinn, 'POST', '/api/v1/statuses', { status: 'for followers', visibility: 'private', quoted_status_id: original.id });
    const counted = async () => (await api(a.url, undefined, 'GET', `/api/v1/statuses/${original.id}`)).body.quotes_count;
    assert.equal(await counted(), 2);
    await api(a.url, tokenA, 'DELETE', `/api/v1/statuses/${quoting.id}`);
    assert.equal(await counted(), 1);
  });

  it('refuses to quote followers-only posts and unknown ones', async () => {
    const priv = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'followers only', visibility: 'private' })).body;
    assert.equal((await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'x', quoted_status_id: priv.id })).status, 403);
    assert.equal((await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'x', quoted_status_id: '999999' })).status, 404);
  });

  it('federates the quote: the other server shows it quoting the post it already holds', async () => {
    const original = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'first, on A' })).body;
    const quoting = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'quoting myself', quoted_status_id: original.id })).body;
    const note = (await (await fetch(quoting.uri, { headers: { Accept: 'application/activity+json' } })).json()) as Json;
    for (const key of ['quote', '_misskey_quote', 'quoteUri', 'quoteUrl']) assert.equal(note[key], original.uri, key);
    let onB: Json;
    await eventually(async () => {
      onB = (await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.uri === quoting.uri);
      assert.ok(onB);
    });
    assert.equal(onB.quote.state, 'accepted');
    assert.equal(onB.quote.quoted_status.uri, original.uri);
  });

  it("delivers a quote of a remote post to its author's server even when nobody there follows the quoter", async () => {
    // A's admin does not follow B's admin and is not mentioned: only the quote brings the post to A.
    const original = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'quote me from afar' })).body;
    let onB: Json;
    await eventually(async () => {
      onB = (await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.uri === original.uri);
      assert.ok(onB);
    });
    const quoting = (await api(b.url, tokenB, 'POST', '/api/v1/statuses', { status: 'this, from B', quoted_status_id: onB.id })).body;
    let told: Json;
    await eventually(async () => {
      told = (await api(a.url, tokenA, 'GET', '/api/v1/notifications?types[]=quote')).body.find((n: Json) => n.status.uri === quoting.uri);
      assert.ok(told, 'the quoted author is told');
    });
    assert.equal(told.type, 'quote');
    assert.equal(told.account.acct, `admin@${new URL(b.url).host}`);
    assert.match(told.status.content, /this, from B/);
    assert.equal(told.status.quote.state, 'accepted');
    assert.equal(told.status.quote.quoted_status.id, original.id);
  });

  it('reads a quote from another server under any one of quote, _misskey_quote, quoteUri or quoteUrl', async () => {
    const original = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'quoted four ways' })).body;
    const actor = await peer.addActor('quill');
    const notes = ['quote', '_misskey_quote', 'quoteUri', 'quoteUrl'].map((key) => ({
      id: peer.newId('notes'),
      type: 'Note',
      attributedTo: actor.id,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${actor.id}/followers`],
      content: `<p>quoting with ${key}</p>`,
      [key]: original.uri,
    }));
    for (const note of notes) {
      const create = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${note.id}/activity`,
        type: 'Create',
        actor: actor.id,
        to: note.to,
        cc: note.cc,
        object: note,
      };
      assert.equal((await peer.signedPost(`${a.url}/inbox`, create, { actor: 'quill' })).status, 202);
    }
    // Nobody here follows quill and nobody is mentioned: each post is kept because it quotes a local one.
    let told: Json[] = [];
    await eventually(async () => {
      told = (await api(a.url, tokenA, 'GET', '/api/v1/notifications?types[]=quote')).body.filter((n: Json) => n.account.acct === `quill@${peer.host}`);
      assert.equal(told.length, 4);
    });
    assert.deepEqual(told.map((n: Json) => n.status.uri).sort(), notes.map((n) => n.id).sort());
    for (const n of told) {
      assert.equal(n.status.quote.state, 'accepted', n.status.content);
      assert.equal(n.status.quote.quoted_status.id, original.id, n.status.content);
    }
  });
});
