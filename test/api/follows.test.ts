// The relationship API between local members, over real HTTP: follow (unlocked: at once; locked: a request to
// authorize or reject), unfollow, relationships, followers/following lists with Link-header paging, the scope and
// token rules, public account reads with counts, and update_credentials validation seen at once by
// verify_credentials.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { newNonce } from '../../src/store/auth-events.js';
import { UserStore, type LocalUser } from '../../src/store/users.js';
import { api, form, type Json } from '../support/api.js';
import { appToken, registerApp, signIn, userToken, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const call = (s: TestServer, token: string | undefined, method: string, path: string, fields?: Record<string, string>) =>
  api(s.url, token, method, path, fields && form(fields));

/** The rel="next" / rel="prev" URLs of a Link header. */
function links(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^>]+)>;\s*rel="(\w+)"/g)) out[m[2]!] = m[1]!;
  return out;
}

describe('relationship API between local members', () => {
  let s: TestServer;
  let users: UserStore;
  let app: RegisteredApp;
  /** Every member this file signs in has this password. */
  const password = 'member-password-1';
  let memberHash: Promise<string>;

  interface Member {
    readonly user: LocalUser;
    readonly id: string;
    readonly token: string;
  }
  let admin: Member;
  let bob: Member;
  let lia: Member;

  async function member(username: string, opts: { locked?: boolean; token?: boolean; scope?: string } = {}): Promise<Member> {
    const user = await users.create({ username, email: `${username}@example.test`, passwordHash: await memberHash, roleId: 0, approved: true });
    if (opts.locked) await s.app.federation.accounts.updateLocalProfile(user.accountId, { locked: true }, newNonce());
    const token = opts.token === false ? '' : await userToken(s.url, await signIn(s.url, username, password), app, opts.scope ?? 'read write follow');
    return { user, id: user.accountId, token };
  }

  before(async () => {
    s = await startTestServer();
    users = new UserStore(s.app.db);
    memberHash = hashPassword(password);
    app = await registerApp(s.url, { scopes: 'read write follow' });
    const adminUser = (await users.byLogin('admin'))!;
    const adminToken = await userToken(s.url, await signIn(s.url, 'admin', s.app.firstAdmin!.password), app, 'read write follow');
    admin = { user: adminUser, id: adminUser.accountId, token: adminToken };
    [bob, lia] = await Promise.all([member('bob'), member('lia', { locked: true })]);
  });
  after(async () => {
    await s?.stop();
  });

  const relationship = async (viewer: Member, other: Member) => {
    const r = await call(s, viewer.token, 'GET', `/api/v1/accounts/relationships?id[]=${other.id}`);
    assert.equal(r.status, 200);
    return r.body[0];
  };

  describe('follow and unfollow', () => {
    it('follows an unlocked member at once, and the counts show it', async () => {
      const r = await call(s, admin.token, 'POST', `/api/v1/accounts/${bob.id}/follow`);
      assert.equal(r.status, 200);
      assert.equal(r.body.id, bob.id);
      assert.equal(r.body.following, true);
      assert.equal(r.body.requested, false);
      assert.equal((await relationship(bob, admin)).followed_by, true);
      const seen = await call(s, undefined, 'GET', `/api/v1/accounts/${bob.id}`);
      assert.equal(seen.body.followers_count, 1);
      assert.equal((await call(s, undefined, 'GET', `/api/v1/accounts/${admin.id}`)).body.following_count, 1);
      // Following again changes nothing.
      const again = await call(s, admin.token, 'POST', `/api/v1/accounts/${bob.id}/follow`);
      assert.equal(again.body.following, true);
      assert.equal((await call(s, undefined, 'GET', `/api/v1/accounts/${bob.id}`)).body.followers_count, 1);
    });

    it('unfollows: the follow ends, and unfollowing again is harmless', async () => {
      const cat = await member('cat');
      await call(s, cat.token, 'POST', `/api/v1/accounts/${bob.id}/follow`);
      const r = await call(s, cat.token, 'POST', `/api/v1/accounts/${bob.id}/unfollow`);
      assert.equal(r.status, 200);
      assert.equal(r.body.following, false);
      assert.equal((await relationship(bob, cat)).followed_by, false);
      const followers = await call(s, undefined, 'GET', `/api/v1/accounts/${bob.id}/followers`);
      assert.ok(!followers.body.some((a: Json) => a.id === cat.id));
      const again = await call(s, cat.token, 'POST', `/api/v1/accounts/${bob.id}/unfollow`);
      assert.equal(again.status, 200);
      assert.equal(again.body.following, false);
    });

    it('makes a follow request to a locked member, which authorizing turns into a follow', async () => {
      const r = await call(s, admin.token, 'POST', `/api/v1/accounts/${lia.id}/follow`);
      assert.equal(r.status, 200);
      assert.equal(r.body.following, false);
      assert.equal(r.body.requested, true);
      const requests = await call(s, lia.token, 'GET', '/api/v1/follow_requests');
      assert.equal(requests.status, 200);
      assert.deepEqual(
        requests.body.map((a: Json) => a.id),
        [admin.id],
      );
      assert.equal(requests.body[0].acct, 'admin');
      assert.equal((await relationship(lia, admin)).requested_by, true);

      const ok = await call(s, lia.token, 'POST', `/api/v1/follow_requests/${admin.id}/authorize`);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.id, admin.id);
      assert.equal(ok.body.followed_by, true);
      assert.equal(ok.body.requested_by, false);
      const mine = await relationship(admin, lia);
      assert.equal(mine.following, true);
      assert.equal(mine.requested, false);
      assert.deepEqual((await call(s, lia.token, 'GET', '/api/v1/follow_requests')).body, []);
    });

    it('rejecting a follow request drops it without a follow', async () => {
      const dan = await member('dan');
      const r = await call(s, dan.token, 'POST', `/api/v1/accounts/${lia.id}/follow`);
      assert.equal(r.body.requested, true);
      const no = await call(s, lia.token, 'POST', `/api/v1/follow_requests/${dan.id}/reject`);
      assert.equal(no.status, 200);
      assert.equal(no.body.followed_by, false);
      assert.equal(no.body.requested_by, false);
      const theirs = await relationship(dan, lia);
      assert.equal(theirs.following, false);
      assert.equal(theirs.requested, false);
      assert.ok(!(await call(s, lia.token, 'GET', '/api/v1/follow_requests')).body.some((a: Json) => a.id === dan.id));
    });

    it('answers 404 when authorizing or rejecting a request that does not exist', async () => {
      for (const action of ['authorize', 'reject']) {
        assert.equal((await call(s, lia.token, 'POST', `/api/v1/follow_requests/${bob.id}/${action}`)).status, 404, action);
        assert.equal((await call(s, lia.token, 'POST', `/api/v1/follow_requests/999999999/${action}`)).status, 404, action);
      }
    });

    it('refuses to follow yourself (403) and unknown accounts (404)', async () => {
      const self = await call(s, admin.token, 'POST', `/api/v1/accounts/${admin.id}/follow`);
      assert.equal(self.status, 403);
      assert.equal(typeof self.body.error, 'string');
      for (const id of ['999999999', 'nobody']) {
        const r = await call(s, admin.token, 'POST', `/api/v1/accounts/${id}/follow`);
        assert.equal(r.status, 404, id);
        assert.deepEqual(r.body, { error: 'Record not found' });
      }
      assert.equal((await call(s, admin.token, 'POST', '/api/v1/accounts/999999999/unfollow')).status, 404);
    });

    it('needs a member token with a follow scope: read-only 403, app token 422, none 401', async () => {
      const readOnly = await userToken(s.url, await signIn(s.url, 'bob', password), app, 'read');
      const ro = await call(s, readOnly, 'POST', `/api/v1/accounts/${admin.id}/follow`);
      assert.equal(ro.status, 403);
      assert.deepEqual(ro.body, { error: 'This action is outside the authorized scopes' });
      const appOnly = await appToken(s.url, app, 'read write follow');
      const ap = await call(s, appOnly, 'POST', `/api/v1/accounts/${admin.id}/follow`);
      assert.equal(ap.status, 422);
      assert.deepEqual(ap.body, { error: 'This method requires an authenticated user' });
      const none = await call(s, undefined, 'POST', `/api/v1/accounts/${admin.id}/follow`);
      assert.equal(none.status, 401);
      assert.equal((await relationship(admin, bob)).followed_by, false, 'none of them followed');
    });
  });

  describe('relationships', () => {
    it('answers several ids in the order asked, skipping unknown ones', async () => {
      const q = [lia.id, '999999999', bob.id, 'junk', admin.id].map((id) => `id[]=${id}`).join('&');
      const r = await call(s, admin.token, 'GET', `/api/v1/accounts/relationships?${q}`);
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.map((x: Json) => x.id),
        [lia.id, bob.id, admin.id],
      );
      assert.equal(r.body[0].following, true);
      assert.equal(r.body[1].following, true);
      assert.equal(r.body[2].following, false);
    });

    it('answers at most 80 ids', async () => {
      const many: string[] = [];
      for (let i = 0; i < 85; i++)
        many.push(
          (await users.create({ username: `rel${i}`, email: `rel${i}@example.test`, passwordHash: await memberHash, roleId: 0, approved: true })).accountId,
        );
      const r = await call(s, admin.token, 'GET', `/api/v1/accounts/relationships?${many.map((id) => `id[]=${id}`).join('&')}`);
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.map((x: Json) => x.id),
        many.slice(0, 80),
      );
    });

    it('needs a member token', async () => {
      assert.equal((await call(s, undefined, 'GET', `/api/v1/accounts/relationships?id[]=${bob.id}`)).status, 401);
    });
  });

  describe('followers and following lists', () => {
    let star: LocalUser;
    /** Follower account ids in the order they followed. */
    const fans: string[] = [];

    before(async () => {
      star = await users.create({ username: 'star', email: 'star@example.test', passwordHash: await memberHash, roleId: 0, approved: true });
      for (let i = 0; i < 45; i++) {
        const fan = await users.create({ username: `fan${i}`, email: `fan${i}@example.test`, passwordHash: await memberHash, roleId: 0, approved: true });
        await s.app.federation.follows.follow(fan.accountId, star.accountId, null);
        fans.push(fan.accountId);
      }
    });

    it('pages followers newest first with absolute Link URLs, next by max_id, until an empty page without Link', async () => {
      const base = `${s.url}/api/v1/accounts/${star.accountId}/followers`;
      const first = await call(s, undefined, 'GET', `/api/v1/accounts/${star.accountId}/followers?limit=20`);
      assert.equal(first.status, 200);
      assert.equal(first.body.length, 20);
      const l = links(first.link);
      assert.ok(l['next']?.startsWith(`${base}?`), first.link ?? 'no Link');
      assert.ok(l['prev']?.startsWith(`${base}?`), first.link ?? 'no Link');
      const next = new URL(l['next']!);
      assert.equal(next.searchParams.get('limit'), '20');
      assert.match(next.searchParams.get('max_id') ?? '', /^\d+$/);

      const seen: string[] = first.body.map((a: Json) => a.id);
      let url: string | undefined = l['next'];
      let pages = 1;
      for (;;) {
        const r = await call(s, undefined, 'GET', url!.slice(s.url.length));
        assert.equal(r.status, 200);
        if (r.body.length === 0) {
          assert.equal(r.link, null, 'no Link header on an empty page');
          break;
        }
        seen.push(...r.body.map((a: Json) => a.id));
        url = links(r.link)['next'];
        assert.ok(++pages < 10, 'paging ends');
      }
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...fans].reverse());
    });

    it('defaults to 40, clamps the limit to 80 and refuses a negative one', async () => {
      const path = `/api/v1/accounts/${star.accountId}/followers`;
      assert.equal((await call(s, undefined, 'GET', path)).body.length, 40);
      const clamped = await call(s, undefined, 'GET', `${path}?limit=200`);
      assert.equal(clamped.body.length, 45);
      assert.equal(new URL(links(clamped.link)['next']!).searchParams.get('limit'), '80');
      const negative = await call(s, undefined, 'GET', `${path}?limit=-1`);
      assert.equal(negative.status, 400);
      assert.equal(typeof negative.body.error, 'string');
    });

    it('lists whom a member follows, with the same paging', async () => {
      const fan = fans[0]!;
      const r = await call(s, undefined, 'GET', `/api/v1/accounts/${fan}/following?limit=5`);
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.body.map((a: Json) => a.acct),
        ['star'],
      );
      assert.ok(links(r.link)['next']?.startsWith(`${s.url}/api/v1/accounts/${fan}/following?`));
      const empty = await call(s, undefined, 'GET', `/api/v1/accounts/${star.accountId}/following`);
      assert.deepEqual(empty.body, []);
      assert.equal(empty.link, null);
    });

    it('answers 404 for the lists of an unknown account', async () => {
      for (const kind of ['followers', 'following']) assert.equal((await call(s, undefined, 'GET', `/api/v1/accounts/999999999/${kind}`)).status, 404, kind);
    });
  });

  describe('public account reads', () => {
    it('shows an account by id without a token, with its counts', async () => {
      const r = await call(s, undefined, 'GET', `/api/v1/accounts/${admin.id}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.id, admin.id);
      assert.equal(r.body.acct, 'admin');
      assert.equal(r.body.url, `${s.url}/@admin`);
      assert.equal(typeof r.body.followers_count, 'number');
      assert.equal(r.body.following_count, 2, 'bob and lia');
      assert.equal((await call(s, undefined, 'GET', `/api/v1/accounts/${lia.id}`)).body.followers_count, 1);
    });

    it('looks up admin and admin@LOCAL_DOMAIN without a token', async () => {
      const domain = new URL(s.url).host;
      for (const acct of ['admin', `admin@${domain}`, '@admin']) {
        const r = await call(s, undefined, 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
        assert.equal(r.status, 200, acct);
        assert.equal(r.body.id, admin.id, acct);
        assert.equal(r.body.following_count, 2, acct);
      }
      assert.equal((await call(s, undefined, 'GET', '/api/v1/accounts/lookup?acct=nobody')).status, 404);
    });

    it('answers 404 for an unknown id and 401 for an invalid token', async () => {
      assert.equal((await call(s, undefined, 'GET', '/api/v1/accounts/999999999')).status, 404);
      assert.equal((await call(s, 'not-a-token', 'GET', `/api/v1/accounts/${admin.id}`)).status, 401);
    });
  });

  describe('update_credentials', () => {
    it('refuses a display name over 30 characters with 422', async () => {
      const r = await call(s, bob.token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'x'.repeat(31) });
      assert.equal(r.status, 422);
      assert.match(r.body.error, /Display name is too long/);
      const ok = await call(s, bob.token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'y'.repeat(30) });
      assert.equal(ok.status, 200);
    });

    it("parses Rails booleans ('true', '0') and verify_credentials shows the change at once", async () => {
      const cached = await call(s, bob.token, 'GET', '/api/v1/accounts/verify_credentials'); // now cached with the token
      assert.equal(cached.body.locked, false);
      const r = await call(s, bob.token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Bob B', locked: 'true', bot: '0' });
      assert.equal(r.status, 200);
      assert.equal(r.body.locked, true);
      assert.equal(r.body.bot, false);
      const updated = await call(s, bob.token, 'GET', '/api/v1/accounts/verify_credentials');
      assert.equal(updated.body.display_name, 'Bob B');
      assert.equal(updated.body.locked, true);
      assert.equal(updated.body.bot, false);
      const flipped = await call(s, bob.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: '0', bot: 'true' });
      assert.equal(flipped.body.locked, false);
      assert.equal(flipped.body.bot, true);
      const again = await call(s, bob.token, 'GET', '/api/v1/accounts/verify_credentials');
      assert.equal(again.body.locked, false);
      assert.equal(again.body.bot, true);
      assert.equal((await call(s, undefined, 'GET', `/api/v1/accounts/${bob.id}`)).body.display_name, 'Bob B');
    });

    it('refuses a value that is not a boolean with 422', async () => {
      const r = await call(s, bob.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: 'maybe' });
      assert.equal(r.status, 422);
    });
  });
});
