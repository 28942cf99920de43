// The Fedify peer against itself: two peers federating prove the harness (server adapter, keys, inbox listeners,
// auto-Accept, lookups, authorized fetch) is right before Stoa is involved.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFedifyPeer, type FedifyPeer } from '../support/fedify-peer.js';

describe('fedify peer', () => {
  let a: FedifyPeer;
  let b: FedifyPeer;
  before(async () => {
    [a, b] = await Promise.all([startFedifyPeer(), startFedifyPeer()]);
  });
  after(async () => {
    await Promise.all([a.stop(), b.stop()]);
  });

  it('delivers a signed Follow that the other peer verifies, and gets its Accept back', async () => {
    const followId = await a.follow('alice', b.actorUri('bob'));
    const follow = await b.waitFor((r) => r.type === 'Follow' && r.id === followId);
    assert.equal(follow.actor, a.actorUri('alice'));
    assert.equal(follow.object, b.actorUri('bob'));
    assert.equal((follow.raw as { type?: string }).type, 'Follow'); // the JSON as it came over the wire
    const accept = await a.waitFor((r) => r.type === 'Accept' && r.object === followId);
    assert.equal(accept.actor, b.actorUri('bob'));
    assert.deepEqual(b.followers('bob'), [a.actorUri('alice')]);
    const post = b.requests.find((q) => q.method === 'POST' && q.path === '/users/bob/inbox');
    assert.equal(post?.status, 202);
    assert.ok(post.keyId?.startsWith(`${a.actorUri('alice')}#`), `signed by alice's key, got ${post.keyId}`);
    assert.equal(post.spec, 'draft-cavage');
    assert.deepEqual(post.signedHeaders.filter((h) => ['(request-target)', 'host', 'date', 'digest'].includes(h)).sort(), [
      '(request-target)',
      'date',
      'digest',
      'host',
    ]);
    assert.deepEqual([...a.errors, ...b.errors], []);
  });

  it('undoes a follow, and the other peer drops the follower', async () => {
    const followId = await a.follow('bob', b.actorUri('alice'));
    await a.waitFor((r) => r.type === 'Accept' && r.object === followId);
    assert.deepEqual(b.followers('alice'), [a.actorUri('bob')]);
    await a.unfollow('bob', b.actorUri('alice'), followId);
    const undo = await b.waitFor((r) => r.type === 'Undo' && r.object === followId);
    assert.equal(undo.actor, a.actorUri('bob'));
    assert.deepEqual(b.followers('alice'), []);
  });

  it("looks up the other peer's actor with its inbox, shared inbox, key and followers", async () => {
    const bob = await a.lookupActor(b.actorUri('bob'));
    assert.deepEqual(bob, {
      id: b.actorUri('bob'),
      type: 'Person',
      preferredUsername: 'bob',
      name: 'Bob (Fedify)',
      inbox: `${b.actorUri('bob')}/inbox`,
      sharedInbox: `${b.url}/inbox`,
      publicKeyId: `${b.actorUri('bob')}#main-key`,
      followers: `${b.actorUri('bob')}/followers`,
    });
  });

  it('publishes an RSA publicKey and an Ed25519 assertionMethod on its actors', async () => {
    const r = await fetch(a.actorUri('alice'), { headers: { accept: 'application/activity+json' } });
    assert.equal(r.status, 200);
    const doc = (await r.json()) as { publicKey?: { id?: string; publicKeyPem?: string }; assertionMethod?: { type?: string; publicKeyMultibase?: string }[] };
    assert.match(doc.publicKey?.publicKeyPem ?? '', /^-----BEGIN PUBLIC KEY-----/);
    assert.equal(doc.assertionMethod?.length, 2);
    // Multibase 'z' + base58btc of the 0xed01 multicodec prefix: Ed25519 keys start with 'z6Mk'.
    assert.ok(doc.assertionMethod.some((k) => k.type === 'Multikey' && k.publicKeyMultibase?.startsWith('z6Mk')));
  });

  it('answers WebFinger for its handles over plain http', async () => {
    const r = await fetch(`${b.url}/.well-known/webfinger?resource=${encodeURIComponent(`acct:bob@${b.host}`)}`);
    assert.equal(r.status, 200);
    const jrd = (await r.json()) as { subject: string; links: { rel: string; type?: string; href?: string }[] };
    assert.equal(jrd.subject, `acct:bob@${b.host}`);
    const self = jrd.links.find((l) => l.rel === 'self');
    assert.equal(self?.href, b.actorUri('bob'));
    assert.equal(self?.type, 'application/activity+json');
  });

  it('refuses an unsigned inbox POST and records nothing', async () => {
    const before = b.received.length;
    const r = await fetch(`${b.actorUri('bob')}/inbox`, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body: JSON.stringify({
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${a.actorUri('alice')}#forged`,
        type: 'Follow',
        actor: a.actorUri('alice'),
        object: b.actorUri('bob'),
      }),
    });
    assert.equal(r.status, 401);
    await r.arrayBuffer();
    assert.equal(b.received.length, before);
  });

  describe('with authorized fetch', () => {
    let c: FedifyPeer;
    before(async () => {
      c = await startFedifyPeer({ authorizedFetch: true });
    });
    after(() => c.stop());

    it('answers 401 to an unsigned GET of an actor', async () => {
      const r = await fetch(c.actorUri('alice'), { headers: { accept: 'application/activity+json' } });
      assert.equal(r.status, 401);
      await r.arrayBuffer();
      await assert.rejects(a.lookupActor(c.actorUri('alice')));
    });

    it('serves its actor to a signed GET and records who signed it', async () => {
      const alice = await a.lookupActor(c.actorUri('alice'), { signedAs: 'bob' });
      assert.equal(alice.preferredUsername, 'alice');
      const get = c.requests.findLast((q) => q.method === 'GET' && q.path === '/users/alice' && q.status === 200);
      assert.equal(get?.keyId, `${a.actorUri('bob')}#main-key`);
    });

    it('is followed by a peer that signs its lookups, and Accepts', async () => {
      const followId = await a.follow('alice', c.actorUri('bob'));
      await a.waitFor((r) => r.type === 'Accept' && r.object === followId);
      assert.deepEqual(c.followers('bob'), [a.actorUri('alice')]);
    });
  });
});
