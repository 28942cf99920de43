// A member pending approval cannot come to hold an access token: bearer authentication relies on it (it has no
// check of its own for approval). Sign-in is refused, so the consent page never issues a code; once approved, the
// same member goes through the flow and the token works.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { UserStore } from '../../src/store/users.js';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { authorize, registerApp, userToken, verifyCredentials, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const CB = 'http://127.0.0.1:9/callback';

describe('OAuth: a member pending approval', () => {
  let s: TestServer;
  let users: UserStore;
  let app: RegisteredApp;

  before(async () => {
    s = await startTestServer();
    users = new UserStore(s.app.db);
    app = await registerApp(s.url, { redirect_uris: CB, scopes: 'read write' });
  });
  after(async () => {
    await s?.stop();
  });

  async function trySignIn(jar: CookieJar): Promise<{ status: number; html: string }> {
    const { token } = await getForm(`${s.url}/auth/sign_in`, jar);
    const r = await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: token, login: 'pat', password: 'pat-password-1' });
    return { status: r.status, html: await r.text() };
  }

  it('gets no session and so no code; once approved, the flow gives a working token', async () => {
    const pat = await users.create({
      username: 'pat',
      email: 'pat@example.test',
      passwordHash: await hashPassword('pat-password-1'),
      roleId: 0,
      approved: false,
    });
    const jar = new CookieJar();
    const refused = await trySignIn(jar);
    assert.equal(refused.status, 403);
    assert.match(refused.html, /Your login is currently pending approval\./);

    // Without a session the authorization endpoint sends the browser to sign in: no code is issued.
    const r = await authorize(s.url, jar, { client_id: app.client_id, redirect_uri: CB, scope: 'read', state: 's' });
    assert.equal(r.status, 302);
    assert.ok(r.location?.startsWith('/auth/sign_in?return_to='), `${r.location}`);

    assert.equal(await users.approve(pat.userId), true);
    assert.equal((await trySignIn(jar)).status, 303);
    const token = await userToken(s.url, jar, app, 'read');
    const me = await verifyCredentials(s.url, `Bearer ${token}`);
    assert.equal(me.status, 200);
    assert.equal(me.body['username'], 'pat');
  });
});
