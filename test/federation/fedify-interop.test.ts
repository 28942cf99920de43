// Stoa federating with Fedify, an independent ActivityPub implementation, over real loopback HTTP with real
// signatures both ways: discovery, actor fetches, follows, Accepts, Undo, and authorized fetch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFedifyPeer, type FedifyPeer } from '../support/fedify-peer.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface Account { id: string; acct: string; uri: string; username: string }
interface Relationship { id: string; following: boolean; requested: boolean; followed_by: boolean }

/** Polls `probe` until it returns something other than undefined (Stoa handles inbox work off the request path). */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Stoa ↔ Fedify interop', () => {
  let s: TestServer;
  let peer: FedifyPeer;
  let token: string;
  let adminId: string;
  let adminUri: string;

  async function api<T>(method: 'GET' | 'POST', path: string, expectStatus = 200): Promise<T> {
    const r = await fetch(`${s.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const text = await r.text();
    assert.equal(r.status, expectStatus, `${method} ${path}: ${text}`);
    return JSON.parse(text) as T;
  }
  const relationship = async (id: string): Promise<Relationship> => {
    const [rel] = await api<Relationship[]>('GET', `/api/v1/accounts/relationships?id[]=${encodeURIComponent(id)}`);
    assert.ok(rel, `no relationship for ${id}`);
    return rel;
  };
  const lookup = (acct: string): Promise<Account> => api<Account>('GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);

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

  it('resolves a Fedify handle through WebFinger over http on loopback', async () => {
    const alice = await aliceAccount();
    assert.equal(alice.acct, `alice@${peer.host}`);
    assert.equal(alice.uri, peer.actorUri('alice'));
    assert.equal(alice.username, 'alice');
    assert.match(alice.id, /^\d+$/);
  });

  let stoaFollowId: string | undefined;
  it("follows a Fedify actor with a signature Fedify verifies, and becomes a follower on Fedify's Accept", async () => {
    const alice = await aliceAccount();
    const rel = await api<Relationship>('POST', `/api/v1/accounts/${alice.id}/follow`);
    assert.equal(rel.id, alice.id);
    assert.ok(rel.requested || rel.following, `requested until the Accept arrives: ${JSON.stringify(rel)}`);
    // Fedify records an activity only after verifying its HTTP signature against Stoa's published key.
    const follow = await peer.waitFor((r) => r.type === 'Follow' && r.actor === adminUri);
    assert.equal(follow.object, peer.actorUri('alice'));
    stoaFollowId = follow.id;
    // To alice's inbox or the shared one; either way signed draft-cavage with admin's key, and accepted.
    const post = peer.requests.find((q) => q.method === 'POST' && q.keyId === `${adminUri}#main-key`);
    assert.ok(post?.path === '/users/alice/inbox' || post?.path === '/inbox', `delivered to ${post?.path}`);
    assert.equal(post.spec, 'draft-cavage');
    for (const h of ['(request-target)', 'host', 'date', 'digest']) assert.ok(post.signedHeaders.includes(h), `signs ${h}`);
    assert.equal(post.status, 202);
    // Fedify's Accept (signed by alice, object = the Follow embedded) reaches Stoa and is verified there.
    const accepted = await until('following: true', async () => {
      const r = await relationship(alice.id);
      return r.following ? r : undefined;
    });
    assert.equal(accepted.requested, false);
    assert.deepEqual(peer.followers('alice'), [adminUri]);
    assert.deepEqual(peer.errors, []);
  });

  it('Accepts a Fedify actor that follows a member, and lists her among the followers', async () => {
    const alice = await aliceAccount();
    const followId = await peer.follow('alice', adminUri);
    const accept = await peer.waitFor((r) => r.type === 'Accept' && r.object === followId);
    assert.equal(accept.actor, adminUri);
    const followers = await until('alice among the followers', async () => {
      const list = await api<Account[]>('GET', `/api/v1/accounts/${adminId}/followers`);
      return list.some((a) => a.uri === peer.actorUri('alice')) ? list : undefined;
    });
    const listed = followers.find((a) => a.uri === peer.actorUri('alice'))!;
    assert.equal(listed.acct, `alice@${peer.host}`);
    assert.equal((await relationship(alice.id)).followed_by, true);
  });

  it('unfollows, and Fedify receives the Undo of the Follow', async () => {
    assert.ok(stoaFollowId, 'needs the follow made by the test before');
    const alice = await aliceAccount();
    const rel = await api<Relationship>('POST', `/api/v1/accounts/${alice.id}/unfollow`);
    assert.equal(rel.following, false);
    assert.equal(rel.requested, false);
    const undo = await peer.waitFor((r) => r.type === 'Undo' && r.object === stoaFollowId);
    assert.equal(undo.actor, adminUri);
    assert.deepEqual(peer.followers('alice'), []);
    assert.equal((await relationship(alice.id)).followed_by, true); // her follow of admin is untouched
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
