// The fake Lemmy 0.19 community (test/support/fake-lemmy.ts) checked on its own before anything leans on it: its
// documents have the keys of Lemmy's own fixtures, its inbox refuses what Lemmy refuses (a bad signature, a body that
// does not match its Digest, a signature leaving out a header Lemmy signs) and does nothing then, it accepts a Follow
// signed by the actor's key with an Accept in Lemmy's shape signed by the group; and against a real Stoa: a member
// follows it through the Mastodon API (the fake verifies Stoa's signature, Stoa sees the Accept), and what the
// community announces reaches Stoa signed and is accepted there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { api, FED_ENV, type Json } from '../support/api.js';
import { sha256Digest, startFakeActorPeer, verifyReceived, type FakePeer, type SignedPostOptions } from '../support/fake-actor-peer.js';
import { LEMMY_CONTEXT, LEMMY_SIGNED_HEADERS, lemmyFixture, startFakeLemmy, type FakeLemmy } from '../support/fake-lemmy.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

type Doc = Record<string, unknown>;

const get = async (url: string, accept = 'application/activity+json'): Promise<{ status: number; type: string | null; body: Json }> => {
  const r = await fetch(url, { headers: { accept } });
  return { status: r.status, type: r.headers.get('content-type'), body: await r.json() };
};
/** The document's keys besides @context, sorted. */
const keysOf = (doc: Doc, without: readonly string[] = []): string[] =>
  Object.keys(doc)
    .filter((k) => k !== '@context' && !without.includes(k))
    .sort();

describe('the fake Lemmy community on its own', () => {
  let lemmy: FakeLemmy;
  let peer: FakePeer;

  before(async () => {
    [lemmy, peer] = await Promise.all([startFakeLemmy(), startFakeActorPeer()]);
    await peer.addActor('riker');
    await peer.addActor('troi');
  });
  after(async () => {
    await Promise.all([lemmy?.stop(), peer?.stop()]);
  });

  it("serves WebFinger, NodeInfo, the Group, its collections and its users, shaped as Lemmy 0.19's fixtures", async () => {
    const wf = await get(`${lemmy.url}/.well-known/webfinger?resource=acct:${lemmy.communityHandle}`, 'application/jrd+json');
    assert.equal(wf.status, 200);
    assert.equal(wf.type, 'application/jrd+json');
    assert.equal(wf.body.subject, `acct:${lemmy.communityHandle}`);
    assert.deepEqual(wf.body.links, [
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: lemmy.community.id },
      { rel: 'self', type: 'application/activity+json', href: lemmy.community.id, properties: { 'https://www.w3.org/ns/activitystreams#type': 'Group' } },
    ]);
    assert.equal((await fetch(`${lemmy.url}/.well-known/webfinger?resource=acct:nobody@${lemmy.host}`)).status, 404);

    const wellKnown = await get(`${lemmy.url}/.well-known/nodeinfo`, 'application/json');
    assert.deepEqual(wellKnown.body.links, [{ rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${lemmy.url}/nodeinfo/2.1` }]);
    const nodeinfo = await get(`${lemmy.url}/nodeinfo/2.1`, 'application/json');
    assert.equal(nodeinfo.body.software.name, 'lemmy');
    assert.match(nodeinfo.body.software.version, /^0\.19\.\d+$/);

    const group = await get(lemmy.community.id);
    assert.equal(group.type, 'application/activity+json');
    assert.deepEqual(group.body['@context'], LEMMY_CONTEXT);
    assert.deepEqual(keysOf(group.body), keysOf(lemmyFixture('objects/group.json'), ['icon', 'image']));
    assert.equal(group.body.type, 'Group');
    assert.equal(group.body.preferredUsername, 'tenforward');
    assert.equal(group.body.inbox, lemmy.community.inbox);
    assert.equal(group.body.followers, lemmy.community.followers);
    assert.deepEqual(group.body.publicKey, { id: lemmy.community.keyId, owner: lemmy.community.id, publicKeyPem: lemmy.communityPublicKeyPem });
    assert.equal(group.body.endpoints.sharedInbox, `${lemmy.url}/inbox`);

    const mods = await get(group.body.attributedTo);
    assert.deepEqual(keysOf(mods.body), keysOf(lemmyFixture('collections/group_moderators.json')));
    assert.deepEqual(mods.body.orderedItems, [lemmy.user('picard').id]);
    const followers = await get(group.body.followers);
    assert.deepEqual(keysOf(followers.body), keysOf(lemmyFixture('collections/group_followers.json')));
    assert.equal(followers.body.totalItems, 0);
    assert.equal((await get(group.body.featured)).status, 200, "Lemmy's featured address, double slash and all, answers");
    assert.equal((await get(group.body.outbox)).body.type, 'OrderedCollection');

    const person = await get(lemmy.user('picard').id);
    assert.deepEqual(keysOf(person.body), keysOf(lemmyFixture('objects/person.json'), ['icon', 'image', 'matrixUserId']));
    assert.equal(person.body.type, 'Person');
    assert.equal(person.body.publicKey.owner, lemmy.user('picard').id);
    const site = await get(`${lemmy.url}/`);
    assert.equal(site.body.type, 'Application');
  });

  /** Lemmy's Follow fixture, from riker on the peer. */
  const follow = (): Doc => ({
    ...lemmyFixture('activities/following/follow.json'),
    actor: peer.actor('riker').id,
    to: [lemmy.community.id],
    object: lemmy.community.id,
    id: peer.newId('follow'),
  });
  const lemmyPost = (activity: Doc, o: Partial<SignedPostOptions> = {}) =>
    peer.signedPost(lemmy.community.inbox, activity, { actor: 'riker', headers: [...LEMMY_SIGNED_HEADERS], ...o });

  it('refuses a bad signature, a body unlike its Digest, a missing signed header and a key not the actor’s: 401, nothing done', async () => {
    const refused: [string, Partial<SignedPostOptions>][] = [
      ['a corrupted signature', { corruptSignature: true }],
      ['a body changed after signing', { tamperBody: (b) => b.replace('"Follow"', '"Follow" ') }],
      ['a Digest not of the body', { digest: `SHA-256=${Buffer.alloc(32).toString('base64')}` }],
      ['content-type left unsigned', { headers: ['(request-target)', 'host', 'date', 'digest'] }],
      ["another actor's key", { actor: 'troi', keyId: peer.actor('riker').keyId }],
      ['no signature at all', { rawSignature: null }],
    ];
    for (const [what, o] of refused) {
      const r = await lemmyPost(follow(), o);
      assert.equal(r.status, 401, what);
    }
    assert.equal(lemmy.received.length, refused.length);
    assert.ok(lemmy.received.every((d) => d.status === 401 && !d.verified && d.refusal !== null));
    assert.deepEqual(lemmy.followers(), []);
    await lemmy.settled();
    assert.deepEqual(lemmy.sent, [], 'no Accept went out');
    assert.ok(!peer.posts().some((p) => p.body?.['type'] === 'Accept'));
  });

  it('answers any bytes at its inboxes with a 4xx and does nothing (property)', async () => {
    const before = lemmy.received.length;
    const body = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.json({ maxDepth: 3 }),
      fc.constant(JSON.stringify(follow())),
      fc.string({ unit: 'binary', maxLength: 100 }),
    );
    const signature = fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 120 }),
      fc
        .tuple(fc.string({ maxLength: 40 }), fc.subarray([...LEMMY_SIGNED_HEADERS, 'accept', '(created)']), fc.base64String({ maxLength: 64 }))
        .map(([keyId, headers, sig]) => `keyId="${keyId}",algorithm="hs2019",headers="${headers.join(' ')}",signature="${sig}"`),
    );
    await fc.assert(
      fc.asyncProperty(
        body,
        signature,
        fc.boolean(),
        fc.constantFrom('/inbox', lemmy.community.inbox.slice(lemmy.url.length), '/u/picard/inbox', '/nowhere'),
        fc.constantFrom('application/activity+json', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"', 'text/plain'),
        async (text, sig, rightDigest, path, type) => {
          const headers: Record<string, string> = { 'content-type': type, date: new Date().toUTCString() };
          headers['digest'] = rightDigest ? sha256Digest(text) : 'SHA-256=AAAA';
          if (sig !== undefined) headers['signature'] = sig;
          const r = await fetch(lemmy.url + path, { method: 'POST', headers, body: text });
          await r.arrayBuffer();
          assert.ok(r.status >= 400 && r.status < 500, `${r.status} for ${JSON.stringify({ text, sig, path, type })}`);
        },
      ),
      { seed: 37, numRuns: 120 },
    );
    assert.ok(lemmy.received.slice(before).every((d) => d.status >= 400 && !d.verified));
    assert.deepEqual(lemmy.followers(), []);
    await lemmy.settled();
    assert.deepEqual(lemmy.sent, []);
  });

  it("accepts a Follow signed by the actor's key: an Accept in Lemmy's shape, signed by the group over Lemmy's headers", async () => {
    const f = follow();
    const r = await lemmyPost(f);
    assert.equal(r.status, 200);
    const d = lemmy.received.at(-1)!;
    assert.equal(d.verified, true);
    assert.deepEqual([...d.signedHeaders], [...LEMMY_SIGNED_HEADERS]);
    assert.deepEqual(lemmy.followers(), [peer.actor('riker').id]);

    const accept = await peer.waitForPost((p) => p.body?.['type'] === 'Accept');
    assert.equal(accept.path, '/inbox', "to the follower's shared inbox");
    const check = verifyReceived(accept, lemmy.communityPublicKeyPem);
    assert.ok(check.signatureValid && check.digestValid);
    assert.equal(check.signature.algorithm, 'hs2019');
    assert.deepEqual(check.signature.headers, [...LEMMY_SIGNED_HEADERS]);
    assert.equal(check.signature.keyId, lemmy.community.keyId);
    assert.equal(accept.headers['content-type'], 'application/activity+json');
    const body = accept.body!;
    assert.deepEqual(keysOf(body), keysOf(lemmyFixture('activities/following/accept.json')));
    assert.deepEqual(body['@context'], LEMMY_CONTEXT);
    assert.equal(body['actor'], lemmy.community.id);
    assert.deepEqual(body['to'], [peer.actor('riker').id]);
    assert.deepEqual(body['object'], { actor: f['actor'], to: f['to'], object: lemmy.community.id, type: 'Follow', id: f['id'] });
    assert.match(String(body['id']), new RegExp(`^${lemmy.url}/activities/accept/`));
  });

  it("counts a follower's vote and re-announces it to every follower, signed by the group", async () => {
    const { id } = await lemmy.post('picard', { name: 'Earl Grey, hot', url: 'https://example.com/tea', body: 'Tea.\n\nEarl Grey.' });
    const announces = peer.posts().filter((p) => p.body?.['type'] === 'Announce');
    assert.equal(announces.length, 2, 'Announce{Create{Page}} and the compat Announce{Page}');
    const [full, compat] = announces as [(typeof announces)[0], (typeof announces)[0]];
    for (const a of announces) assert.ok(verifyReceived(a, lemmy.communityPublicKeyPem).signatureValid);
    const create = full.body!['object'] as Doc;
    assert.equal(create['type'], 'Create');
    assert.equal(create['@context'], undefined, 'the inner activity is announced without its context');
    const page = create['object'] as Doc;
    assert.deepEqual(keysOf(page, ['tag', 'cc']), keysOf(lemmyFixture('objects/page.json'), ['image', 'language']));
    assert.deepEqual(page['attachment'], [{ type: 'Link', href: 'https://example.com/tea' }]);
    assert.deepEqual(page['source'], { content: 'Tea.\n\nEarl Grey.', mediaType: 'text/markdown' });
    assert.equal(page['content'], '<p>Tea.</p>\n<p>Earl Grey.</p>\n');
    assert.equal(page['audience'], lemmy.community.id);
    // The compat form names `id` twice, the Page's last: JSON readers keep the Page's.
    const raw = compat.rawBody.toString('utf8');
    assert.equal((raw.match(/"id":/g) ?? []).length, 3);
    assert.equal((compat.body!['object'] as Doc)['id'], id);
    assert.equal((compat.body!['object'] as Doc)['actor'], lemmy.user('picard').id);
    assert.equal((await get(id)).body.name, 'Earl Grey, hot', 'the post is served at its id');

    const like = {
      ...lemmyFixture('activities/voting/like_note.json'),
      actor: peer.actor('riker').id,
      object: id,
      audience: lemmy.community.id,
      id: peer.newId('like'),
    };
    assert.equal((await lemmyPost(like)).status, 200);
    assert.deepEqual(lemmy.counts(id), { upvotes: 2, downvotes: 0, score: 2 }, "the author's own vote and riker's");
    const announced = await peer.waitForPost((p) => (p.body?.['object'] as Doc | undefined)?.['id'] === like.id);
    assert.equal(announced.body!['actor'], lemmy.community.id);
    assert.ok(verifyReceived(announced, lemmy.communityPublicKeyPem).signatureValid);

    assert.equal((await lemmyPost(like)).status, 400, 'an activity id seen before');
    assert.equal(lemmy.counts(id).upvotes, 2);

    const stranger = { ...like, object: `${lemmy.url}/post/999`, id: peer.newId('like') };
    assert.equal((await lemmyPost(stranger)).status, 400, 'a vote on what the community does not hold');
  });
});

describe('the fake Lemmy community and a real Stoa', () => {
  let lemmy: FakeLemmy;
  let s: TestServer;
  let token: string;
  let groupId: string;

  before(async () => {
    [lemmy, s] = await Promise.all([startFakeLemmy(), startTestServer(FED_ENV)]);
    token = (await createMembers(s, ['ro'])).token['ro']!;
  });
  after(async () => {
    await Promise.all([lemmy?.stop(), s?.stop()]);
  });

  it('a member follows the community through the Mastodon API: the fake verifies the Follow, Stoa sees the Accept', async () => {
    const found = await api(
      s.url,
      token,
      'GET',
      `/api/v2/search?${new URLSearchParams({ q: `@${lemmy.communityHandle}`, resolve: 'true', type: 'accounts' })}`,
    );
    assert.equal(found.status, 200);
    const group = found.body.accounts[0];
    assert.equal(group.acct, lemmy.communityHandle);
    assert.equal(group.group, true);
    groupId = group.id;
    assert.equal((await api(s.url, token, 'POST', `/api/v1/accounts/${groupId}/follow`)).status, 200);

    const member = `${s.url}/users/ro`;
    const d = await lemmy.waitForDelivery((x) => x.activity?.['type'] === 'Follow' && x.activity['actor'] === member);
    assert.equal(d.refusal, null);
    assert.equal(d.verified, true);
    for (const h of LEMMY_SIGNED_HEADERS) assert.ok(d.signedHeaders.includes(h), `${h} signed`);
    assert.deepEqual(lemmy.followers(), [member]);
    await eventually(async () => {
      const rel = await api(s.url, token, 'GET', `/api/v1/accounts/relationships?id[]=${groupId}`);
      assert.equal(rel.body[0].following, true, 'the Accept arrived');
    });
    await lemmy.settled();
    assert.deepEqual(
      lemmy.sent.map((x) => [x.activity['type'], x.status]),
      [['Accept', 202]],
    );
  });

  it("the community's announces reach Stoa signed and are accepted: the post shows as the group's boost", async () => {
    const { id } = await lemmy.post('picard', { name: 'Tea, Earl Grey, hot', url: 'https://example.com/replicator', body: 'Make it so.' });
    const announces = lemmy.sent.filter((x) => x.activity['type'] === 'Announce');
    assert.deepEqual(
      announces.map((x) => [x.inbox, x.status]),
      [
        [`${s.url}/inbox`, 202],
        [`${s.url}/inbox`, 202],
      ],
      "Stoa's inbox verified both (it answers 202 only to a verified signature)",
    );
    await eventually(async () => {
      const statuses = (await api(s.url, token, 'GET', `/api/v1/accounts/${groupId}/statuses`)).body as Json[];
      const boost = statuses.find((x) => x.reblog?.uri === id);
      assert.ok(boost, "the group's boost of the post");
      assert.equal(boost.account.acct, lemmy.communityHandle);
    });
    const rows = (
      await s.app.db.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM inbox_jobs j JOIN accounts a ON a.id = j.signer_id WHERE a.uri = $1 AND j.body->>'type' = 'Announce'`,
        [lemmy.community.id],
      )
    ).rows;
    assert.equal(Number(rows[0]!.n), 2, 'both announces queued, signed by the group');
  });
});
