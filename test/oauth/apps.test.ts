// POST /api/v1/apps and GET /api/v1/apps/verify_credentials, as a Mastodon client sees them: form, JSON and
// multipart registrations, the redirect-URI and scope rules with their exact messages, the secret kept only as a
// hash, and the Application entity for app and member tokens.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { appToken, registerApp, signIn, userToken, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface CredentialApplication {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  redirect_uri: string;
  redirect_uris: string[];
  client_id: string;
  client_secret: string;
  client_secret_expires_at: number;
}

describe('application registration and verify_credentials', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.stop();
  });

  const postForm = (fields: Record<string, string>) =>
    fetch(`${s.url}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  const postJson = (body: unknown) =>
    fetch(`${s.url}/api/v1/apps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const appCount = async () => Number((await s.app.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM oauth_apps')).rows[0]!.n);

  /** Asserts the registration is refused with exactly this 422 message and that nothing was stored. */
  async function assertRefused(send: () => Promise<Response>, message: string, label: string): Promise<void> {
    const before = await appCount();
    const r = await send();
    assert.equal(r.status, 422, `${label}: status`);
    assert.deepEqual(await r.json(), { error: `Validation failed: ${message}` }, `${label}: body`);
    assert.equal(await appCount(), before, `${label}: no application row was stored`);
  }

  function assertCredentialApplication(
    app: CredentialApplication,
    expect: { name: string; website: string | null; scopes: string[]; redirectUris: string[] },
  ): void {
    assert.deepEqual(Object.keys(app).sort(), [
      'client_id',
      'client_secret',
      'client_secret_expires_at',
      'id',
      'name',
      'redirect_uri',
      'redirect_uris',
      'scopes',
      'vapid_key',
      'website',
    ]);
    assert.equal(typeof app.id, 'string');
    assert.match(app.id, /^\d+$/);
    assert.equal(app.name, expect.name);
    assert.equal(app.website, expect.website);
    assert.deepEqual(app.scopes, expect.scopes);
    assert.deepEqual(app.redirect_uris, expect.redirectUris);
    assert.equal(app.redirect_uri, expect.redirectUris.join('\n'));
    assert.equal(typeof app.client_id, 'string');
    assert.ok(app.client_id.length >= 20, 'client_id is long and random');
    assert.equal(typeof app.client_secret, 'string');
    assert.ok(app.client_secret.length >= 32, 'client_secret is long and random');
    assert.notEqual(app.client_id, app.client_secret);
    assert.equal(app.client_secret_expires_at, 0);
  }

  it('registers from a form with newline-separated redirect_uris, space-separated scopes and a website', async () => {
    const r = await postForm({
      client_name: 'Form client',
      redirect_uris: 'https://client.example/callback\nmyapp://oauth',
      scopes: 'read write:statuses push',
      website: 'https://client.example/',
    });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assertCredentialApplication((await r.json()) as CredentialApplication, {
      name: 'Form client',
      website: 'https://client.example/',
      scopes: ['read', 'write:statuses', 'push'],
      redirectUris: ['https://client.example/callback', 'myapp://oauth'],
    });
  });

  it('registers from JSON with redirect_uris as an array; website is null when absent and scopes default to read', async () => {
    const r = await postJson({ client_name: 'JSON client', redirect_uris: ['https://a.example/cb', 'http://127.0.0.1:8123/cb'] });
    assert.equal(r.status, 200);
    assertCredentialApplication((await r.json()) as CredentialApplication, {
      name: 'JSON client',
      website: null,
      scopes: ['read'],
      redirectUris: ['https://a.example/cb', 'http://127.0.0.1:8123/cb'],
    });
  });

  it('registers from multipart/form-data (FormData)', async () => {
    const form = new FormData();
    form.set('client_name', 'Multipart client');
    form.set('redirect_uris', 'urn:ietf:wg:oauth:2.0:oob\nhttps://m.example/cb');
    form.set('scopes', 'read write follow');
    form.set('website', 'https://m.example');
    const r = await fetch(`${s.url}/api/v1/apps`, { method: 'POST', body: form });
    assert.equal(r.status, 200);
    assertCredentialApplication((await r.json()) as CredentialApplication, {
      name: 'Multipart client',
      website: 'https://m.example',
      scopes: ['read', 'write', 'follow'],
      redirectUris: ['urn:ietf:wg:oauth:2.0:oob', 'https://m.example/cb'],
    });
  });

  it('defaults scopes to read in a form registration too', async () => {
    const r = await postForm({ client_name: 'Default scope', redirect_uris: 'https://d.example/cb' });
    assert.equal(r.status, 200);
    const app = (await r.json()) as CredentialApplication;
    assert.deepEqual(app.scopes, ['read']);
    assert.equal(app.website, null);
  });

  it('gives every registration its own id, client_id and client_secret', async () => {
    const a = await registerApp(s.url, { client_name: 'Twin' });
    const b = await registerApp(s.url, { client_name: 'Twin' });
    assert.notEqual(a.id, b.id);
    assert.notEqual(a.client_id, b.client_id);
    assert.notEqual(a.client_secret, b.client_secret);
  });

  it('accepts https, custom schemes, http on loopback hosts and the out-of-band URI', async () => {
    const accepted = [
      'https://client.example/oauth/callback?x=1',
      'https://client.example:8443/cb',
      'com.example.app:/oauth2redirect',
      'myapp://callback',
      'http://127.0.0.1/cb',
      'http://127.0.0.1:49152/callback',
      'http://localhost:3000/callback',
      'http://[::1]:8080/cb',
      'urn:ietf:wg:oauth:2.0:oob',
    ];
    for (const uri of accepted) {
      const r = await postJson({ client_name: 'URI rules', redirect_uris: [uri] });
      assert.equal(r.status, 200, `${uri} is accepted (${r.status})`);
      const app = (await r.json()) as CredentialApplication;
      assert.deepEqual(app.redirect_uris, [uri], `${uri} is stored exactly`);
      assert.equal(app.redirect_uri, uri);
    }
  });

  it('refuses each bad redirect URI with a 422 naming the problem, and stores nothing', async () => {
    const refused: [uri: string, message: string][] = [
      ['http://client.example/callback', 'Redirect URI must be an HTTPS/SSL URI.'],
      ['http://192.168.1.10/cb', 'Redirect URI must be an HTTPS/SSL URI.'],
      ['http://localhost.example.com/cb', 'Redirect URI must be an HTTPS/SSL URI.'],
      ['https://client.example/cb#frag', 'Redirect URI cannot contain a fragment.'],
      ['myapp://cb#x', 'Redirect URI cannot contain a fragment.'],
      ['/oauth/callback', 'Redirect URI must be an absolute URI.'],
      ['callback', 'Redirect URI must be an absolute URI.'],
      ['//client.example/cb', 'Redirect URI must be an absolute URI.'],
      ['javascript:alert(1)', 'Redirect URI is forbidden by the server.'],
      ['JavaScript:alert(1)', 'Redirect URI is forbidden by the server.'],
      ['data:text/html,<script>alert(1)</script>', 'Redirect URI is forbidden by the server.'],
      ['https://client.example/a b', 'Redirect URI must be a valid URI.'],
    ];
    for (const [uri, message] of refused) {
      await assertRefused(() => postJson({ client_name: 'Bad URI', redirect_uris: [uri] }), message, `JSON ${uri}`);
      await assertRefused(() => postForm({ client_name: 'Bad URI', redirect_uris: uri }), message, `form ${uri}`);
    }
  });

  it('refuses the whole registration when one of several URIs is bad', async () => {
    await assertRefused(
      () => postForm({ client_name: 'Mixed', redirect_uris: 'https://ok.example/cb\nhttp://bad.example/cb' }),
      'Redirect URI must be an HTTPS/SSL URI.',
      'second URI bad',
    );
    await assertRefused(
      () => postJson({ client_name: 'Mixed', redirect_uris: ['https://ok.example/cb', 'https://ok.example/cb#f'] }),
      'Redirect URI cannot contain a fragment.',
      'second URI with fragment',
    );
  });

  it('refuses missing or blank redirect_uris', async () => {
    await assertRefused(() => postJson({ client_name: 'No URI' }), "Redirect URI can't be blank", 'missing');
    await assertRefused(() => postForm({ client_name: 'No URI', redirect_uris: '' }), "Redirect URI can't be blank", 'empty');
    await assertRefused(() => postJson({ client_name: 'No URI', redirect_uris: [] }), "Redirect URI can't be blank", 'empty array');
  });

  it('refuses an unknown scope with a 422 naming it, and stores nothing', async () => {
    for (const [scopes, unknown] of [
      ['read admin', 'admin'],
      ['read crypto', 'crypto'],
      ['read:statuses read:nothing', 'read:nothing'],
      ['write:collections', 'write:collections'],
    ] as const) {
      await assertRefused(
        () => postForm({ client_name: 'Scopes', redirect_uris: 'https://s.example/cb', scopes }),
        `Scopes contains an unknown scope: ${unknown}`,
        `scopes "${scopes}"`,
      );
    }
  });

  it('refuses a missing or blank client_name, and stores nothing', async () => {
    await assertRefused(() => postJson({ redirect_uris: ['https://n.example/cb'] }), "Name can't be blank", 'missing');
    await assertRefused(() => postForm({ client_name: '   ', redirect_uris: 'https://n.example/cb' }), "Name can't be blank", 'blank');
  });

  it('stores only the SHA-256 of the client secret, never the secret itself', async () => {
    const app = await registerApp(s.url, { client_name: 'Hashed secret' });
    const row = (
      await s.app.db.pool.query<{ secret_hash: Buffer; whole: string }>('SELECT secret_hash, row_to_json(o)::text AS whole FROM oauth_apps o WHERE id = $1', [
        app.id,
      ])
    ).rows[0]!;
    assert.ok(Buffer.isBuffer(row.secret_hash));
    assert.equal(row.secret_hash.length, 32);
    assert.deepEqual(row.secret_hash, createHash('sha256').update(app.client_secret).digest());
    assert.ok(!row.whole.includes(app.client_secret), 'no column holds the secret text');
    const everywhere = (
      await s.app.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM oauth_apps o WHERE row_to_json(o)::text LIKE $1', [`%${app.client_secret}%`])
    ).rows[0]!;
    assert.equal(Number(everywhere.n), 0);
  });

  describe('GET /api/v1/apps/verify_credentials', () => {
    let app: RegisteredApp;
    const verify = (authorization?: string) => fetch(`${s.url}/api/v1/apps/verify_credentials`, { headers: authorization ? { authorization } : {} });
    before(async () => {
      app = await registerApp(s.url, { client_name: 'Verify me', website: 'https://verify.example/', scopes: 'read write profile' });
    });

    function assertApplication(body: Record<string, unknown>): void {
      assert.equal(body['id'], app.id);
      assert.equal(body['name'], 'Verify me');
      assert.equal(body['website'], 'https://verify.example/');
      assert.deepEqual(body['scopes'], ['read', 'write', 'profile']);
      assert.deepEqual(body['redirect_uris'], app.redirect_uris);
      assert.equal(body['redirect_uri'], app.redirect_uris.join('\n'));
      assert.equal('client_id' in body, false, 'no client_id');
      assert.equal('client_secret' in body, false, 'no client_secret');
      assert.equal('client_secret_expires_at' in body, false, 'no client_secret_expires_at');
    }

    it('answers an application token (client_credentials) with the Application', async () => {
      const token = await appToken(s.url, app);
      const r = await verify(`Bearer ${token}`);
      assert.equal(r.status, 200);
      assertApplication((await r.json()) as Record<string, unknown>);
    });

    it('answers a member token with the Application it was issued to', async () => {
      const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
      const token = await userToken(s.url, jar, app, 'profile');
      const r = await verify(`Bearer ${token}`);
      assert.equal(r.status, 200);
      assertApplication((await r.json()) as Record<string, unknown>);
    });

    it('refuses a missing or unknown token with 401', async () => {
      for (const auth of [undefined, 'Bearer not-a-real-token', 'Bearer ', 'Basic dXNlcjpwYXNz']) {
        const r = await verify(auth);
        assert.equal(r.status, 401, `${auth ?? '(no header)'}`);
        assert.deepEqual(await r.json(), { error: 'The access token is invalid' });
      }
    });
  });

  it('sends Access-Control-Allow-Origin: * on /api/v1/apps', async () => {
    const r = await fetch(`${s.url}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://web-client.example' },
      body: JSON.stringify({ client_name: 'CORS client', redirect_uris: ['https://web-client.example/cb'] }),
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    const refused = await fetch(`${s.url}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://web-client.example' },
      body: JSON.stringify({ client_name: 'CORS client', redirect_uris: ['http://web-client.example/cb'] }),
    });
    assert.equal(refused.status, 422);
    assert.equal(refused.headers.get('access-control-allow-origin'), '*', 'errors carry the header too');
  });

  it('answers the CORS preflight for /api/v1/apps with one Access-Control-Allow-Origin: * (browsers refuse "*, *")', async () => {
    const preflight = await fetch(`${s.url}/api/v1/apps`, {
      method: 'OPTIONS',
      headers: { origin: 'https://web-client.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.ok(preflight.status === 200 || preflight.status === 204, `preflight status ${preflight.status}`);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
  });
});
