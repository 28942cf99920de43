// Remote servers trying to make us store what is not theirs: a WebFinger on one domain naming another server's actor,
// an actor Update moving its inbox or key to another origin, a key id naming one of our own actors, and a shared
// inbox on a third party. Also: a member's bio is served to clients as escaped HTML.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { actorSchema } from '../../src/federation/as2.js';
import { toRemoteData } from '../../src/federation/remote-actors.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';

describe('actor forgery', () => {
  let s: TestServer;
  let peer: FakePeer;
  let token: string;
  let liar: http.Server;
  let liarHost: string;

  before(async () => {
    s = await startTestServer({ BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback' });
    peer = await startFakeActorPeer();
    await peer.addActor('bob');
    await peer.addActor('eve');
    const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
    token = await userToken(s.url, jar, await registerApp(s.url, { scopes: 'read write follow' }), 'read write follow');
    // A server whose WebFinger says its "bob" is the peer's bob.
    liar = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/jrd+json' });
      res.end(JSON.stringify({ subject: `acct:bob@${liarHost}`, links: [{ rel: 'self', type: 'application/activity+json', href: peer.actor('bob').id }] }));
    });
    await new Promise<void>((r) => liar.listen(0, '127.0.0.1', r));
    liarHost = `127.0.0.1:${(liar.address() as AddressInfo).port}`;
  });
  after(async () => {
    await s?.stop();
    await peer?.stop();
    liar?.close();
  });

  const accountRows = async (where: string, values: unknown[]) =>
    (await s.app.db.pool.query(`SELECT id, username, domain, uri, inbox_url, public_key_id FROM accounts WHERE ${where}`, values)).rows;

  it("refuses a handle whose WebFinger names another server's actor that does not claim that handle", async () => {
    const r = await fetch(`${s.url}/api/v1/accounts/lookup?acct=bob@${liarHost}`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(r.status, 404);
    assert.deepEqual(await accountRows('domain = $1', [liarHost]), []);
    // Resolved honestly, the actor keeps its own domain.
    const ok = await fetch(`${s.url}/api/v1/accounts/lookup?acct=bob@${peer.host}`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { acct: string }).acct, `bob@${peer.host}`);
  });

  it('ignores an actor Update that moves the inbox or the key to another origin', async () => {
    const eve = peer.actor('eve');
    await s.app.federation.remote.byUri(eve.id);
    const before = (await accountRows('uri = $1', [eve.id]))[0]!;
    for (const change of [
      { inbox: 'http://third.party.invalid/inbox' },
      { publicKey: { id: 'http://third.party.invalid/key', owner: eve.id, publicKeyPem: eve.publicKeyPem } },
    ]) {
      const doc = { ...peer.document('eve'), ...change, name: 'Hijacked' };
      const r = await peer.signedPost(
        `${s.url}/inbox`,
        { '@context': AS, id: peer.newId('update'), type: 'Update', actor: eve.id, object: doc },
        { actor: 'eve' },
      );
      assert.equal(r.status, 202);
    }
    // Both are processed (refused for good, not retried) and change nothing.
    await eventually(async () => {
      const jobs = (await s.app.db.pool.query("SELECT last_error FROM inbox_jobs WHERE body->>'type' = 'Update' AND processed_at IS NOT NULL")).rows;
      assert.equal(jobs.length, 2);
    });
    const afterRow = (await accountRows('uri = $1', [eve.id]))[0]!;
    assert.equal(afterRow.inbox_url, before.inbox_url);
    assert.equal(afterRow.public_key_id, before.public_key_id);
    const seen = (await (await fetch(`${s.url}/api/v1/accounts/${before.id}`)).json()) as { display_name: string };
    assert.notEqual(seen.display_name, 'Hijacked');
  });

  it('never stores one of our own actors as a remote account, whatever a key id names', async () => {
    const r = await peer.signedPost(
      `${s.url}/inbox`,
      { '@context': AS, id: peer.newId('follow'), type: 'Follow', actor: `${s.url}/users/admin`, object: `${s.url}/users/admin` },
      { actor: 'eve', keyId: `${s.url}/users/admin#main-key` },
    );
    assert.equal(r.status, 401);
    assert.deepEqual(await accountRows('uri LIKE $1', [`${s.url}/%`]), []);
  });

  it('keeps a shared inbox only on the actor\u2019s own origin', () => {
    const base = { '@context': AS, id: 'https://a.example/users/x', type: 'Person', preferredUsername: 'x', inbox: 'https://a.example/users/x/inbox' };
    const same = actorSchema.parse({ ...base, endpoints: { sharedInbox: 'https://a.example/inbox' } });
    const other = actorSchema.parse({ ...base, endpoints: { sharedInbox: 'https://victim.example/inbox' } });
    assert.equal(toRemoteData(same, 'a.example').sharedInboxUrl, 'https://a.example/inbox');
    assert.equal(toRemoteData(other, 'a.example').sharedInboxUrl, null);
  });

  it("serves a member's plain-text bio to clients as escaped HTML", async () => {
    const patch = await fetch(`${s.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ note: 'I <3 cats\n\n<img src=x onerror=alert(1)>' }),
    });
    const me = (await patch.json()) as { id: string; note: string; source: { note: string } };
    assert.equal(me.source.note, 'I <3 cats\n\n<img src=x onerror=alert(1)>');
    assert.equal(me.note, '<p>I &#60;3 cats</p><p>&#60;img src=x onerror=alert(1)&#62;</p>');
    await eventually(async () => {
      const pub = (await (await fetch(`${s.url}/api/v1/accounts/${me.id}`)).json()) as { note: string };
      assert.equal(pub.note, me.note);
    });
  });
});
