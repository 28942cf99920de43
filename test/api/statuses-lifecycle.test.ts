// A status's life over real HTTP: Idempotency-Key (a retried post is one status, per member and key, also when the
// retries race), delete (the source comes back for delete-and-redraft, then the status is gone for everyone; only the
// author may delete), and a status's context (ancestors oldest first, descendants depth-first as Mastodon lists them,
// deleted ones left out) and its replies_count.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';
import { api, type Json } from '../support/api.js';
import { registerApp, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface Member {
  readonly id: string;
  readonly token: string;
}

describe('statuses API: idempotency, delete and context', () => {
  let s: TestServer;
  let app: RegisteredApp;
  let users: UserStore;
  let tokens: TokenStore;
  let memberHash: Promise<string>;
  let amy: Member;
  let bob: Member;
  let cal: Member;

  const call = (token: string | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api(s.url, token, method, path, body, headers);
  const post = (m: Member, fields: Record<string, unknown>, key?: string) =>
    call(m.token, 'POST', '/api/v1/statuses', fields, key === undefined ? {} : { 'Idempotency-Key': key });
  const posted = async (m: Member, fields: Record<string, unknown>): Promise<Json> => {
    const r = await post(m, fields);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const ownIds = async (m: Member): Promise<string[]> => {
    const r = await call(m.token, 'GET', `/api/v1/accounts/${m.id}/statuses?limit=40`);
    assert.equal(r.status, 200);
    return r.body.map((x: Json) => x.id);
  };

  async function member(username: string): Promise<Member> {
    const user = await users.create({ username, email: `${username}@example.test`, passwordHash: await memberHash, roleId: 0, approved: true });
    return { id: user.accountId, token: (await tokens.issue(app.id, user.userId, ['read', 'write', 'follow'])).token };
  }

  before(async () => {
    s = await startTestServer();
    users = new UserStore(s.app.db);
    tokens = new TokenStore(s.app.db);
    memberHash = hashPassword('member-password-1');
    app = await registerApp(s.url, { scopes: 'read write follow' });
    [amy, bob, cal] = await Promise.all([member('amy'), member('bob'), member('cal')]);
  });
  after(async () => {
    await s?.stop();
  });

  describe('Idempotency-Key', () => {
    it('answers a repeated key with the first status and creates only one', async () => {
      const first = await post(amy, { status: 'only once' }, 'key-1');
      assert.equal(first.status, 200);
      const again = await post(amy, { status: 'only once' }, 'key-1');
      assert.equal(again.status, 200);
      assert.equal(again.body.id, first.body.id);
      assert.equal(again.body.content, first.body.content);
      // The first request's status wins even when the retry's body differs.
      const changed = await post(amy, { status: 'something else' }, 'key-1');
      assert.equal(changed.body.id, first.body.id);
      assert.equal(changed.body.content, '<p>only once</p>');
      assert.equal((await ownIds(amy)).filter((id) => id === first.body.id).length, 1);
      assert.equal((await ownIds(amy)).length, 1);
    });

    it('creates two statuses for two keys and for no key', async () => {
      const before = (await ownIds(amy)).length;
      const a = await post(amy, { status: 'same text' }, 'key-a');
      const b = await post(amy, { status: 'same text' }, 'key-b');
      const c = await post(amy, { status: 'same text' });
      const d = await post(amy, { status: 'same text' });
      assert.equal(new Set([a.body.id, b.body.id, c.body.id, d.body.id]).size, 4);
      assert.equal((await ownIds(amy)).length, before + 4);
    });

    it('keeps keys per member: the same key from two members makes two statuses', async () => {
      const a = await post(amy, { status: 'mine' }, 'shared-key');
      const b = await post(bob, { status: 'mine' }, 'shared-key');
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.notEqual(a.body.id, b.body.id);
      assert.equal(a.body.account.id, amy.id);
      assert.equal(b.body.account.id, bob.id);
    });

    it('makes one status of concurrent retries with one key', async () => {
      const replies = await Promise.all(Array.from({ length: 6 }, () => post(cal, { status: 'racing' }, 'race-key')));
      for (const r of replies) assert.equal(r.status, 200);
      assert.equal(new Set(replies.map((r) => r.body.id)).size, 1);
      assert.equal((await ownIds(cal)).length, 1);
    });

    it('never answers a retried key with a status that has since been deleted', async () => {
      const first = await post(bob, { status: 'posted then deleted' }, 'deleted-key');
      assert.equal((await call(bob.token, 'DELETE', `/api/v1/statuses/${first.body.id}`)).status, 200);
      const retry = await post(bob, { status: 'posted then deleted' }, 'deleted-key');
      // Mastodon answers 404 here (the remembered status is gone); a fresh status would do as well. A 200 carrying
      // the deleted status shows the client a post nobody can read.
      if (retry.status === 200) {
        assert.notEqual(retry.body.id, first.body.id, 'the deleted status came back as if posted');
        assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${retry.body.id}`)).status, 200);
      } else {
        assert.equal(retry.status, 404);
      }
    });

    it('refuses an over-long key with 422', async () => {
      const r = await post(amy, { status: 'x' }, 'k'.repeat(257));
      assert.equal(r.status, 422);
      assert.match(r.type ?? '', /^application\/json/);
      assert.equal((await post(amy, { status: 'x' }, 'k'.repeat(256))).status, 200);
    });
  });

  describe('delete', () => {
    it('returns the deleted status with its source text, then answers 404 to everyone', async () => {
      const text = 'Delete & redraft <me> #Later @bob';
      const st = await posted(amy, { status: text, spoiler_text: 'cw', visibility: 'unlisted', language: 'en' });
      assert.equal(st.text, null, 'text is null outside delete');
      const r = await call(amy.token, 'DELETE', `/api/v1/statuses/${st.id}`);
      assert.equal(r.status, 200);
      assert.match(r.type ?? '', /^application\/json/);
      assert.equal(r.body.id, st.id);
      assert.equal(r.body.text, text);
      assert.equal(r.body.spoiler_text, 'cw');
      assert.equal(r.body.visibility, 'unlisted');
      assert.equal(r.body.language, 'en');
      assert.equal(r.body.content, st.content);
      assert.deepEqual(r.body.mentions, st.mentions);
      for (const token of [undefined, amy.token, bob.token, cal.token]) {
        assert.equal((await call(token, 'GET', `/api/v1/statuses/${st.id}`)).status, 404);
        assert.equal((await call(token, 'GET', `/api/v1/statuses/${st.id}/context`)).status, 404);
      }
      assert.ok(!(await ownIds(amy)).includes(st.id));
      const tag = await call(undefined, 'GET', '/api/v1/timelines/tag/later');
      assert.ok(!tag.body.some((x: Json) => x.id === st.id));
      assert.equal((await call(amy.token, 'DELETE', `/api/v1/statuses/${st.id}`)).status, 404, 'deleting twice');
    });

    it("answers 404 to a member deleting another member's status, which stays", async () => {
      const st = await posted(amy, { status: 'not yours' });
      const r = await call(bob.token, 'DELETE', `/api/v1/statuses/${st.id}`);
      assert.equal(r.status, 404);
      assert.match(r.type ?? '', /^application\/json/);
      assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${st.id}`)).status, 200);
    });

    it('no longer accepts replies to a deleted status', async () => {
      const st = await posted(amy, { status: 'soon gone' });
      assert.equal((await call(amy.token, 'DELETE', `/api/v1/statuses/${st.id}`)).status, 200);
      assert.equal((await post(bob, { status: 'late reply', in_reply_to_id: st.id })).status, 404);
    });
  });

  describe('context', () => {
    // root (amy) ─┬─ r1 (bob) ─┬─ r11 (amy) ── r111 (cal)
    //             │            └─ r12 (cal)
    //             └─ r2 (cal) ──── r21 (bob)
    let root: Json, r1: Json, r2: Json, r11: Json, r12: Json, r21: Json, r111: Json;
    const ids = (list: Json[]) => list.map((x: Json) => x.id);

    before(async () => {
      root = await posted(amy, { status: 'root' });
      r1 = await posted(bob, { status: 'r1', in_reply_to_id: root.id });
      r2 = await posted(cal, { status: 'r2', in_reply_to_id: root.id });
      r11 = await posted(amy, { status: 'r11', in_reply_to_id: r1.id });
      r21 = await posted(bob, { status: 'r21', in_reply_to_id: r2.id });
      r12 = await posted(cal, { status: 'r12', in_reply_to_id: r1.id });
      r111 = await posted(cal, { status: 'r111', in_reply_to_id: r11.id });
    });

    it('lists the descendants of the root depth-first, each parent’s replies oldest first (context-order.test.ts has the rest)', async () => {
      const r = await call(undefined, 'GET', `/api/v1/statuses/${root.id}/context`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.ancestors, []);
      assert.deepEqual(ids(r.body.descendants), ids([r1, r11, r111, r12, r2, r21]));
      assert.equal(r.body.descendants[0].account.id, bob.id, 'descendants are full Status entities');
      assert.equal(r.body.descendants[0].in_reply_to_id, root.id);
    });

    it('lists the ancestors of a deep reply oldest first, and its own descendants', async () => {
      const deep = await call(bob.token, 'GET', `/api/v1/statuses/${r111.id}/context`);
      assert.deepEqual(ids(deep.body.ancestors), ids([root, r1, r11]));
      assert.deepEqual(deep.body.descendants, []);
      const mid = await call(undefined, 'GET', `/api/v1/statuses/${r1.id}/context`);
      assert.deepEqual(ids(mid.body.ancestors), [root.id]);
      assert.deepEqual(ids(mid.body.descendants), ids([r11, r111, r12]));
    });

    it('counts direct replies in replies_count', async () => {
      const get = async (id: string) => (await call(undefined, 'GET', `/api/v1/statuses/${id}`)).body.replies_count;
      assert.equal(await get(root.id), 2);
      assert.equal(await get(r1.id), 2);
      assert.equal(await get(r111.id), 0);
    });

    it('leaves a deleted reply out and stops the ancestors at a deleted parent', async () => {
      const top = await posted(amy, { status: 'top' });
      const mid = await posted(bob, { status: 'mid', in_reply_to_id: top.id });
      const leaf = await posted(cal, { status: 'leaf', in_reply_to_id: mid.id });
      assert.equal((await call(bob.token, 'DELETE', `/api/v1/statuses/${mid.id}`)).status, 200);
      const fromTop = await call(undefined, 'GET', `/api/v1/statuses/${top.id}/context`);
      assert.deepEqual(ids(fromTop.body.descendants), []);
      assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${top.id}`)).body.replies_count, 0);
      const fromLeaf = await call(undefined, 'GET', `/api/v1/statuses/${leaf.id}/context`);
      assert.equal(fromLeaf.status, 200);
      assert.deepEqual(fromLeaf.body.ancestors, []);
    });

    it('answers 404 for the context of an unknown status', async () => {
      const r = await call(undefined, 'GET', '/api/v1/statuses/999999999/context');
      assert.equal(r.status, 404);
      assert.match(r.type ?? '', /^application\/json/);
    });
  });
});
