// Bearer authentication on API routes over real HTTP: GET /api/v1/accounts/verify_credentials with member tokens of
// each acceptable scope, the 401/403/422 answers in Mastodon's order, a disabled member's cached token, revocation
// seen by the very next request, and last_used_at written without a write per request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { hashPassword } from '../../src/auth/password.js';
import { UserStore, type LocalUser } from '../../src/store/users.js';
import type { CookieJar } from '../support/forms.js';
import { appToken, registerApp, signIn, userToken, type RegisteredApp, verifyCredentials } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const INVALID = { error: 'The access token is invalid' };
const OUTSIDE = { error: 'This action is outside the authorized scopes' };
const MEMBER_ONLY = { error: 'This method requires an authenticated user' };
const DISABLED = { error: 'Your login is currently disabled' };

describe('bearer authentication on verify_credentials', () => {
  let s: TestServer;
  let admin: LocalUser;
  let jar: CookieJar;
  let app: RegisteredApp;
  before(async () => {
    s = await startTestServer();
    admin = (await new UserStore(s.app.db).byLogin('admin'))!;
    jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
    app = await registerApp(s.url, { client_name: 'Bearer client', scopes: 'read write follow push profile' });
  });
  after(async () => {
    await s?.stop();
  });

  function assertCredentialAccount(body: Record<string, unknown>): void {
    assert.equal(body['id'], admin.accountId);
    assert.equal(typeof body['id'], 'string');
    assert.equal(body['username'], 'admin');
    assert.equal(body['acct'], 'admin');
    assert.equal(typeof body['display_name'], 'string');
    assert.equal(body['locked'], false);
    assert.equal(body['bot'], false);
    assert.equal(typeof body['created_at'], 'string');
    assert.ok(!Number.isNaN(Date.parse(body['created_at'] as string)), 'created_at is a date');
    assert.equal(typeof body['note'], 'string');
    assert.equal(body['url'], `${s.url}/@admin`);
    for (const k of ['avatar', 'header']) {
      assert.equal(typeof body[k], 'string', k);
      assert.match(body[k] as string, /^https?:\/\//, `${k} is an absolute URL`);
    }
    assert.equal(body['followers_count'], 0);
    assert.equal(body['following_count'], 0);
    assert.equal(body['statuses_count'], 0);
    const source = body['source'] as Record<string, unknown>;
    assert.equal(typeof source, 'object');
    assert.equal(source['privacy'], 'public');
    assert.equal(typeof source['note'], 'string');
    assert.deepEqual(source['fields'], []);
    const role = body['role'] as Record<string, unknown>;
    assert.equal(typeof role, 'object');
    assert.equal(role['name'], 'Owner');
    assert.equal(typeof role['id'], 'string');
    assert.equal(typeof role['permissions'], 'string');
    assert.equal(typeof role['color'], 'string');
    assert.equal(typeof role['highlighted'], 'boolean');
  }

  for (const scope of ['read', 'read:accounts', 'profile']) {
    it(`answers a member token with scope ${scope} with the CredentialAccount`, async () => {
      const token = await userToken(s.url, jar, app, scope);
      const first = await verifyCredentials(s.url, `Bearer ${token}`);
      assert.equal(first.status, 200);
      assertCredentialAccount(first.body);
      const again = await verifyCredentials(s.url, `Bearer ${token}`); // now from the token cache
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
    });
  }

  it('accepts the scheme in any case (bearer, BEARER)', async () => {
    const token = await userToken(s.url, jar, app, 'read');
    assert.equal((await verifyCredentials(s.url, `bearer ${token}`)).status, 200);
    assert.equal((await verifyCredentials(s.url, `BEARER ${token}`)).status, 200);
  });

  it('refuses a token whose scopes do not cover read:accounts or profile with 403', async () => {
    const narrow = await registerApp(s.url, { client_name: 'Statuses only', scopes: 'read:statuses' });
    const token = await userToken(s.url, jar, narrow, 'read:statuses');
    const r = await verifyCredentials(s.url, `Bearer ${token}`);
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, OUTSIDE);
    const writeOnly = await userToken(s.url, jar, app, 'write follow push');
    const w = await verifyCredentials(s.url, `Bearer ${writeOnly}`);
    assert.equal(w.status, 403);
    assert.deepEqual(w.body, OUTSIDE);
  });

  it('refuses an application token (client_credentials) on a member route with 422', async () => {
    const token = await appToken(s.url, app);
    for (let i = 0; i < 2; i++) {
      // twice: from the database, then from the cache
      const r = await verifyCredentials(s.url, `Bearer ${token}`);
      assert.equal(r.status, 422);
      assert.deepEqual(r.body, MEMBER_ONLY);
    }
    // The same token is good where any token will do.
    const ok = await fetch(`${s.url}/api/v1/apps/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
  });

  it('checks scopes before refusing an application token (403, not 422)', async () => {
    const token = await appToken(s.url, app, 'write');
    const r = await verifyCredentials(s.url, `Bearer ${token}`);
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, OUTSIDE);
  });

  it('refuses a missing, unknown or non-Bearer credential with 401', async () => {
    const good = await userToken(s.url, jar, app, 'read');
    for (const auth of [undefined, '', 'Bearer garbage', 'Basic x', `Basic ${good}`, `Token ${good}`, good, `Bearer ${good}x`]) {
      const r = await verifyCredentials(s.url, auth);
      assert.equal(r.status, 401, JSON.stringify(auth ?? '(no header)'));
      assert.deepEqual(r.body, INVALID);
    }
  });

  it('refuses a disabled member with 403 even from the token cache, and accepts them again once re-enabled', async () => {
    const users = new UserStore(s.app.db);
    const dora = await users.create({
      username: 'dora',
      email: 'dora@example.test',
      passwordHash: await hashPassword('dora-password'),
      roleId: 0,
      approved: true,
    });
    const doraJar = await signIn(s.url, 'dora', 'dora-password');
    const token = await userToken(s.url, doraJar, app, 'read');
    const before = await verifyCredentials(s.url, `Bearer ${token}`);
    assert.equal(before.status, 200, 'the token works and is now cached');
    assert.equal(before.body['username'], 'dora');
    assert.equal(before.body['id'], dora.accountId);

    // Through publish, as an admin action does: it returns once every node has dropped the member's cached tokens.
    await s.app.authEvents.publish(
      (nonce) => users.setDisabled(dora.userId, true, nonce),
      (changed) => changed,
    );
    const disabled = await verifyCredentials(s.url, `Bearer ${token}`);
    assert.equal(disabled.status, 403);
    assert.deepEqual(disabled.body, DISABLED);
    // Still disabled when answered from the cache the 403 lookup filled.
    const again = await verifyCredentials(s.url, `Bearer ${token}`);
    assert.equal(again.status, 403);
    assert.deepEqual(again.body, DISABLED);

    await s.app.authEvents.publish(
      (nonce) => users.setDisabled(dora.userId, false, nonce),
      (changed) => changed,
    );
    const enabled = await verifyCredentials(s.url, `Bearer ${token}`);
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body['username'], 'dora');
  });

  it('makes the very next request 401 after POST /oauth/revoke', async () => {
    const token = await userToken(s.url, jar, app, 'read');
    const other = await userToken(s.url, jar, app, 'read');
    assert.equal((await verifyCredentials(s.url, `Bearer ${token}`)).status, 200, 'cached before revocation');
    assert.equal((await verifyCredentials(s.url, `Bearer ${other}`)).status, 200);
    const r = await fetch(`${s.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.client_id, client_secret: app.client_secret, token }).toString(),
    });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), {});
    const after = await verifyCredentials(s.url, `Bearer ${token}`);
    assert.equal(after.status, 401);
    assert.deepEqual(after.body, INVALID);
    const appVerify = await fetch(`${s.url}/api/v1/apps/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(appVerify.status, 401, 'revoked everywhere, not only on one route');
    assert.equal((await verifyCredentials(s.url, `Bearer ${other}`)).status, 200, 'another token of the same member and app still works');
  });
});

describe('last_used_at of a token', () => {
  let s: TestServer | undefined;
  after(async () => {
    await s?.stop();
  });

  it('is recorded for a used token and written by the time the server has stopped', async () => {
    s = await startTestServer();
    const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
    const app = await registerApp(s.url, { client_name: 'Usage client' });
    const used = await userToken(s.url, jar, app, 'read');
    await userToken(s.url, jar, app, 'profile'); // issued, never used
    const startedUsing = Date.now();
    for (let i = 0; i < 5; i++) assert.equal((await verifyCredentials(s.url, `Bearer ${used}`)).status, 200);
    const databaseUrl = s.databaseUrl;
    await s.stop();
    s = undefined;

    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      const rows = (
        await c.query<{ scopes: string[]; created_at: Date; last_used_at: Date | null }>(
          'SELECT scopes, created_at, last_used_at FROM oauth_tokens WHERE user_id IS NOT NULL ORDER BY id',
        )
      ).rows;
      assert.equal(rows.length, 2);
      const [usedRow, unusedRow] = rows;
      assert.deepEqual(usedRow!.scopes, ['read']);
      assert.ok(usedRow!.last_used_at instanceof Date, 'the used token has last_used_at');
      assert.ok(usedRow!.last_used_at.getTime() >= usedRow!.created_at.getTime() - 1000, 'not before the token existed');
      assert.ok(usedRow!.last_used_at.getTime() >= startedUsing - 1000, 'from this run of requests');
      assert.deepEqual(unusedRow!.scopes, ['profile']);
      assert.equal(unusedRow!.last_used_at, null, 'the unused token has none');
    } finally {
      await c.end();
    }
  });
});
