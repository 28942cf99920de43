// Strict credentials, as a proxy in front might read them differently: an Authorization header that is not exactly
// `Bearer <token>` is refused, and two of them are refused outright (400, connection closed), whichever is good.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CookieJar } from '../support/forms.js';
import { rawExchange } from '../support/raw-http.js';
import { registerApp, signIn, userToken, type RegisteredApp, verifyCredentials } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const INVALID = { error: 'The access token is invalid' };

describe('strict bearer parsing', () => {
  let s: TestServer;
  let jar: CookieJar;
  let app: RegisteredApp;
  before(async () => {
    s = await startTestServer();
    jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
    app = await registerApp(s.url, { client_name: 'Strict client', scopes: 'read' });
  });
  after(async () => {
    await s?.stop();
  });

  it('refuses a header that is not exactly `Bearer <token>` (extra spaces, tabs, bytes outside visible ASCII) with 401', async () => {
    const good = await userToken(s.url, jar, app, 'read');
    assert.equal((await verifyCredentials(s.url, `Bearer ${good}`)).status, 200);
    for (const auth of [`Bearer  ${good}`, `Bearer \t${good}`, `Bearer\t${good}`, `Bearer ${good.slice(0, 4)}\t${good.slice(4)}`, `Bearer ${good}\u00e9x`]) {
      const r = await verifyCredentials(s.url, auth);
      assert.equal(r.status, 401, JSON.stringify(auth));
      assert.deepEqual(r.body, INVALID);
      assert.match(r.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }
  });

  it('refuses two Authorization headers with 400, whichever of them is good', async () => {
    const good = await userToken(s.url, jar, app, 'read');
    for (const [first, second] of [
      ['garbage', good],
      [good, 'garbage'],
      [good, good],
    ]) {
      const raw = await rawExchange(
        s.url,
        `GET /api/v1/accounts/verify_credentials HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${first}\r\nAuthorization: Bearer ${second}\r\n\r\n`,
        { requireClose: true },
      );
      assert.match(raw, /^HTTP\/1\.1 400 /);
      assert.equal(raw.slice(raw.indexOf('\r\n\r\n') + 4), '{"error":"Duplicate Authorization header"}');
    }
  });
});
