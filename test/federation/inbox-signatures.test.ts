// Stoa's inbox against POSTs signed by a hand-written peer (test/support/fake-actor-peer.ts): every way of breaking a
// draft-cavage signature is refused with 401 before anything is stored, and the forms real servers send (rsa-sha256,
// hs2019, the Authorization header, rotated keys, separate key documents) are accepted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeActorPeer, type FakePeer, type PostResult, type SignedPostOptions } from '../support/fake-actor-peer.js';
import { adminToken, api } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const FED_ENV = { BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback', DELIVERY_RETRY_BASE_MS: '200' };
const HOUR = 3_600_000;
const AS = 'https://www.w3.org/ns/activitystreams';
/** Signed headers without Date: the signature's own `(created)` (and `(expires)`) must carry its freshness. */
const CREATED = ['(request-target)', '(created)', 'host', 'digest'];
const CREATED_EXPIRES = ['(request-target)', '(created)', '(expires)', 'host', 'digest'];
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('inbox signatures', () => {
  let s: TestServer;
  let peer: FakePeer;
  /** Another origin, for the forged actor document. */
  let other: FakePeer;
  let admin: string;
  let sharedInbox: string;

  const count = async (sql: string, params: unknown[] = []): Promise<number> => Number((await s.app.db.pool.query<{ n: string }>(sql, params)).rows[0]!.n);
  const jobs = () => count('SELECT count(*) AS n FROM inbox_jobs');
  /** Follows and follow requests recorded for one Follow activity (their uri is its id). */
  const followsMadeBy = (activityId: string) =>
    count('SELECT (SELECT count(*) FROM follows WHERE uri = $1) + (SELECT count(*) FROM follow_requests WHERE uri = $1) AS n', [activityId]);
  const follow = (actor: string, id = peer.newId()) => ({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id,
    type: 'Follow',
    actor: peer.actor(actor).id,
    object: admin,
  });

  before(async () => {
    [s, peer, other] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer(), startFakeActorPeer()]);
    admin = `${s.url}/users/admin`;
    sharedInbox = `${s.url}/inbox`;
    await Promise.all([
      peer.addActor('alice'),
      peer.addActor('eve'),
      peer.addActor('yves'),
      peer.addActor('bob'),
      peer.addActor('rotor'),
      peer.addActor('gts', { keyDocument: 'gotosocial' }),
      peer.addActor('misskey', { keyDocument: 'key' }),
      peer.addActor('mallory', { claimOrigin: other.url }),
    ]);
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop(), other?.stop()]);
  });

  describe('accepted', () => {
    const accepted = async (actor: string, opts: Omit<SignedPostOptions, 'actor'> = {}, target = `${admin}/inbox`) => {
      const activity = follow(actor);
      const before = await jobs();
      const r = await peer.signedPost(target, activity, { actor, ...opts });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      assert.equal(await jobs(), before + 1);
      assert.equal(await count('SELECT count(*) AS n FROM inbox_jobs WHERE activity_id = $1', [activity.id]), 1);
    };

    it('accepts a POST signed with rsa-sha256 over (request-target) host date digest', async () => {
      await accepted('alice');
    });

    it('accepts a POST to the shared inbox', async () => {
      await accepted('alice', {}, sharedInbox);
    });

    it('accepts algorithm="hs2019"', async () => {
      await accepted('alice', { algorithm: 'hs2019' });
    });

    it('accepts hs2019 with (created) signed instead of Date', async () => {
      await accepted('alice', { algorithm: 'hs2019', created: true, headers: ['(request-target)', '(created)', 'host', 'digest'] });
    });

    it('accepts (created) and (expires) signed instead of Date while the signature has not expired', async () => {
      const now = nowSeconds();
      await accepted('alice', { algorithm: 'hs2019', created: now, expires: now + 300, headers: CREATED_EXPIRES });
      // Eleven hours of clock difference are within the allowed skew, as they are for Date.
      await accepted('alice', { algorithm: 'hs2019', created: now - 11 * 3600, headers: CREATED });
    });

    it('accepts the signature in the Authorization: Signature form', async () => {
      await accepted('alice', { form: 'authorization' });
    });

    it('accepts a key rotated since Stoa cached it, after refetching the actor once', async () => {
      await accepted('rotor');
      const actorGets = () => peer.requests.filter((r) => r.method === 'GET' && r.path === '/users/rotor').length;
      const fetchedBefore = actorGets();
      await peer.rotateKey('rotor');
      await accepted('rotor');
      assert.equal(actorGets(), fetchedBefore + 1);
      // The new key is now the stored one: the next POST needs no fetch.
      await accepted('rotor');
      assert.equal(actorGets(), fetchedBefore + 1);
    });

    it('accepts a key published in a GoToSocial-style key document with an owner', async () => {
      await accepted('gts');
      const stored = await s.app.db.pool.query('SELECT public_key_id FROM accounts WHERE uri = $1', [peer.actor('gts').id]);
      assert.equal(stored.rows[0]!.public_key_id, `${peer.url}/users/gts/main-key`);
    });

    it('accepts a key published in a bare Key document (Misskey style)', async () => {
      await accepted('misskey');
    });
  });

  describe('refused with 401, nothing stored', () => {
    /** Every refusal is a JSON error saying why (`reason` matches its error_description), stores no job and makes
     *  no follow. The reason is checked so that each case fails for the fault it injects and not another. */
    const refused = async (label: string, reason: RegExp, send: (activity: ReturnType<typeof follow>) => Promise<PostResult>, actor = 'eve') => {
      const activity = follow(actor);
      const before = await jobs();
      const r = await send(activity);
      assert.equal(r.status, 401, `${label}: ${r.status} ${JSON.stringify(r.body)}`);
      assert.match(r.contentType, /^application\/json/);
      const body = r.body as { error?: unknown; error_description?: unknown };
      assert.equal(typeof body.error, 'string', label);
      assert.match(String(body.error_description), reason, label);
      assert.equal(await jobs(), before, label);
      assert.equal(await count('SELECT count(*) AS n FROM inbox_jobs WHERE activity_id = $1', [activity.id]), 0, label);
      assert.equal(await followsMadeBy(activity.id), 0, label);
    };
    const inbox = () => `${admin}/inbox`;

    it('refuses a POST without a Signature header', async () => {
      await refused('unsigned', /missing_signature/, (a) => peer.signedPost(inbox(), a, { actor: 'eve', rawSignature: null }));
    });

    it('refuses a malformed Signature header', async () => {
      for (const raw of ['garbage', 'keyId="x",signature=', `keyId="${peer.actor('eve').keyId}",headers="date"`, 'keyId="a" signature="AAAA"']) {
        await refused(`malformed ${raw}`, /malformed_signature/, (a) => peer.signedPost(inbox(), a, { actor: 'eve', rawSignature: raw }));
      }
    });

    it('refuses an algorithm other than rsa-sha256 and hs2019', async () => {
      for (const algorithm of ['rsa-sha1', 'hmac-sha256', 'ed25519']) {
        await refused(algorithm, /unsupported_algorithm/, (a) => peer.signedPost(inbox(), a, { actor: 'eve', algorithm }));
      }
    });

    it('refuses a signature whose headers= leaves out digest, host, (request-target) or date', async () => {
      const all = ['(request-target)', 'host', 'date', 'digest'];
      for (const missing of all) {
        await refused(`without ${missing}`, new RegExp(`missing_signed_header: ${missing.replace(/[()]/g, '\\$&')}`), (a) =>
          peer.signedPost(inbox(), a, { actor: 'eve', headers: all.filter((h) => h !== missing) }),
        );
      }
    });

    it('refuses a POST without a Digest header', async () => {
      await refused('no digest', /missing_signed_header: digest/, (a) =>
        peer.signedPost(inbox(), a, { actor: 'eve', digest: null, headers: ['(request-target)', 'host', 'date'] }),
      );
    });

    it('refuses a Date 13 hours old or 13 hours ahead', async () => {
      for (const offset of [-13 * HOUR, 13 * HOUR]) {
        await refused(`date ${offset}`, /stale_date/, (a) => peer.signedPost(inbox(), a, { actor: 'eve', date: new Date(Date.now() + offset) }));
      }
    });

    it('refuses a (created) 13 hours old or 13 hours ahead when Date is not signed (a replayed signature)', async () => {
      // The Date header sent alongside is current but unsigned, so only (created) can date the signature.
      for (const offset of [-13 * 3600, 13 * 3600]) {
        await refused(`created ${offset}`, /stale_date/, (a) =>
          peer.signedPost(inbox(), a, { actor: 'eve', algorithm: 'hs2019', created: nowSeconds() + offset, headers: CREATED }),
        );
      }
    });

    it('refuses a signature whose (expires) has passed, though its (created) is recent', async () => {
      const now = nowSeconds();
      await refused('expired', /stale_date: expired/, (a) =>
        peer.signedPost(inbox(), a, { actor: 'eve', algorithm: 'hs2019', created: now - 120, expires: now - 60, headers: CREATED_EXPIRES }),
      );
    });

    it('refuses a Digest that does not match the body', async () => {
      await refused('digest mismatch', /digest_mismatch/, (a) =>
        peer.signedPost(inbox(), a, { actor: 'eve', digest: 'SHA-256=' + Buffer.alloc(32).toString('base64') }),
      );
    });

    it('refuses a body changed after signing even when its Digest is recomputed', async () => {
      await refused('tampered', /does not verify/, (a) =>
        peer.signedPost(inbox(), a, { actor: 'eve', tamperBody: (b) => b.replace('"Follow"', '"Follow" ,"name":"x"') }),
      );
    });

    it('refuses an activity whose actor is not the owner of the signing key', async () => {
      await refused('wrong owner', /does not belong to the activity actor/, (a) => peer.signedPost(inbox(), a, { actor: 'yves' }), 'eve');
      // yves's key is fine for yves's own activities.
      const own = await peer.signedPost(inbox(), follow('yves'), { actor: 'yves' });
      assert.equal(own.status, 202);
    });

    it('refuses altered signature bytes', async () => {
      await refused('corrupt', /does not verify/, (a) => peer.signedPost(inbox(), a, { actor: 'eve', corruptSignature: true }));
    });

    it('refuses a keyId that cannot be fetched', async () => {
      await refused('404 key', /could not be fetched/, (a) => peer.signedPost(inbox(), a, { actor: 'eve', keyId: `${peer.url}/users/nobody#main-key` }));
    });

    it('refuses a signature made for another request target', async () => {
      await refused('other target', /does not verify/, (a) => peer.signedPost(inbox(), a, { actor: 'eve', signedTarget: '/inbox' }));
    });

    it('refuses an actor document served from one origin that claims an id on another, and does not store it', async () => {
      const forged = peer.actor('mallory');
      assert.ok(forged.id.startsWith(other.url) && forged.keyId.startsWith(other.url));
      // The keyId names where the document is served; the document says it is an actor (and key) of the other origin.
      const servedKey = `${peer.url}/users/mallory#main-key`;
      const activity = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${other.url}/activities/1`,
        type: 'Follow',
        actor: forged.id,
        object: admin,
      };
      const before = await jobs();
      const r = await peer.signedPost(`${admin}/inbox`, activity, { actor: 'mallory', keyId: servedKey });
      assert.equal(r.status, 401, JSON.stringify(r.body));
      assert.match(String((r.body as { error_description?: unknown }).error_description), /could not be fetched/);
      assert.equal(await jobs(), before);
      assert.ok(
        peer.requests.some((q) => q.method === 'GET' && q.path === '/users/mallory'),
        'Stoa fetched the key',
      );
      assert.equal(await count('SELECT count(*) AS n FROM accounts WHERE uri = $1 OR public_key_id IN ($2, $3)', [forged.id, forged.keyId, servedKey]), 0);
    });
  });

  describe('a Delete signed by one actor about another', () => {
    it('is refused at the route when it names the other actor as its actor, and the other actor and its post stay', async () => {
      const token = await adminToken(s);
      const bob = peer.actor('bob');
      const note = {
        id: peer.newId('notes'),
        type: 'Note',
        attributedTo: bob.id,
        to: [`${AS}#Public`],
        cc: [admin],
        content: '<p>mine</p>',
        tag: [{ type: 'Mention', href: admin }],
      };
      const created = await peer.signedPost(
        sharedInbox,
        { '@context': AS, id: `${note.id}/activity`, type: 'Create', actor: bob.id, to: note.to, cc: note.cc, object: note },
        { actor: 'bob' },
      );
      assert.equal(created.status, 202);
      const bobId: string = (await api(s.url, token, 'GET', `/api/v1/accounts/lookup?acct=bob@${peer.host}`)).body.id;
      let statusId = '';
      await eventually(async () => {
        const posts = (await api(s.url, token, 'GET', `/api/v1/accounts/${bobId}/statuses`)).body as { id: string; uri: string }[];
        statusId = posts.find((x) => x.uri === note.id)?.id ?? '';
        assert.ok(statusId, "bob's post arrived");
      });
      const stillThere = async (label: string) => {
        assert.equal((await api(s.url, token, 'GET', `/api/v1/statuses/${statusId}`)).status, 200, `${label}: the post is there`);
        const account = await api(s.url, token, 'GET', `/api/v1/accounts/${bobId}`);
        assert.equal(account.status, 200, `${label}: the account is there`);
        assert.equal(await count('SELECT count(*) AS n FROM accounts WHERE uri = $1 AND deleted_at IS NULL', [bob.id]), 1, label);
      };

      // Eve signs Deletes that claim to be Bob's: of Bob himself and of his post.
      for (const object of [bob.id, note.id]) {
        const forged = { '@context': AS, id: peer.newId('deletes'), type: 'Delete', actor: bob.id, object };
        const before = await jobs();
        const r = await peer.signedPost(sharedInbox, forged, { actor: 'eve' });
        assert.equal(r.status, 401, `Delete of ${object}: ${r.status} ${JSON.stringify(r.body)}`);
        assert.match(String((r.body as { error_description?: unknown }).error_description), /does not belong to the activity actor/);
        assert.equal(await jobs(), before);
        assert.equal(await count('SELECT count(*) AS n FROM inbox_jobs WHERE activity_id = $1', [forged.id]), 0);
        await stillThere(`forged Delete of ${object}`);
      }

      // Eve's own Deletes of Bob and of Bob's post are hers to send, but delete nothing of his once processed.
      for (const object of [bob.id, note.id]) {
        const own = { '@context': AS, id: peer.newId('deletes'), type: 'Delete', actor: peer.actor('eve').id, object };
        assert.equal((await peer.signedPost(sharedInbox, own, { actor: 'eve' })).status, 202);
        await eventually(async () =>
          assert.equal(await count('SELECT count(*) AS n FROM inbox_jobs WHERE activity_id = $1 AND processed_at IS NOT NULL', [own.id]), 1),
        );
        await stillThere(`eve's Delete of ${object}`);
      }

      // Bob's own Delete of the post removes it: what the checks above look for is what a deletion changes.
      const mine = { '@context': AS, id: peer.newId('deletes'), type: 'Delete', actor: bob.id, object: note.id };
      assert.equal((await peer.signedPost(sharedInbox, mine, { actor: 'bob' })).status, 202);
      await eventually(async () => assert.equal((await api(s.url, token, 'GET', `/api/v1/statuses/${statusId}`)).status, 404));
    });
  });
});
