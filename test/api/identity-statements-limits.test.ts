// Identity statements (FEP-c390) beyond single requests: the limit of ten per account, expiry judged at read time
// with a moved clock, the actor document's attachment carrying the original JSON, and concurrent publishes that
// must never leave more than ten statements or two with one subject.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REFUSALS } from '../../src/identity/refusals.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';
import { api, type ApiReply, type Json, raw } from '../support/api.js';
import { newIdentityKey, signStatement, type IdentityKey } from '../support/identity-statements.js';
import { registerApp, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PATH = '/api/v1/accounts/identity_statements';
const HOUR = 3_600_000;

const call = (s: TestServer, token: string | undefined, method: string, path: string, body?: string) =>
  api(s.url, token, method, path, body === undefined ? undefined : raw(body));

describe('identity statement limits, expiry, actor document and concurrency', () => {
  let s: TestServer;
  let users: UserStore;
  let tokens: TokenStore;
  let app: RegisteredApp;
  /** The server's clock: tests move it. */
  let t = Date.now();

  interface Member {
    readonly username: string;
    readonly id: string;
    readonly actorId: string;
    readonly token: string;
  }

  async function member(username: string): Promise<Member> {
    const user = await users.create({ username, email: `${username}@example.test`, passwordHash: 'x', roleId: 0, approved: true });
    const actor = await fetch(`${s.url}/users/${username}`, { headers: { Accept: 'application/activity+json' } });
    assert.equal(actor.status, 200);
    const actorId = ((await actor.json()) as { id: string }).id;
    // Straight from the store: the OAuth flow is covered by identity-statements.test.ts, and sign-in is throttled.
    const { token } = await tokens.issue(app.id, user.userId, ['read', 'write:accounts']);
    return { username, id: user.accountId, actorId, token };
  }

  const publish = (m: Member, text: string) => call(s, m.token, 'POST', PATH, text);
  const remove = (m: Member, subject: string) => call(s, m.token, 'DELETE', PATH, JSON.stringify({ subject }));
  const listOf = async (m: Member): Promise<ApiReply> => {
    const r = await call(s, undefined, 'GET', `/api/v1/accounts/${m.id}/identity_statements`);
    assert.equal(r.status, 200, r.text);
    return r;
  };
  const subjects = async (m: Member): Promise<string[]> => (await listOf(m)).body.map((x: Json) => x.subject);
  const actorText = async (m: Member): Promise<string> => {
    const r = await fetch(`${s.url}/users/${m.username}`, { headers: { Accept: 'application/activity+json' } });
    assert.equal(r.status, 200);
    return r.text();
  };
  /** Publishes n statements with fresh keys; returns the keys in order. */
  const fill = async (m: Member, n: number): Promise<IdentityKey[]> => {
    const keys: IdentityKey[] = [];
    for (let i = 0; i < n; i++) {
      const key = newIdentityKey();
      const r = await publish(m, JSON.stringify(signStatement(key, m.actorId)));
      assert.equal(r.status, 200, r.text);
      keys.push(key);
    }
    return keys;
  };

  before(async () => {
    s = await startTestServer({}, undefined, { clock: { now: () => t } });
    users = new UserStore(s.app.db);
    tokens = new TokenStore(s.app.db);
    app = await registerApp(s.url, { scopes: 'read write' });
  });
  after(async () => {
    await s?.stop();
  });

  describe('ten statements per account', () => {
    it('refuses an eleventh subject with 422 and a message, and keeps the ten unchanged', async () => {
      const m = await member('ten');
      const keys = await fill(m, 10);
      const before = (await listOf(m)).text;
      assert.equal(JSON.parse(before).length, 10);
      const r = await publish(m, JSON.stringify(signStatement(newIdentityKey(), m.actorId)));
      assert.equal(r.status, 422);
      assert.equal(r.body.error, 'Too many identity statements');
      assert.match(r.body.error_description, /10/);
      assert.equal((await listOf(m)).text, before);
      // Replacing one of the ten is not an eleventh.
      const again = await publish(m, JSON.stringify(signStatement(keys[4]!, m.actorId, { extra: { again: true } })));
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.length, 10);
      assert.equal(again.body[4].again, true);
    });

    it('frees a place when one is deleted', async () => {
      const m = await member('freed');
      const keys = await fill(m, 10);
      assert.equal((await remove(m, keys[0]!.did)).body.length, 9);
      const newcomer = newIdentityKey();
      const r = await publish(m, JSON.stringify(signStatement(newcomer, m.actorId)));
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        await subjects(m),
        [...keys.slice(1), newcomer].map((k) => k.did),
      );
    });
  });

  describe('expiry', () => {
    it('hides an expired statement from the list and the actor document, and frees its place', async () => {
      const m = await member('fleeting');
      const start = t;
      const expiresMs = Math.floor((t + HOUR) / 1000) * 1000;
      const key = newIdentityKey();
      const text = JSON.stringify(signStatement(key, m.actorId, { expires: new Date(expiresMs).toISOString().replace(/\.000Z$/, 'Z') }));
      const r = await publish(m, text);
      assert.equal(r.status, 200, r.text);
      const others = await fill(m, 9);
      assert.ok((await listOf(m)).text.includes(text));
      assert.ok((await actorText(m)).includes(text));
      assert.equal((await publish(m, JSON.stringify(signStatement(newIdentityKey(), m.actorId)))).status, 422, 'ten are live');

      try {
        t = expiresMs - 1;
        assert.ok((await listOf(m)).text.includes(text), 'still live a millisecond before it expires');
        t = expiresMs;
        const listed = await listOf(m);
        assert.ok(!listed.text.includes(text), 'expired at its expiry time');
        assert.deepEqual(
          listed.body.map((x: Json) => x.subject),
          others.map((k) => k.did),
        );
        const actor = await actorText(m);
        assert.ok(!actor.includes(key.did), 'not in the actor document');
        assert.equal(JSON.parse(actor).attachment.length, 9);

        t = expiresMs + HOUR;
        const newcomer = newIdentityKey();
        const taken = await publish(m, JSON.stringify(signStatement(newcomer, m.actorId)));
        assert.equal(taken.status, 200, taken.text);
        assert.deepEqual(
          await subjects(m),
          [...others, newcomer].map((k) => k.did),
        );
        // Publishing the expired statement again is refused by the verifier, not by the limit.
        const stale = await publish(m, text);
        assert.deepEqual(stale.body, { error: 'Invalid identity statement', error_description: REFUSALS.expired });
      } finally {
        t = start;
      }
    });

    it('reads an expires with a time-zone offset and fractional seconds as the instant it names', async () => {
      const m = await member('offset');
      const start = t;
      const expiresMs = Math.floor((t + HOUR) / 1000) * 1000 + 250;
      const expires = new Date(expiresMs + 2 * HOUR).toISOString().replace(/Z$/, '+02:00');
      const text = JSON.stringify(signStatement(newIdentityKey(), m.actorId, { expires }));
      assert.equal((await publish(m, text)).status, 200);
      try {
        t = expiresMs - 1;
        assert.equal((await listOf(m)).text, `[${text}]`);
        t = expiresMs;
        assert.equal((await listOf(m)).text, '[]');
      } finally {
        t = start;
      }
    });
  });

  describe('actor document', () => {
    it('carries the statements in attachment after the profile fields, as the original JSON', async () => {
      const m = await member('doc');
      const fields = [
        { name: 'Site', value: 'https://example.com' },
        { name: 'Pronouns', value: 'they/them' },
      ];
      await s.app.db.exec('UPDATE accounts SET fields = $2::jsonb WHERE id = $1', [m.id, JSON.stringify(fields)]);
      const keys = [newIdentityKey(), newIdentityKey()];
      const first = signStatement(keys[0]!, m.actorId);
      const texts = [
        `{ "subject" :${JSON.stringify(first['subject'])},\n  "type": "VerifiableIdentityStatement" ,"proof":${JSON.stringify(first['proof'], null, 1)},\t"alsoKnownAs":${JSON.stringify(first['alsoKnownAs'])} }`,
        JSON.stringify(signStatement(keys[1]!, m.actorId, { fragment: true }), null, 4),
      ];
      for (const text of texts) {
        const r = await publish(m, text);
        assert.equal(r.status, 200, `${r.text}\n${text}`);
      }
      const raw = await actorText(m);
      for (const text of texts) assert.ok(raw.includes(text), `the actor document holds ${text} verbatim`);
      const doc = JSON.parse(raw);
      assert.equal(doc.id, m.actorId);
      assert.deepEqual(
        doc.attachment.map((a: Json) => [a.type, a.name ?? a.subject]),
        [
          ['PropertyValue', 'Site'],
          ['PropertyValue', 'Pronouns'],
          ['VerifiableIdentityStatement', keys[0]!.did],
          ['VerifiableIdentityStatement', keys[1]!.did],
        ],
      );

      await remove(m, keys[0]!.did);
      const after = await actorText(m);
      assert.ok(!after.includes(keys[0]!.did), 'a deleted statement leaves the document');
      assert.equal(JSON.parse(after).attachment.length, 3);
    });

    it('keeps an attachment-less member’s document free of statements', async () => {
      const m = await member('plain');
      assert.deepEqual(JSON.parse(await actorText(m)).attachment, []);
    });
  });

  describe('concurrent publishes', () => {
    it('lets exactly one of two new subjects take the last place, round after round', async () => {
      const m = await member('racer');
      await fill(m, 9);
      for (let round = 0; round < 6; round++) {
        const [a, b] = [newIdentityKey(), newIdentityKey()];
        const replies = await Promise.all([a, b].map((k) => publish(m, JSON.stringify(signStatement(k, m.actorId)))));
        assert.deepEqual(replies.map((r) => r.status).sort(), [200, 422], `round ${round}`);
        const now = await subjects(m);
        assert.equal(now.length, 10, `round ${round}`);
        const winner = replies[0]!.status === 200 ? a : b;
        assert.ok(now.includes(winner.did) && !now.includes((winner === a ? b : a).did), `round ${round}`);
        assert.equal((await remove(m, winner.did)).body.length, 9);
      }
    });

    it('keeps one row when the same subject is published twice at once', async () => {
      const m = await member('twice');
      await fill(m, 3);
      for (let round = 0; round < 4; round++) {
        const key = newIdentityKey();
        const texts = [1, 2].map((n) => JSON.stringify(signStatement(key, m.actorId, { extra: { n } })));
        const replies = await Promise.all(texts.map((text) => publish(m, text)));
        assert.deepEqual(
          replies.map((r) => r.status),
          [200, 200],
          `round ${round}`,
        );
        const list = (await listOf(m)).body as Json[];
        const mine = list.filter((x) => x.subject === key.did);
        assert.equal(mine.length, 1, `round ${round}`);
        assert.equal(list.length, 4 + round, `round ${round}`);
      }
    });
  });
});
