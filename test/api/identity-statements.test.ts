// The identity-statement API (FEP-c390) over real HTTP: publishing a signed statement as the exact bytes sent,
// replacing by subject, the verifier's refusals as 422, the 16 KiB statement limit and the 64 KiB transport limit,
// media types, deleting by subject, the public list, and the OAuth scope rules of all three endpoints.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import type { JsonObject } from '../../src/identity/data-integrity.js';
import { REFUSALS, type Refusal } from '../../src/identity/refusals.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore, type LocalUser } from '../../src/store/users.js';
import { api, type ApiReply, raw } from '../support/api.js';
import type { CookieJar } from '../support/forms.js';
import { newIdentityKey, signStatement } from '../support/identity-statements.js';
import { appToken, registerApp, signIn, userToken, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PATH = '/api/v1/accounts/identity_statements';

const call = (s: TestServer, token: string | undefined, method: string, path: string, body?: string | Uint8Array, contentType = 'application/json') =>
  api(s.url, token, method, path, body === undefined ? undefined : raw(body, contentType));

/** The statement written by hand: keys in reverse order, odd spacing and line breaks, a 3-space indented proof. */
function unusual(st: JsonObject): string {
  const keys = Object.keys(st).reverse();
  return `{\n  ${keys.map((k) => `${JSON.stringify(k)} :  ${JSON.stringify(st[k], null, 3)}`).join(' ,\n\t')}\n}`;
}

const refused = (reason: Refusal) => ({ error: 'Invalid identity statement', error_description: REFUSALS[reason] });

describe('identity statement API', () => {
  let s: TestServer;
  let users: UserStore;
  let tokens: TokenStore;
  let aliceSession: CookieJar;
  let app: RegisteredApp;
  const password = 'member-password-1';
  let memberHash: Promise<string>;

  interface Member {
    readonly username: string;
    readonly id: string;
    readonly userId: string;
    /** The actor id from the member's actor document. */
    readonly actorId: string;
    /** read write:accounts */
    readonly token: string;
  }
  let alice: Member;
  let bob: Member;

  /** Members get their tokens straight from the store (sign-in is throttled per address); alice's come through OAuth. */
  async function member(username: string, existing?: LocalUser): Promise<Member> {
    const user = existing ?? (await users.create({ username, email: `${username}@example.test`, passwordHash: await memberHash, roleId: 0, approved: true }));
    const res = await fetch(`${s.url}/users/${username}`, { headers: { Accept: 'application/activity+json' } });
    assert.equal(res.status, 200);
    const actorId = ((await res.json()) as { id: string }).id;
    const m = { username, id: user.accountId, userId: user.userId, actorId, token: '' };
    return { ...m, token: await tokenFor(m, 'read write:accounts') };
  }
  const tokenFor = async (m: { username: string; userId: string }, scope: string): Promise<string> => {
    if (m.username === 'alice') return userToken(s.url, aliceSession, app, scope);
    return (await tokens.issue(app.id, m.userId, scope.split(' '))).token;
  };

  const listOf = async (m: Member): Promise<ApiReply> => {
    const r = await call(s, undefined, 'GET', `/api/v1/accounts/${m.id}/identity_statements`);
    assert.equal(r.status, 200);
    return r;
  };
  const publish = (m: Member, text: string, token = m.token) => call(s, token, 'POST', PATH, text);
  const remove = (m: Member, subject: unknown, token = m.token) => call(s, token, 'DELETE', PATH, JSON.stringify({ subject }));

  before(async () => {
    s = await startTestServer();
    users = new UserStore(s.app.db);
    tokens = new TokenStore(s.app.db);
    memberHash = hashPassword(password);
    app = await registerApp(s.url, { scopes: 'read write follow' });
    const aliceUser = await users.create({ username: 'alice', email: 'alice@example.test', passwordHash: await memberHash, roleId: 0, approved: true });
    aliceSession = await signIn(s.url, 'alice', password);
    [alice, bob] = await Promise.all([member('alice', aliceUser), member('bob')]);
  });
  after(async () => {
    await s?.stop();
  });

  describe('POST /api/v1/accounts/identity_statements', () => {
    it('publishes a signed statement and returns the list holding the posted bytes verbatim', async () => {
      const m = await member('pia');
      assert.equal(m.actorId, `${s.url}/users/pia`);
      const text = unusual(signStatement(newIdentityKey(), m.actorId));
      const r = await publish(m, text);
      assert.equal(r.status, 200, r.text);
      assert.match(r.type ?? '', /^application\/json/);
      assert.equal(r.text, `[${text}]`);
      const listed = await listOf(m);
      assert.equal(listed.text, `[${text}]`);
    });

    it('accepts both suites and both verification method forms', async () => {
      const m = await member('quin');
      const texts = [
        JSON.stringify(signStatement(newIdentityKey(), m.actorId, { fragment: true })),
        JSON.stringify(signStatement(newIdentityKey(), m.actorId, { cryptosuite: 'jcs-eddsa-2022' })),
        JSON.stringify(signStatement(newIdentityKey(), m.actorId, { cryptosuite: 'jcs-eddsa-2022', fragment: true, extra: { note: 'ünïcode ✓' } })),
      ];
      for (const t of texts) assert.equal((await publish(m, t)).status, 200, t);
      assert.equal((await listOf(m)).text, `[${texts.join(',')}]`);
    });

    it('replaces the statement with the same subject in place, keeping the count', async () => {
      const m = await member('rita');
      const [k1, k2] = [newIdentityKey(), newIdentityKey()];
      const first = JSON.stringify(signStatement(k1, m.actorId, { extra: { version: 1 } }));
      const other = JSON.stringify(signStatement(k2, m.actorId));
      assert.equal((await publish(m, first)).status, 200);
      assert.equal((await publish(m, other)).status, 200);
      const second = unusual(signStatement(k1, m.actorId, { extra: { version: 2 } }));
      const r = await publish(m, second);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.length, 2);
      assert.equal(r.text, `[${second},${other}]`, 'the new document, in the old one’s place');
      assert.equal((await listOf(m)).text, r.text);
    });

    it('refuses a statement naming another member’s actor with 422 actor_mismatch', async () => {
      const r = await publish(alice, JSON.stringify(signStatement(newIdentityKey(), bob.actorId)));
      assert.equal(r.status, 422);
      assert.deepEqual(r.body, refused('actor_mismatch'));
      assert.deepEqual((await listOf(alice)).body, []);
      assert.deepEqual((await listOf(bob)).body, []);
    });

    it('refuses invalid statements with 422 and the verifier’s reason, storing nothing', async () => {
      const key = newIdentityKey();
      const good = signStatement(key, alice.actorId);
      const proof = good['proof'] as JsonObject;
      const cases: [string, string, Refusal][] = [
        ['not JSON', '{"type": ', 'malformed_json'],
        ['an empty body', '', 'malformed_json'],
        ['invalid UTF-8', `{"type":"\xff"}`, 'malformed_json'],
        ['an array', `[${JSON.stringify(good)}]`, 'malformed_statement'],
        ['a wrong type', JSON.stringify({ ...good, type: 'Note' }), 'wrong_type'],
        ['a non-Ed25519 did:key', JSON.stringify({ ...good, subject: 'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme' }), 'subject_not_ed25519'],
        ['a proof set', JSON.stringify({ ...good, proof: [proof] }), 'proof_set_unsupported'],
        ['another cryptosuite', JSON.stringify({ ...good, proof: { ...proof, cryptosuite: 'eddsa-rdfc-2022' } }), 'cryptosuite_unsupported'],
        ['the authentication purpose', JSON.stringify({ ...good, proof: { ...proof, proofPurpose: 'authentication' } }), 'proof_purpose_mismatch'],
        ['a changed signed field', JSON.stringify({ ...good, extra: 'added after signing' }), 'signature_invalid'],
        ['an expired proof', JSON.stringify(signStatement(key, alice.actorId, { expires: '2020-01-01T00:00:00Z' })), 'expired'],
        ['a lone surrogate', JSON.stringify(signStatement(key, alice.actorId)).replace(/}$/, ',"x":"\\ud800"}'), 'jcs_failed'],
        // JSON.parse keeps the last alsoKnownAs (the signed one); a first-wins reader would see another actor.
        ['a repeated property', JSON.stringify(good).replace(/^{/, `{"alsoKnownAs":"${bob.actorId}",`), 'duplicate_keys'],
      ];
      for (const [what, text, reason] of cases) {
        const body = what === 'invalid UTF-8' ? Buffer.from(text, 'latin1') : text;
        const r = await call(s, alice.token, 'POST', PATH, body);
        assert.equal(r.status, 422, what);
        assert.deepEqual(r.body, refused(reason), what);
      }
      assert.deepEqual((await listOf(alice)).body, []);
    });

    it('measures the 16 KiB limit on the received bytes: 16384 accepted, 16385 refused as too large', async () => {
      const m = await member('sam');
      const pad = (text: string, size: number) => text + ' '.repeat(size - Buffer.byteLength(text));
      const exact = pad(JSON.stringify(signStatement(newIdentityKey(), m.actorId, { extra: { note: 'é'.repeat(100) } })), 16384);
      assert.equal(Buffer.byteLength(exact), 16384);
      const ok = await publish(m, exact);
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.text, `[${exact}]`);
      const over = pad(JSON.stringify(signStatement(newIdentityKey(), m.actorId)), 16385);
      const r = await publish(m, over);
      assert.equal(r.status, 422);
      assert.deepEqual(r.body, refused('too_large'));
      assert.equal((await listOf(m)).text, `[${exact}]`);
    });

    it('answers 413 to a body over 64 KiB, with or without a Content-Length', async () => {
      const big = JSON.stringify(signStatement(newIdentityKey(), alice.actorId)) + ' '.repeat(64 * 1024);
      const r = await publish(alice, big);
      assert.equal(r.status, 413);
      assert.equal(r.body.error, 'Request entity too large');
      const bytes = new TextEncoder().encode(big);
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 8192) c.enqueue(bytes.slice(i, i + 8192));
          c.close();
        },
      });
      const chunked = await fetch(s.url + PATH, {
        method: 'POST',
        headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      assert.equal(chunked.status, 413);
      assert.equal(((await chunked.json()) as { error: string }).error, 'Request entity too large');
      assert.deepEqual((await listOf(alice)).body, []);
    });

    it('accepts only a JSON body: form-encoded and plain text get 415', async () => {
      const text = JSON.stringify(signStatement(newIdentityKey(), alice.actorId));
      const form = await call(s, alice.token, 'POST', PATH, new URLSearchParams({ statement: text }).toString(), 'application/x-www-form-urlencoded');
      assert.equal(form.status, 415);
      assert.equal(form.body.error, 'Unsupported media type');
      assert.equal((await call(s, alice.token, 'POST', PATH, text, 'text/plain')).status, 415);
      assert.deepEqual((await listOf(alice)).body, []);
    });

    it('needs a member token with write:accounts: none or invalid 401, read-only 403, app token 422', async () => {
      const text = JSON.stringify(signStatement(newIdentityKey(), alice.actorId));
      assert.equal((await call(s, undefined, 'POST', PATH, text)).status, 401);
      assert.equal((await publish(alice, text, 'not-a-token')).status, 401);
      for (const scope of ['read', 'write:statuses']) {
        const r = await publish(alice, text, await tokenFor(alice, scope));
        assert.equal(r.status, 403, scope);
        assert.deepEqual(r.body, { error: 'This action is outside the authorized scopes' }, scope);
      }
      const appOnly = await call(s, await appToken(s.url, app, 'read write'), 'POST', PATH, text);
      assert.equal(appOnly.status, 422);
      assert.deepEqual(appOnly.body, { error: 'This method requires an authenticated user' });
      const appWithoutScope = await call(s, await appToken(s.url, app, 'read'), 'POST', PATH, text);
      assert.equal(appWithoutScope.status, 403);
      assert.deepEqual((await listOf(alice)).body, [], 'none of them stored anything');
      const broad = await publish(alice, text, await tokenFor(alice, 'write'));
      assert.equal(broad.status, 200, 'write covers write:accounts');
      assert.equal((await remove(alice, JSON.parse(text).subject)).status, 200);
    });
  });

  describe('DELETE /api/v1/accounts/identity_statements', () => {
    it('removes the statement with that subject and returns the remaining ones', async () => {
      const m = await member('tess');
      const keys = [newIdentityKey(), newIdentityKey(), newIdentityKey()];
      const texts = keys.map((k) => unusual(signStatement(k, m.actorId)));
      for (const t of texts) assert.equal((await publish(m, t)).status, 200);
      const r = await remove(m, keys[1]!.did);
      assert.equal(r.status, 200);
      assert.equal(r.text, `[${texts[0]},${texts[2]}]`);
      assert.equal((await listOf(m)).text, r.text);
      const last = await remove(m, keys[0]!.did);
      assert.equal(last.text, `[${texts[2]}]`);
    });

    it('answers an unknown subject with the list unchanged', async () => {
      const m = await member('uma');
      const text = JSON.stringify(signStatement(newIdentityKey(), m.actorId));
      await publish(m, text);
      const r = await remove(m, newIdentityKey().did);
      assert.equal(r.status, 200);
      assert.equal(r.text, `[${text}]`);
      assert.equal((await listOf(m)).text, `[${text}]`);
    });

    it('refuses a malformed body with 422 and removes nothing', async () => {
      const m = await member('vic');
      const key = newIdentityKey();
      const text = JSON.stringify(signStatement(key, m.actorId));
      await publish(m, text);
      const bodies = [
        '{}',
        '{"subject": 5}',
        JSON.stringify({ subject: 'did:web:example.com' }),
        JSON.stringify({ subject: key.did.slice('did:key:'.length) }),
        '[]',
        'null',
      ];
      for (const body of bodies) {
        const r = await call(s, m.token, 'DELETE', PATH, body);
        assert.equal(r.status, 422, body);
        assert.equal(typeof r.body.error, 'string', body);
      }
      assert.equal((await call(s, m.token, 'DELETE', PATH)).status, 422, 'no body at all');
      const broken = await call(s, m.token, 'DELETE', PATH, '{"subject":');
      assert.equal(broken.status, 422, 'unparsable JSON');
      assert.deepEqual(broken.body, { error: 'Validation failed: the body must be a JSON object with a subject' });
      assert.equal((await listOf(m)).text, `[${text}]`);
    });

    it('needs a member token with write:accounts: none or invalid 401, read-only 403, app token 422', async () => {
      const m = await member('wes');
      const key = newIdentityKey();
      const text = JSON.stringify(signStatement(key, m.actorId));
      await publish(m, text);
      assert.equal((await call(s, undefined, 'DELETE', PATH, JSON.stringify({ subject: key.did }))).status, 401);
      assert.equal((await remove(m, key.did, 'not-a-token')).status, 401);
      assert.equal((await remove(m, key.did, await tokenFor(m, 'read'))).status, 403);
      const appOnly = await remove(m, key.did, await appToken(s.url, app, 'read write'));
      assert.equal(appOnly.status, 422);
      assert.deepEqual(appOnly.body, { error: 'This method requires an authenticated user' });
      assert.equal((await listOf(m)).text, `[${text}]`, 'still there');
      assert.equal((await remove(m, key.did, await tokenFor(m, 'write:accounts'))).text, '[]');
    });

    it('removes only the caller’s own statement, never another member’s', async () => {
      const [m1, m2] = [await member('xena'), await member('yuri')];
      const key = newIdentityKey();
      const t1 = JSON.stringify(signStatement(key, m1.actorId));
      const t2 = JSON.stringify(signStatement(key, m2.actorId));
      await publish(m1, t1);
      await publish(m2, t2);
      assert.equal((await remove(m2, key.did)).text, '[]');
      assert.equal((await listOf(m1)).text, `[${t1}]`);
    });
  });

  describe('GET /api/v1/accounts/:id/identity_statements', () => {
    let zoe: Member;
    let text: string;
    before(async () => {
      zoe = await member('zoe');
      text = unusual(signStatement(newIdentityKey(), zoe.actorId));
      assert.equal((await publish(zoe, text)).status, 200);
    });
    const path = () => `/api/v1/accounts/${zoe.id}/identity_statements`;

    it('lists an account’s statements without a token', async () => {
      const r = await call(s, undefined, 'GET', path());
      assert.equal(r.status, 200);
      assert.match(r.type ?? '', /^application\/json/);
      assert.equal(r.text, `[${text}]`);
    });

    it('lists another member’s statements for a token with read or read:accounts', async () => {
      for (const scope of ['read', 'read:accounts']) {
        const r = await call(s, await tokenFor(alice, scope), 'GET', path());
        assert.equal(r.status, 200, scope);
        assert.equal(r.text, `[${text}]`, scope);
      }
      const own = await call(s, zoe.token, 'GET', path());
      assert.equal(own.text, `[${text}]`);
    });

    it('refuses an invalid token with 401 and a token without a read scope with 403', async () => {
      assert.equal((await call(s, 'not-a-token', 'GET', path())).status, 401);
      const r = await call(s, await tokenFor(alice, 'write'), 'GET', path());
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, { error: 'This action is outside the authorized scopes' });
    });

    it('answers an empty list for a member without statements and 404 for unknown accounts', async () => {
      assert.equal((await call(s, undefined, 'GET', `/api/v1/accounts/${bob.id}/identity_statements`)).text, '[]');
      for (const id of ['999999999', 'nobody']) {
        const r = await call(s, undefined, 'GET', `/api/v1/accounts/${id}/identity_statements`);
        assert.equal(r.status, 404, id);
        assert.deepEqual(r.body, { error: 'Record not found' }, id);
      }
    });
  });
});
