// Identity statements (FEP-c390) across servers: a member's publish and delete reach a second Stoa server and a
// Fedify peer as actor Updates through the delivery actors, and the second server shows the statement through its
// own API; remote actors' statements are verified when fetched or updated, bad ones dropped without losing the actor.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyIdentityStatement } from '../../src/identity/identity-statement.js';
import { RawText, startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { startFedifyPeer, type FedifyPeer } from '../support/fedify-peer.js';
import { newIdentityKey, signStatement } from '../support/identity-statements.js';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';

const statementsIn = (attachment: Json): Json[] =>
  (Array.isArray(attachment) ? attachment : [attachment]).filter((x: Json) => x?.type === 'VerifiableIdentityStatement');

describe('identity statements between two Stoa servers and a Fedify peer', () => {
  let a: TestServer;
  let b: TestServer;
  let peer: FedifyPeer;
  let tokenA: string;
  let tokenB: string;
  let adminA: string; // A's admin actor id
  let aOnB: string; // A's admin as B's account id

  before(async () => {
    [a, b, peer] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV), startFedifyPeer()]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    adminA = `${a.url}/users/admin`;
    // B's admin and the Fedify peer's alice follow A's admin: both are connected peers of A.
    const found = await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(a.url).host}`);
    assert.equal(found.status, 200, found.text);
    aOnB = found.body.id;
    assert.equal((await api(b.url, tokenB, 'POST', `/api/v1/accounts/${aOnB}/follow`)).status, 200);
    const followId = await peer.follow('alice', adminA);
    await peer.waitFor((r) => r.type === 'Accept' && r.object === followId);
    await eventually(async () => {
      const rel = await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`);
      assert.equal(rel.body[0].following, true);
    });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop(), peer?.stop()]);
  });

  it('a published statement reaches the second server, which shows it through its GET endpoint', async () => {
    const key = newIdentityKey();
    const statement = signStatement(key, adminA);
    const posted = await api(a.url, tokenA, 'POST', '/api/v1/accounts/identity_statements', statement);
    assert.equal(posted.status, 200, posted.text);
    await eventually(async () => {
      const seen = await api(b.url, undefined, 'GET', `/api/v1/accounts/${aOnB}/identity_statements`);
      assert.equal(seen.status, 200);
      assert.deepEqual(seen.body, [statement]);
    });
    // And at the Fedify peer: an Update whose actor carries the statement, which verifies against A's actor id.
    const update = await peer.waitFor((r) => r.type === 'Update' && statementsIn((r.raw as Json)?.object?.attachment).some((s: Json) => s.subject === key.did));
    const carried = statementsIn((update.raw as Json).object.attachment).find((s: Json) => s.subject === key.did);
    assert.deepEqual(carried, statement);
    assert.equal((update.raw as Json).actor, adminA);
    assert.deepEqual(verifyIdentityStatement(JSON.stringify(carried), adminA, Date.now()), { ok: true, subject: key.did, expiresAtMs: null });
    assert.deepEqual(peer.errors, []);
  });

  it('the second server shows the statement in the exact text the member posted, carried by the Update', async () => {
    const key = newIdentityKey();
    const statement = signStatement(key, adminA, { extra: { note: 'caf\u00e9' } });
    // Key order, spacing and escapes that JSON.stringify would all write differently: only the original text
    // travelling in the Update (not a re-serialised copy) can give these bytes back on the second server.
    const text = `{ "proof" : ${JSON.stringify(statement['proof'], null, 3)},\n\t"note": "caf\\u00e9", "subject":${JSON.stringify(key.did)} , "alsoKnownAs":${JSON.stringify(adminA).replaceAll('/', '\\/')}, "type" :"VerifiableIdentityStatement"}`;
    assert.deepEqual(JSON.parse(text), statement);
    const posted = await fetch(`${a.url}/api/v1/accounts/identity_statements`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenA}`, 'Content-Type': 'application/json' },
      body: text,
    });
    const reply = await posted.text();
    assert.equal(posted.status, 200, reply);
    assert.ok(reply.includes(text));
    await eventually(async () => {
      const seen = await api(b.url, undefined, 'GET', `/api/v1/accounts/${aOnB}/identity_statements`);
      assert.ok(seen.text.includes(text), seen.text);
    });
    const update = await peer.waitFor((r) => r.type === 'Update' && statementsIn((r.raw as Json)?.object?.attachment).some((s: Json) => s.subject === key.did));
    assert.deepEqual(
      statementsIn((update.raw as Json).object.attachment).find((s: Json) => s.subject === key.did),
      statement,
    );
  });

  it('posting the same statement again announces nothing; a changed one is announced once', async () => {
    const key = newIdentityKey();
    const statement = signStatement(key, adminA);
    assert.equal((await api(a.url, tokenA, 'POST', '/api/v1/accounts/identity_statements', statement)).status, 200);
    await peer.waitFor((r) => r.type === 'Update' && statementsIn((r.raw as Json).object.attachment).some((s: Json) => s.subject === key.did));
    const pending = async () => Number((await a.app.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM deliveries')).rows[0]!.n);
    await eventually(async () => assert.equal(await pending(), 0));
    const mark = peer.received.length;
    assert.equal((await api(a.url, tokenA, 'POST', '/api/v1/accounts/identity_statements', statement)).status, 200);
    const changed = signStatement(key, adminA, { created: '2025-06-01T00:00:00Z' });
    assert.equal((await api(a.url, tokenA, 'POST', '/api/v1/accounts/identity_statements', changed)).status, 200);
    await peer.waitFor(
      (r) =>
        r.type === 'Update' &&
        statementsIn((r.raw as Json).object.attachment).some((s: Json) => s.subject === key.did && s.proof.created === '2025-06-01T00:00:00Z'),
    );
    await eventually(async () => assert.equal(await pending(), 0));
    assert.equal(peer.received.slice(mark).filter((r) => r.type === 'Update').length, 1);
  });

  it('a deleted statement disappears on the second server and the Fedify peer gets an Update without it', async () => {
    const key = newIdentityKey();
    assert.equal((await api(a.url, tokenA, 'POST', '/api/v1/accounts/identity_statements', signStatement(key, adminA))).status, 200);
    await eventually(async () => {
      const seen = await api(b.url, undefined, 'GET', `/api/v1/accounts/${aOnB}/identity_statements`);
      assert.ok(seen.body.some((s: Json) => s.subject === key.did));
    });
    const before = peer.received.length;
    const removed = await api(a.url, tokenA, 'DELETE', '/api/v1/accounts/identity_statements', { subject: key.did });
    assert.equal(removed.status, 200, removed.text);
    assert.ok(!removed.body.some((s: Json) => s.subject === key.did));
    await eventually(async () => {
      const seen = await api(b.url, undefined, 'GET', `/api/v1/accounts/${aOnB}/identity_statements`);
      assert.ok(!seen.body.some((s: Json) => s.subject === key.did));
      assert.equal(seen.body.length, removed.body.length);
    });
    await eventually(() => {
      const later = peer.received.slice(before).filter((r) => r.type === 'Update');
      assert.ok(later.some((r) => !statementsIn((r.raw as Json).object.attachment).some((s: Json) => s.subject === key.did)));
    });
  });

  it('a server that first meets the actor afterwards gets its statements with the actor document', async () => {
    const c = await startTestServer(FED_ENV);
    try {
      const tokenC = await adminToken(c);
      const found = await api(c.url, tokenC, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(a.url).host}`);
      assert.equal(found.status, 200, found.text);
      const onA = await api(a.url, undefined, 'GET', '/api/v1/accounts/lookup?acct=admin');
      const expected = await api(a.url, undefined, 'GET', `/api/v1/accounts/${onA.body.id}/identity_statements`);
      assert.ok(expected.body.length >= 1);
      const seen = await api(c.url, undefined, 'GET', `/api/v1/accounts/${found.body.id}/identity_statements`);
      assert.deepEqual(seen.body, expected.body);
    } finally {
      await c.stop();
    }
  });
});

describe('identity statements of remote actors', () => {
  let s: TestServer;
  let peer: FakePeer;
  let token: string;
  /** The server's clock, moved by the expiry test; null follows real time. */
  let fixedNow: number | null = null;

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV, undefined, { clock: { now: () => fixedNow ?? Date.now() } }), startFakeActorPeer()]);
    token = await adminToken(s);
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  const lookup = async (name: string): Promise<string> => {
    const r = await api(s.url, token, 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`${name}@${peer.host}`)}`);
    assert.equal(r.status, 200, r.text);
    return r.body.id;
  };
  const statementsOf = async (id: string): Promise<Json[]> => (await api(s.url, undefined, 'GET', `/api/v1/accounts/${id}/identity_statements`)).body;

  it('keeps the valid statements of a fetched actor and drops bad ones without rejecting the actor', async () => {
    const id = `${peer.url}/users/carol`;
    const good = signStatement(newIdentityKey(), id);
    const legacy = signStatement(newIdentityKey(), id, { cryptosuite: 'jcs-eddsa-2022', fragment: true });
    const tampered = { ...signStatement(newIdentityKey(), id), extra: 'added after signing' };
    const otherActor = signStatement(newIdentityKey(), `${peer.url}/users/somebody-else`);
    const expired = signStatement(newIdentityKey(), id, { expires: '2020-01-01T00:00:00Z' });
    const goodKey = newIdentityKey();
    const first = signStatement(goodKey, id, { created: '2024-01-01T00:00:00Z' });
    const duplicate = signStatement(goodKey, id, { created: '2024-02-01T00:00:00Z' });
    await peer.addActor('carol', {
      attachment: [
        { type: 'PropertyValue', name: 'Site', value: 'https://carol.example' },
        good,
        tampered,
        otherActor,
        expired,
        legacy,
        'junk',
        null,
        first,
        duplicate,
      ],
    });
    const carol = await lookup('carol');
    assert.deepEqual(await statementsOf(carol), [good, legacy, first]);
    const account = await api(s.url, token, 'GET', `/api/v1/accounts/${carol}`);
    assert.deepEqual(
      account.body.fields.map((f: Json) => f.name),
      ['Site'],
    );
  });

  it('shows the statements in the text their server wrote, from a fetched document and from an Update', async () => {
    const id = `${peer.url}/users/fay`;
    // Key order, whitespace, escapes and a number form that JSON.stringify would all write differently; the
    // signature covers the canonical form, so the statement verifies as written.
    const written = (key = newIdentityKey()): string => {
      const st = signStatement(key, id, { extra: { weight: 1 } }) as Json;
      const aka = st.alsoKnownAs.replaceAll('/', '\\/');
      return `{ "proof": ${JSON.stringify(st.proof, null, 1)},\n  "weight" : 1.0, "subject":"${st.subject}", "alsoKnownAs":"${aka}", "type":"Verifiable\\u0049dentityStatement" }`;
    };
    const first = written();
    await peer.addActor('fay', { attachment: [{ type: 'PropertyValue', name: 'a', value: 'b' }, new RawText(first)] });
    const fay = await lookup('fay');
    const text = async (): Promise<string> => (await api(s.url, undefined, 'GET', `/api/v1/accounts/${fay}/identity_statements`)).text;
    assert.equal(await text(), `[${first}]`);

    const second = written();
    peer.actor('fay').attachment = [new RawText(second), new RawText(first)];
    const update = { '@context': AS, id: peer.newId('updates'), type: 'Update', actor: id, object: peer.document('fay') };
    assert.equal((await peer.signedPost(`${s.url}/users/admin/inbox`, update, { actor: 'fay' })).status, 202);
    await eventually(async () => assert.equal(await text(), `[${second},${first}]`));
  });

  it('stops showing a remote statement once its proof expires, without refetching the actor', async () => {
    const id = `${peer.url}/users/gus`;
    const expiresMs = Math.floor((Date.now() + 3_600_000) / 1000) * 1000;
    const lasting = signStatement(newIdentityKey(), id);
    const fleeting = signStatement(newIdentityKey(), id, { expires: new Date(expiresMs).toISOString().replace(/\.000Z$/, 'Z') });
    await peer.addActor('gus', { attachment: [fleeting, lasting] });
    const gus = await lookup('gus');
    assert.deepEqual(await statementsOf(gus), [fleeting, lasting]);
    // Only GETs of gus's document (or key): an earlier test's inbox work may still reach the peer meanwhile, and the
    // lookup's background fetch of gus's follower and following totals may land after this point.
    const gusRequests = () => peer.requests.filter((r) => r.method === 'GET' && /^\/users\/gus(?:\/main-key)?(?:[?#]|$)/.test(r.path)).length;
    const fetches = gusRequests();
    assert.ok(fetches >= 1, 'the lookup fetched the document these count');
    try {
      fixedNow = expiresMs - 1;
      assert.deepEqual(await statementsOf(gus), [fleeting, lasting]);
      fixedNow = expiresMs;
      assert.deepEqual(await statementsOf(gus), [lasting]);
    } finally {
      fixedNow = null;
    }
    assert.equal(gusRequests(), fetches, 'read from what was stored');
  });

  it('looks at no more than ten statements of one actor', async () => {
    const id = `${peer.url}/users/dan`;
    const many = Array.from({ length: 12 }, () => signStatement(newIdentityKey(), id));
    await peer.addActor('dan', { attachment: many });
    assert.deepEqual(await statementsOf(await lookup('dan')), many.slice(0, 10));
  });

  it('an actor Update replaces the stored statements with the verified ones it carries', async () => {
    const id = `${peer.url}/users/erin`;
    const before = signStatement(newIdentityKey(), id);
    await peer.addActor('erin', { attachment: [before] });
    const erin = await lookup('erin');
    assert.deepEqual(await statementsOf(erin), [before]);
    const after = signStatement(newIdentityKey(), id);
    peer.actor('erin').attachment = [after, { ...before, alsoKnownAs: `${peer.url}/users/mallory` }];
    const inbox = `${s.url}/users/admin/inbox`;
    const update = { '@context': AS, id: peer.newId('updates'), type: 'Update', actor: id, object: peer.document('erin') };
    const r = await peer.signedPost(inbox, update, { actor: 'erin' });
    assert.equal(r.status, 202);
    await eventually(async () => assert.deepEqual(await statementsOf(erin), [after]));
  });
});
