// What Stoa does with each activity a hand-written peer (test/support/fake-actor-peer.ts) sends it through real signed
// POSTs: Follow (answered with a signed Accept, or a follow request when locked), Undo, Accept/Reject of our Follows,
// Update and Delete of actors, Block, unknown types; and what the inbox refuses before queueing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api as callApi } from '../support/api.js';
import { startFakeActorPeer, verifyReceived, type FakePeer, type PeerRequest } from '../support/fake-actor-peer.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const FED_ENV = { BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback', DELIVERY_RETRY_BASE_MS: '200' };
const AS = 'https://www.w3.org/ns/activitystreams';

type Json = Record<string, unknown>;

describe('inbox activities', () => {
  let s: TestServer;
  let peer: FakePeer;
  let token: string;
  let admin: string;
  let adminInbox: string;
  let stoaKey: { id: string; owner: string; publicKeyPem: string };

  const api = (method: string, path: string, body?: Json) => callApi(s.url, token, method, path, body);
  const count = async (sql: string, params: unknown[] = []): Promise<number> => Number((await s.app.db.pool.query<{ n: string }>(sql, params)).rows[0]!.n);
  const acct = (name: string) => `${name}@${peer.host}`;
  /** Stoa's account id for a peer actor (resolved through WebFinger the first time). */
  const idOf = async (name: string): Promise<string> => {
    const r = await api('GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct(name))}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id as string;
  };
  const followerAccts = async (): Promise<string[]> => {
    const me = await api('GET', '/api/v1/accounts/verify_credentials');
    return (await api('GET', `/api/v1/accounts/${me.body.id}/followers`)).body.map((a: { acct: string }) => a.acct);
  };
  const relationship = async (id: string) => (await api('GET', `/api/v1/accounts/relationships?id[]=${id}`)).body[0] as Json;
  const send = async (actor: string, activity: Json, inbox = adminInbox) => {
    const r = await peer.signedPost(inbox, activity, { actor });
    assert.equal(r.status, 202, `${activity['type']} from ${actor}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  /** The last Follow each peer actor sent to Stoa. */
  const sentFollows = new Map<string, Json>();
  const followActivity = (actor: string): Json => {
    const f = { '@context': AS, id: peer.newId('follows'), type: 'Follow', actor: peer.actor(actor).id, object: admin };
    sentFollows.set(actor, f);
    return f;
  };
  /** A POST Stoa made to the actor's inbox with an activity of this type, its signature and Digest checked. */
  const received = async (actor: string, type: string, pred: (body: Json) => boolean = () => true): Promise<PeerRequest & { body: Json }> => {
    const post = await peer.waitForPost((p) => p.path === `/users/${actor}/inbox` && p.body?.['type'] === type && pred(p.body));
    const check = verifyReceived(post, stoaKey.publicKeyPem);
    assert.equal(check.signature.keyId, stoaKey.id);
    assert.ok(
      ['(request-target)', 'host', 'date', 'digest'].every((h) => check.signature.headers.includes(h)),
      check.signature.headers.join(' '),
    );
    assert.equal(check.signatureValid, true, `${type} to ${actor}: signature does not verify with ${stoaKey.id}`);
    assert.equal(check.digestValid, true, `${type} to ${actor}: Digest does not match the body`);
    assert.equal(post.body!['actor'], admin);
    return post as PeerRequest & { body: Json };
  };
  /** Follow `name` from Stoa's admin through the client API; returns the Follow the peer received. */
  const followFromStoa = async (name: string): Promise<Json> => {
    const id = await idOf(name);
    const r = await api('POST', `/api/v1/accounts/${id}/follow`);
    assert.equal(r.status, 200);
    assert.equal(r.body.requested, true);
    const post = await received(name, 'Follow');
    assert.equal(post.body['object'], peer.actor(name).id);
    return post.body;
  };
  const acceptFollow = async (name: string) => {
    const f = followActivity(name);
    await send(name, f);
    await received(name, 'Accept', (b) => (b['object'] as Json)?.['id'] === f['id']);
  };

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    admin = `${s.url}/users/admin`;
    adminInbox = `${admin}/inbox`;
    const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
    const app = await registerApp(s.url, { scopes: 'read write follow' });
    token = await userToken(s.url, jar, app, 'read write follow');
    const doc = (await (await fetch(admin, { headers: { Accept: 'application/activity+json' } })).json()) as { publicKey: typeof stoaKey };
    stoaKey = doc.publicKey;
    assert.equal(stoaKey.owner, admin);
    await Promise.all(['carol', 'dave', 'erin', 'frank', 'grace', 'hank', 'heidi', 'ivan', 'judy', 'kim', 'liam'].map((n) => peer.addActor(n)));
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it('answers a Follow of an unlocked member with a signed Accept whose object is the Follow', async () => {
    const follow = followActivity('carol');
    await send('carol', follow);
    const accept = await received('carol', 'Accept');
    const object = accept.body['object'] as Json;
    assert.equal(object['id'], follow['id']);
    assert.equal(object['type'], 'Follow');
    assert.equal(object['actor'], peer.actor('carol').id);
    assert.equal(object['object'], admin);
    // The check can fail: another key does not verify this signature, and a changed body breaks the Digest.
    assert.equal(verifyReceived(accept, peer.actor('carol').publicKeyPem).signatureValid, false);
    assert.equal(verifyReceived({ ...accept, rawBody: Buffer.from(accept.rawBody.toString() + ' ') }, stoaKey.publicKeyPem).digestValid, false);
    assert.deepEqual(await followerAccts(), [acct('carol')]);
  });

  it('processes the same Follow POSTed twice only once', async () => {
    const follow = followActivity('dave');
    await send('dave', follow);
    await send('dave', follow); // signed again, with a new Date
    assert.equal(await count('SELECT count(*) AS n FROM inbox_jobs WHERE activity_id = $1', [follow['id']]), 1);
    await received('dave', 'Accept');
    await eventually(async () => {
      assert.equal(await count('SELECT count(*) AS n FROM inbox_jobs WHERE processed_at IS NULL'), 0);
      assert.equal(await count('SELECT count(*) AS n FROM deliveries WHERE inbox_url = $1', [peer.actor('dave').inbox]), 0);
    });
    assert.equal(peer.posts().filter((p) => p.path === '/users/dave/inbox' && p.body?.['type'] === 'Accept').length, 1);
    assert.deepEqual((await followerAccts()).sort(), [acct('carol'), acct('dave')].sort());
  });

  it('removes the follower on Undo of the Follow, embedded or by id', async () => {
    await send('carol', { '@context': AS, id: peer.newId('undo'), type: 'Undo', actor: peer.actor('carol').id, object: sentFollows.get('carol')! });
    await send('dave', { '@context': AS, id: peer.newId('undo'), type: 'Undo', actor: peer.actor('dave').id, object: sentFollows.get('dave')!['id'] });
    await eventually(async () => assert.deepEqual(await followerAccts(), []));
  });

  it('turns a Follow of a locked member into a follow request; authorizing sends Accept, rejecting sends Reject', async () => {
    assert.equal((await api('PATCH', '/api/v1/accounts/update_credentials', { locked: true })).status, 200);
    try {
      const erinFollow = followActivity('erin');
      const frankFollow = followActivity('frank');
      await send('erin', erinFollow);
      await send('frank', frankFollow);
      let requests: { id: string; acct: string }[] = [];
      await eventually(async () => {
        requests = (await api('GET', '/api/v1/follow_requests')).body;
        assert.deepEqual(requests.map((r) => r.acct).sort(), [acct('erin'), acct('frank')].sort());
      });
      assert.deepEqual(await followerAccts(), []);
      const erin = requests.find((r) => r.acct === acct('erin'))!;
      const frank = requests.find((r) => r.acct === acct('frank'))!;

      const ok = await api('POST', `/api/v1/follow_requests/${erin.id}/authorize`);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.followed_by, true);
      const accept = await received('erin', 'Accept');
      assert.equal((accept.body['object'] as Json)['id'], erinFollow['id']);

      const no = await api('POST', `/api/v1/follow_requests/${frank.id}/reject`);
      assert.equal(no.status, 200);
      assert.equal(no.body.requested_by, false);
      const reject = await received('frank', 'Reject');
      assert.equal((reject.body['object'] as Json)['id'], frankFollow['id']);

      assert.deepEqual((await api('GET', '/api/v1/follow_requests')).body, []);
      assert.deepEqual(await followerAccts(), [acct('erin')]);
    } finally {
      await api('PATCH', '/api/v1/accounts/update_credentials', { locked: false });
    }
  });

  it('applies an Update of the actor, embedded or by id', async () => {
    const id = await idOf('carol');
    const carol = peer.actor('carol');
    carol.displayName = 'Carol, renamed';
    await send('carol', { '@context': AS, id: peer.newId('updates'), type: 'Update', actor: carol.id, object: peer.document('carol') });
    await eventually(async () => assert.equal((await api('GET', `/api/v1/accounts/${id}`)).body.display_name, 'Carol, renamed'));
    // By id only: Stoa refetches the actor.
    carol.displayName = 'Carol, fetched';
    await send('carol', { '@context': AS, id: peer.newId('updates'), type: 'Update', actor: carol.id, object: carol.id });
    await eventually(async () => assert.equal((await api('GET', `/api/v1/accounts/${id}`)).body.display_name, 'Carol, fetched'));
  });

  it('on Delete of the actor removes its follows both ways and the account answers 404', async () => {
    await acceptFollow('grace');
    const follow = await followFromStoa('grace');
    const id = await idOf('grace');
    const grace = peer.actor('grace');
    await send('grace', { '@context': AS, id: peer.newId('accepts'), type: 'Accept', actor: grace.id, object: follow });
    await eventually(async () => {
      const rel = await relationship(id);
      assert.equal(rel['following'], true);
      assert.equal(rel['followed_by'], true);
    });
    // As Mastodon does it: the actor is gone first, then the Delete goes out signed with its (cached) key.
    peer.makeGone('grace');
    await send(
      'grace',
      { '@context': AS, id: peer.newId('deletes'), type: 'Delete', actor: grace.id, object: grace.id, to: [`${AS}#Public`] },
      `${s.url}/inbox`,
    );
    await eventually(async () => assert.equal((await api('GET', `/api/v1/accounts/${id}`)).status, 404));
    assert.equal(await count('SELECT count(*) AS n FROM follows WHERE account_id = $1 OR target_account_id = $1', [id]), 0);
    assert.ok(!(await followerAccts()).includes(acct('grace')));
  });

  it('accepts the Delete of an actor it never knew whose documents are gone, and stores nothing', async () => {
    const hank = peer.actor('hank');
    peer.makeGone('hank');
    await send('hank', { '@context': AS, id: peer.newId('deletes'), type: 'Delete', actor: hank.id, object: hank.id }, `${s.url}/inbox`);
    assert.equal(await count('SELECT count(*) AS n FROM accounts WHERE uri = $1', [hank.id]), 0);
  });

  it('on Block of our member removes the follows both ways', async () => {
    await acceptFollow('heidi');
    const follow = await followFromStoa('heidi');
    const heidi = peer.actor('heidi');
    await send('heidi', { '@context': AS, id: peer.newId('accepts'), type: 'Accept', actor: heidi.id, object: follow });
    const id = await idOf('heidi');
    await eventually(async () => {
      const rel = await relationship(id);
      assert.equal(rel['following'], true);
      assert.equal(rel['followed_by'], true);
    });
    await send('heidi', { '@context': AS, id: peer.newId('blocks'), type: 'Block', actor: heidi.id, object: admin });
    await eventually(async () => {
      const rel = await relationship(id);
      assert.equal(rel['blocked_by'], true);
      assert.equal(rel['following'], false);
      assert.equal(rel['followed_by'], false);
    });
    assert.ok(!(await followerAccts()).includes(acct('heidi')));
  });

  it('on Accept of our Follow, embedded or by id, the member is following', async () => {
    for (const [name, embed] of [
      ['ivan', true],
      ['judy', false],
    ] as const) {
      const follow = await followFromStoa(name);
      const id = await idOf(name);
      assert.equal((await relationship(id))['requested'], true);
      const a = peer.actor(name);
      await send(name, { '@context': AS, id: peer.newId('accepts'), type: 'Accept', actor: a.id, object: embed ? follow : follow['id'] });
      await eventually(async () => {
        const rel = await relationship(id);
        assert.equal(rel['following'], true, name);
        assert.equal(rel['requested'], false, name);
      });
    }
  });

  it('on Reject of our Follow the request is gone', async () => {
    const follow = await followFromStoa('kim');
    const id = await idOf('kim');
    const kim = peer.actor('kim');
    await send('kim', { '@context': AS, id: peer.newId('rejects'), type: 'Reject', actor: kim.id, object: follow });
    await eventually(async () => {
      const rel = await relationship(id);
      assert.equal(rel['requested'], false);
      assert.equal(rel['following'], false);
    });
    assert.equal(await count('SELECT count(*) AS n FROM follow_requests WHERE target_account_id = $1', [id]), 0);
  });

  it('accepts activity types it does not act on with 202, and stores nothing for them', async () => {
    const liam = peer.actor('liam');
    const ids: string[] = [];
    for (const type of ['Move', 'View', 'Listen']) {
      const id = peer.newId(type.toLowerCase());
      ids.push(id);
      await send('liam', { '@context': AS, id, type, actor: liam.id, object: `${s.url}/statuses/1`, content: '🙂' });
    }
    // Verified and acknowledged, but not kept: a remote server cannot fill our queue with activities we ignore.
    const rows = (await s.app.db.pool.query('SELECT 1 FROM inbox_jobs WHERE activity_id = ANY($1)', [ids])).rows;
    assert.equal(rows.length, 0);
    const lid = await idOf('liam');
    assert.equal(await count('SELECT count(*) AS n FROM follows WHERE account_id = $1 OR target_account_id = $1', [lid]), 0);
  });

  it('answers 404 to a POST to the inbox of a member that does not exist', async () => {
    const r = await peer.signedPost(`${s.url}/users/nobody/inbox`, followActivity('carol'), { actor: 'carol' });
    assert.equal(r.status, 404);
  });

  it('answers 400 to an activity whose id is on another origin than its actor, and stores nothing', async () => {
    const before = await count('SELECT count(*) AS n FROM inbox_jobs');
    const activity = { ...followActivity('carol'), id: 'http://elsewhere.invalid/follows/1' };
    const r = await peer.signedPost(adminInbox, activity, { actor: 'carol' });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(typeof (r.body as Json)['error'], 'string');
    assert.equal(await count('SELECT count(*) AS n FROM inbox_jobs'), before);
  });
});
