// Two server processes sharing one database: a token revoked or a member disabled through node A is refused by
// node B on its very next request, although B had the token cached (invalidation through LISTEN/NOTIFY).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { UserStore, type LocalUser } from '../../src/store/users.js';
import { type CookieJar, getForm, postForm } from '../support/forms.js';
import { registerApp, signIn, userToken, verifyCredentials as verifyWith, type RegisteredApp } from '../support/oauth.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';

const APP_NAME = 'Two nodes client';

/** verify_credentials with a bearer token. */
function verifyCredentials(baseUrl: string, token: string) {
  return verifyWith(baseUrl, `Bearer ${token}`);
}

describe('revocation across two server processes sharing the database', () => {
  let a: TestServer;
  let b: ServerProcess;
  let app: RegisteredApp;
  let jar: CookieJar;
  let member: LocalUser;

  /** A fresh token for the member, known to node B: B answered with it twice, so the second came from its cache. */
  async function tokenCachedOnB(): Promise<string> {
    const token = await userToken(a.url, jar, app, 'read write');
    for (let i = 0; i < 2; i++) {
      const r = await verifyCredentials(b.url, token);
      assert.equal(r.status, 200, `B accepts the new token (${JSON.stringify(r.body)})`);
      assert.equal(r.body['username'], 'nina');
    }
    return token;
  }

  before(async () => {
    a = await startTestServer();
    b = await startServerProcess({ databaseUrl: a.databaseUrl, port: await freePort() });
    member = await new UserStore(a.app.db).create({
      username: 'nina',
      email: 'nina@example.test',
      passwordHash: await hashPassword('nina-password'),
      roleId: 0,
      approved: true,
    });
    jar = await signIn(a.url, 'nina', 'nina-password');
    app = await registerApp(a.url, { client_name: APP_NAME, redirect_uris: 'http://127.0.0.1:9/callback', scopes: 'read write profile' });
  });
  after(async () => {
    if (b) {
      b.child.kill('SIGTERM');
      const code = await b.exited;
      assert.equal(code, 0, `node B exits cleanly on SIGTERM:\n${b.output()}`);
    }
    await a?.stop();
  });

  it('a token revoked through POST /oauth/revoke on node A gets 401 on node B at once', async () => {
    const token = await tokenCachedOnB();
    const revoke = await fetch(`${a.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.client_id, client_secret: app.client_secret, token }).toString(),
    });
    assert.equal(revoke.status, 200);
    assert.deepEqual(await revoke.json(), {});

    const onB = await verifyCredentials(b.url, token);
    assert.equal(onB.status, 401);
    assert.deepEqual(onB.body, { error: 'The access token is invalid' });
    assert.equal((await verifyCredentials(a.url, token)).status, 401);
  });

  it('Revoke on the Authorized applications page of node A gets the token 401 on node B at once', async () => {
    const token = await tokenCachedOnB();
    const { html, token: csrf } = await getForm(`${a.url}/settings/applications`, jar);
    const row = new RegExp(`<tr data-app-id="(\\d+)" data-app-name="${APP_NAME}">[\\s\\S]*?action="(/settings/applications/\\d+/revoke)"`).exec(html);
    assert.ok(row, `the app is listed:\n${html}`);
    assert.equal(row[1], app.id);
    const r = await postForm(`${a.url}${row[2]}`, jar, { authenticity_token: csrf });
    assert.equal(r.status, 303);
    assert.equal(r.headers.get('location'), '/settings/applications?revoked=1');

    const onB = await verifyCredentials(b.url, token);
    assert.equal(onB.status, 401);
    assert.deepEqual(onB.body, { error: 'The access token is invalid' });
    assert.equal((await verifyCredentials(a.url, token)).status, 401);
  });

  it('disabling the member through node A’s database gets 403 on node B at once, and enabling lets the token work again', async () => {
    const token = await tokenCachedOnB();
    const users = new UserStore(a.app.db);
    // Through publish, as an admin action does: it returns once every node (B included) has acknowledged.
    await a.app.authEvents.publish(
      (nonce) => users.setDisabled(member.userId, true, nonce),
      (changed) => changed,
    );
    const onB = await verifyCredentials(b.url, token);
    assert.equal(onB.status, 403);
    assert.deepEqual(onB.body, { error: 'Your login is currently disabled' });
    assert.equal((await verifyCredentials(a.url, token)).status, 403);

    await a.app.authEvents.publish(
      (nonce) => users.setDisabled(member.userId, false, nonce),
      (changed) => changed,
    );
    const again = await verifyCredentials(b.url, token);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body['username'], 'nina');
  });
});
