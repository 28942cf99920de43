// Stoa federating with Fedify, an independent ActivityPub implementation, over real loopback HTTP with real
// signatures both ways: discovery, actor fetches, follows, Accepts, Undo, and authorized fetch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFedifyPeer, type FedifyPeer } from '../support/fedify-peer.js';
import { createMembers } from '../support/members.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

interface Account {
  id: string;
  acct: string;
  uri: string;
  username: string;
}
interface Relationship {
  id: string;
  following: boolean;
  requested: boolean;
  followed_by: boolean;
}

describe('Stoa ↔ Fedify interop', () => {
  let s: TestServer;
  let peer: FedifyPeer;
  let token: string;
  let adminId: string;
  let adminUri: string;
  /** A member of its own for the unfollow test, so that it needs nothing another test made. */
  let unaToken: string;

  async function api<T>(method: 'GET' | 'POST', path: string, expectStatus = 200, as = token): Promise<T> {
    const r = await fetch(`${s.url}${path}`, { method, headers: { authorization: `Bearer ${as}` } });
    const text = await r.text();
    assert.equal(r.status, expectStatus, `${method} ${path}: ${text}`);
    return JSON.parse(text) as T;
  }
  const relationship = async (id: string, as = token): Promise<Relationship> => {
    const [rel] = await api<Relationship[]>('GET', `/api/v1/accounts/relationships?id[]=${encodeURIComponent(id)}`, 200, as);
    assert.ok(rel, `no relationship for ${id}`);
    return rel;
  };
  const lookup = (acct: string, as = token): Promise<Account> => api<Account>('GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`, 200, as);

  before(async () => {
    [s, peer] = await Promise.all([
      startTestServer({ BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback', DELIVERY_RETRY_BASE_MS: '200' }),
      startFedifyPeer(),
    ]);
    const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
    const app = await registerApp(s.url, { scopes: 'read write follow' });
    token = await userToken(s.url, jar, app, 'read write follow');
    adminId = (await api<{ id: string }>('GET', '/api/v1/accounts/verify_credentials')).id;
    adminUri = `${s.url}/users/admin`;
    unaToken = (await createMembers(s, ['una'])).token['una']!;
  });
  after(async () => {
    await Promise.all([peer?.stop(), s?.stop()]);
  });

  it("lets Fedify look up Stoa's member actor and instance actor, unsigned and signed", async () => {
    for (const signedAs of [undefined, 'alice']) {
      const admin = await peer.lookupActor(adminUri, signedAs ? { signedAs } : {});
      assert.equal(admin.id, adminUri);
      assert.equal(admin.type, 'Person');
      assert.equal(admin.preferredUsername, 'admin');
      assert.equal(admin.inbox, `${adminUri}/inbox`);
      assert.equal(admin.sharedInbox, `${s.url}/inbox`);
      assert.equal(admin.publicKeyId, `${adminUri}#main-key`);
      assert.ok(admin.followers, 'followers collection');
    }
    const instance = await peer.lookupActor(`${s.url}/actor`);
    assert.equal(instance.id, `${s.url}/actor`);
    assert.equal(instance.type, 'Service');
    assert.equal(instance.publicKeyId, `${s.url}/actor#main-key`);
  });

  let resolved: Promise<Account> | undefined;
  /** Fedify's alice as a Stoa account; the follow tests need her, whichever test runs first. */
  const aliceAccount = (): Promise<Account> => (resolved ??= lookup(`alice@${peer.host}`));
  /** Waits until `id` is followed as `as` (the Accept from Fedify processed). */
  const followingOnceAccepted = async (id: string, as = token): Promise<Relationship> => {
    let rel!: Relationship;
    await eventually(async () => {
      rel = await relationship(id, as);
      assert.equal(rel.following, true, `not following yet: ${JSON.stringify(rel)}`);
    });
    return rel;
  };

  it('resolves a Fedify handle through WebFinger over http on loopback', async () => {
    const alice = await aliceAccount();
    assert.equal(alice.acct, `alice@${peer.host}`);
    assert.equal(alice.uri, peer.actorUri('alice'));
    assert.equal(alice.username, 'alice');
    assert.match(alice.id, /^\d+$/);
  });

  it("follows a Fedify actor with a signature Fedify verifies, and becomes a follower on Fedify's Accept", async () => {
    const alice = await aliceAccount();
    const sent = peer.requests.length;
    const rel = await api<Relationship>('POST', `/api/v1/accounts/${alice.id}/follow`);
    assert.equal(rel.id, alice.id);
    assert.ok(rel.requested || rel.following, `requested until the Accept arrives: ${JSON.stringify(rel)}`);
    // Fedify records an activity only after verifying its HTTP signature against Stoa's published key.
    const follow = await peer.waitFor((r) => r.type === 'Follow' && r.actor === adminUri);
    assert.equal(follow.object, peer.actorUri('alice'));
    // To alice's inbox or the shared one; either way signed draft-cavage with admin's key, and accepted. (Only the
    // Follow is posted with admin's key since `sent`: the peer records a request before the activity it carried.)
    const post = peer.requests.slice(sent).find((q) => q.method === 'POST' && q.keyId === `${adminUri}#main-key`);
    assert.ok(post?.path === '/users/alice/inbox' || post?.path === '/inbox', `delivered to ${post?.path}`);
    assert.equal(post.spec, 'draft-cavage');
    for (const h of ['(request-target)', 'host', 'date', 'digest']) assert.ok(post.signedHeaders.includes(h), `signs ${h}`);
    assert.equal(post.status, 202);
    // Fedify's Accept (signed by alice, object = the Follow embedded) reaches Stoa and is verified there.
    const accepted = await followingOnceAccepted(alice.id);
    assert.equal(accepted.requested, false);
    assert.deepEqual(peer.followers('alice'), [adminUri]);
    assert.deepEqual(peer.errors, []);
  });

  it('Accepts a Fedify actor that follows a member, and lists her among the followers', async () => {
    const alice = await aliceAccount();
    const followId = await peer.follow('alice', adminUri);
    const accept = await peer.waitFor((r) => r.type === 'Accept' && r.object === followId);
    assert.equal(accept.actor, adminUri);
    let listed: Account | undefined;
    await eventually(async () => {
      listed = (await api<Account[]>('GET', `/api/v1/accounts/${adminId}/followers`)).find((a) => a.uri === peer.actorUri('alice'));
      assert.ok(listed, 'alice among the followers');
    });
    assert.ok(listed);
    assert.equal(listed.acct, `alice@${peer.host}`);
    assert.equal((await relationship(alice.id)).followed_by, true);
  });

  it('unfollows, and Fedify receives the Undo of the Follow', async () => {
    // Its own follows both ways, between its own member una and Fedify's bob.
    const unaUri = `${s.url}/users/una`;
    const bob = await lookup(`bob@${peer.host}`, unaToken);
    await api<Relationship>('POST', `/api/v1/accounts/${bob.id}/follow`, 200, unaToken);
    const follow = await peer.waitFor((r) => r.type === 'Follow' && r.actor === unaUri);
    await followingOnceAccepted(bob.id, unaToken);
    assert.deepEqual(peer.followers('bob'), [unaUri]);
    const theirs = await peer.follow('bob', unaUri);
    await peer.waitFor((r) => r.type === 'Accept' && r.object === theirs);
    await eventually(async () => assert.equal((await relationship(bob.id, unaToken)).followed_by, true));

    const rel = await api<Relationship>('POST', `/api/v1/accounts/${bob.id}/unfollow`, 200, unaToken);
    assert.equal(rel.following, false);
    assert.equal(rel.requested, false);
    const undo = await peer.waitFor((r) => r.type === 'Undo' && r.object === follow.id);
    assert.equal(undo.actor, unaUri);
    assert.deepEqual(peer.followers('bob'), []);
    assert.equal((await relationship(bob.id, unaToken)).followed_by, true); // his follow of una is untouched
  });

  describe('when the Fedify side requires signed fetches (authorized fetch)', () => {
    let secure: FedifyPeer;
    before(async () => {
      secure = await startFedifyPeer({ authorizedFetch: true });
    });
    after(() => secure.stop());

    it("resolves a handle by signing the actor fetch as Stoa's instance actor", async () => {
      const unsigned = await fetch(secure.actorUri('alice'), { headers: { accept: 'application/activity+json' } });
      assert.equal(unsigned.status, 401);
      await unsigned.arrayBuffer();
      const account = await lookup(`alice@${secure.host}`);
      assert.equal(account.uri, secure.actorUri('alice'));
      assert.equal(account.acct, `alice@${secure.host}`);
      const get = secure.requests.find((q) => q.method === 'GET' && q.path.startsWith('/users/alice') && q.status === 200);
      assert.equal(get?.keyId, `${s.url}/actor#main-key`);
    });
  });
});
