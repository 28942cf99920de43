// Signing in through the link-aggregator adapter as Lemmy clients do (lemmy-js-client 0.19.9 against a real server):
// the jwt is a real Stoa token of the adapter's built-in application (read write follow), usable as a bearer token on
// /api/v3 and on the Mastodon API; wrong credentials and refused members get Lemmy's codes; the web sign-in's throttle
// holds (429 rate_limit_error); logout revokes the token. A property: any login body is a 4xx or a 200, never a 5xx.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { LemmyHttp } from 'lemmy-js-client';
import { hashPassword } from '../../src/auth/password.js';
import { RoleId } from '../../src/auth/permissions.js';
import { UserStore } from '../../src/store/users.js';
import { api } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PASSWORD = 'member-password-1';

/** A client whose requests come from `ip` (the server trusts X-Forwarded-For here, so throttles are per test). */
function client(s: TestServer, ip: string, jwt?: string): LemmyHttp {
  return new LemmyHttp(s.url, { fetchFunction: fetch, headers: { 'X-Forwarded-For': ip, ...(jwt ? { Authorization: `Bearer ${jwt}` } : {}) } });
}

/** The Lemmy error code a call fails with. */
async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail('the call succeeded');
}

describe('POST /api/v3/user/login and logout', () => {
  let s: TestServer;
  let users: UserStore;

  before(async () => {
    s = await startTestServer({ TRUST_PROXY: 'true' });
    users = new UserStore(s.app.db);
    await createMembers(s, ['alice', 'bob']);
    const hash = await hashPassword(PASSWORD);
    await users.create({ username: 'pending', email: 'pending@example.test', passwordHash: hash, roleId: RoleId.user, approved: false });
    const gone = await users.create({ username: 'gone', email: 'gone@example.test', passwordHash: hash, roleId: RoleId.user, approved: true });
    await users.setDisabled(gone.userId, true);
  });
  after(() => s.stop());

  it('answers a jwt that is a real token: /api/v3 sees the member, and so does the Mastodon API', async () => {
    const res = await client(s, '10.0.0.1').login({ username_or_email: 'alice', password: PASSWORD });
    assert.equal(typeof res.jwt, 'string');
    assert.equal(res.registration_created, false);
    assert.equal(res.verify_email_sent, false);
    const site = await client(s, '10.0.0.1', res.jwt).getSite();
    assert.equal(site.my_user?.local_user_view.person.name, 'alice');
    assert.equal(typeof site.my_user?.local_user_view.person.id, 'number');
    const me = await api(s.url, res.jwt, 'GET', '/api/v1/accounts/verify_credentials');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.username, 'alice');
    // Its application is the adapter's, with Lemmy clients' scopes.
    const apps = await s.app.db.rows<{ name: string; scopes: string[] }>(
      `SELECT a.name, t.scopes FROM oauth_tokens t JOIN oauth_apps a ON a.id = t.app_id WHERE a.name = 'Lemmy clients (/api/v3)'`,
    );
    assert.equal(apps.length, 1);
    assert.deepEqual(apps[0]!.scopes, ['read', 'write', 'follow']);
  });

  it('takes the e-mail address too, and makes the adapter application only once', async () => {
    const res = await client(s, '10.0.0.2').login({ username_or_email: 'bob@example.test', password: PASSWORD });
    const me = await api(s.url, res.jwt, 'GET', '/api/v1/accounts/verify_credentials');
    assert.equal(me.body.username, 'bob');
    const apps = await s.app.db.rows(`SELECT 1 FROM oauth_apps WHERE name = 'Lemmy clients (/api/v3)'`);
    assert.equal(apps.length, 1);
  });

  it('refuses a wrong password or an unknown name with 400 incorrect_login', async () => {
    assert.equal(await failure(client(s, '10.0.0.3').login({ username_or_email: 'alice', password: 'wrong-password' })), 'incorrect_login');
    assert.equal(await failure(client(s, '10.0.0.3').login({ username_or_email: 'nobody', password: PASSWORD })), 'incorrect_login');
    const raw = await api(s.url, undefined, 'POST', '/api/v3/user/login', { username_or_email: 'alice', password: 'wrong' }, { 'X-Forwarded-For': '10.0.0.3' });
    assert.equal(raw.status, 400);
    assert.deepEqual(raw.body, { error: 'incorrect_login' });
  });

  it('refuses members the web sign-in refuses: pending approval, disabled', async () => {
    assert.equal(await failure(client(s, '10.0.0.4').login({ username_or_email: 'pending', password: PASSWORD })), 'registration_application_is_pending');
    assert.equal(await failure(client(s, '10.0.0.4').login({ username_or_email: 'gone', password: PASSWORD })), 'site_ban');
  });

  it('logout revokes the token everywhere', async () => {
    const { jwt } = await client(s, '10.0.0.5').login({ username_or_email: 'alice', password: PASSWORD });
    assert.equal((await client(s, '10.0.0.5', jwt).logout()).success, true);
    assert.equal((await api(s.url, jwt, 'GET', '/api/v1/accounts/verify_credentials')).status, 401);
    assert.equal((await api(s.url, jwt, 'GET', '/api/v3/site')).status, 401);
    // Anonymous: Lemmy's not_logged_in.
    assert.equal(await failure(client(s, '10.0.0.5').logout()), 'not_logged_in');
  });

  it('is under the sign-in throttle: ten attempts per address, then 429 rate_limit_error even for the right password', async () => {
    const c = client(s, '10.0.9.9');
    for (let i = 0; i < 10; i++) assert.equal(await failure(c.login({ username_or_email: `someone${i}`, password: 'nope' })), 'incorrect_login');
    const r = await api(s.url, undefined, 'POST', '/api/v3/user/login', { username_or_email: 'alice', password: PASSWORD }, { 'X-Forwarded-For': '10.0.9.9' });
    assert.equal(r.status, 429);
    assert.deepEqual(r.body, { error: 'rate_limit_error' });
    assert.ok(Number(r.headers.get('retry-after')) > 0);
    assert.equal(await failure(c.login({ username_or_email: 'alice', password: PASSWORD })), 'rate_limit_error');
    // Another address is not held back.
    assert.equal(typeof (await client(s, '10.0.9.10').login({ username_or_email: 'alice', password: PASSWORD })).jwt, 'string');
  });

  it('answers any login body with a 4xx or a 200, never a 5xx (property)', async () => {
    let n = 0;
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record({ username_or_email: fc.oneof(fc.string(), fc.jsonValue()), password: fc.oneof(fc.string(), fc.jsonValue()) }, { requiredKeys: [] }),
      fc.record({ username_or_email: fc.constantFrom('alice', 'bob@example.test', 'pending', ''), password: fc.constantFrom(PASSWORD, 'x', '') }),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        // A fresh address each run, so the property explores more than the throttle's answer.
        const ip = `10.1.${Math.floor(n / 250)}.${n++ % 250}`;
        const r = await api(s.url, undefined, 'POST', '/api/v3/user/login', b, { 'X-Forwarded-For': ip });
        assert.ok(r.status === 200 || (r.status >= 400 && r.status < 500), `${r.status} ${r.text}`);
        if (r.status === 200) assert.equal(typeof r.body.jwt, 'string');
        else assert.equal(typeof r.body.error, 'string', r.text);
      }),
      { seed: 37, numRuns: 80 },
    );
  });
});
