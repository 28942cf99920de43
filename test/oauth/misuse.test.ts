// The OAuth misuse matrix: every way a client (or an attacker holding part of a flow) can get the authorization
// and token endpoints wrong, each answered with the exact status and `error` a client would see. Codes are burnt by
// any failed exchange, so each invalid_grant case also shows that a correct retry of the same code fails.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { CookieJar } from '../support/forms.js';
import { appToken, authorize, pkcePair, postToken, registerApp, signIn, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const CB = 'http://127.0.0.1:9/callback';
const CB_QUERY = 'http://127.0.0.1:9/cb?x=1';
const TEN_MINUTES = 10 * 60_000;
// A state with characters that must survive encoding both ways.
const STATE = 'st/a+te=1&x y?é~';
const INVALID_GRANT =
  'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.';
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

interface TokenError {
  error: string;
  error_description: string;
}

describe('OAuth misuse matrix', () => {
  let s: TestServer;
  let base: string;
  let jar: CookieJar;
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  let appA: RegisteredApp; // read write, two redirect URIs
  let appB: RegisteredApp; // read write, same first redirect URI as A
  let appRead: RegisteredApp; // read only
  let appWrite: RegisteredApp; // write only

  before(async () => {
    s = await startTestServer({}, undefined, { clock });
    base = s.url;
    jar = await signIn(base, 'admin', s.app.firstAdmin!.password);
    appA = await registerApp(base, { client_name: 'App A', redirect_uris: [CB, CB_QUERY], scopes: 'read write' });
    appB = await registerApp(base, { client_name: 'App B', redirect_uris: [CB], scopes: 'read write' });
    appRead = await registerApp(base, { client_name: 'Reader', redirect_uris: [CB], scopes: 'read' });
    appWrite = await registerApp(base, { client_name: 'Writer', redirect_uris: [CB], scopes: 'write' });
  });
  after(async () => {
    await s?.stop();
  });

  /** Approves on the consent page as admin and returns the code from the callback (state checked unchanged). */
  async function getCode(app: RegisteredApp, opts: { redirectUri?: string; scope?: string; challenge?: string } = {}): Promise<string> {
    const redirectUri = opts.redirectUri ?? CB;
    const query: Record<string, string> = { client_id: app.client_id, redirect_uri: redirectUri, scope: opts.scope ?? 'read', state: STATE };
    if (opts.challenge) Object.assign(query, { code_challenge: opts.challenge, code_challenge_method: 'S256' });
    const r = await authorize(base, jar, query);
    assert.equal(r.status, 302, `consent should redirect, got ${r.status}: ${r.html.slice(0, 300)}`);
    assert.ok(r.location!.startsWith(`${redirectUri}${redirectUri.includes('?') ? '&' : '?'}code=`), r.location!);
    const loc = new URL(r.location!);
    assert.equal(loc.searchParams.get('state'), STATE);
    const code = loc.searchParams.get('code');
    assert.ok(code, `a code in ${r.location}`);
    return code;
  }

  /** A code exchange with app's credentials; `extra` overrides fields, undefined removes one. */
  function exchange(
    app: RegisteredApp,
    code: string,
    extra: Record<string, string | undefined> = {},
    opts: { json?: boolean; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const fields: Record<string, string | undefined> = {
      grant_type: 'authorization_code',
      code,
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: CB,
      ...extra,
    };
    const clean = Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
    return postToken(base, clean, opts);
  }

  async function assertTokenError(r: Response, status: number, error: string): Promise<TokenError> {
    const text = await r.text();
    assert.equal(r.status, status, `expected ${status} ${error}, got ${r.status} ${text}`);
    assert.match(r.headers.get('cache-control') ?? '', /no-store/);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    const body = JSON.parse(text) as TokenError;
    assert.equal(body.error, error);
    assert.equal(typeof body.error_description, 'string');
    assert.ok(body.error_description.length > 0);
    return body;
  }

  async function assertSuccess(r: Response, scope: string): Promise<string> {
    const text = await r.text();
    assert.equal(r.status, 200, text);
    const body = JSON.parse(text) as { access_token: string; scope: string };
    assert.equal(body.scope, scope);
    return body.access_token;
  }

  async function username(token: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const r = await fetch(`${base}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  }

  /** The GET of the authorization endpoint, as signed-in admin (or anonymous), without following redirects. */
  async function authorizeGet(query: Record<string, string>, signedIn = true): Promise<{ status: number; location: string | null; html: string }> {
    const r = await fetch(`${base}/oauth/authorize?${new URLSearchParams(query)}`, { headers: signedIn ? { cookie: jar.header() } : {}, redirect: 'manual' });
    return { status: r.status, location: r.headers.get('location'), html: await r.text() };
  }

  /** The authorization endpoint sent the member back to the client with this error and the state unchanged. */
  function assertRedirectError(r: { status: number; location: string | null }, redirectUri: string, error: string): void {
    assert.equal(r.status, 302);
    assert.ok(r.location, 'a Location header');
    assert.ok(r.location.startsWith(`${redirectUri}?`), r.location);
    const q = new URL(r.location).searchParams;
    assert.equal(q.get('error'), error);
    assert.ok((q.get('error_description') ?? '').length > 0, 'an error_description');
    assert.equal(q.get('state'), STATE);
    assert.equal(q.get('code'), null);
  }

  /** The authorization endpoint refused on its own page and did not redirect anywhere. */
  function assertErrorPage(r: { status: number; location: string | null; html: string }): void {
    assert.equal(r.status, 400);
    assert.equal(r.location, null);
    assert.match(r.html, /id="oauth-error"/);
  }

  describe('token endpoint success response', () => {
    it('has exactly access_token, token_type Bearer, scope and created_at, with no refresh_token or expiry', async () => {
      const code = await getCode(appA, { scope: 'read write' });
      const r = await exchange(appA, code);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('cache-control') ?? '', /no-store/);
      const body = (await r.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'created_at', 'scope', 'token_type']);
      assert.equal(body['token_type'], 'Bearer');
      assert.equal(body['scope'], 'read write');
      assert.equal(typeof body['access_token'], 'string');
      assert.ok(Number.isInteger(body['created_at']), `created_at is an integer: ${body['created_at']}`);
      assert.ok(Math.abs((body['created_at'] as number) - Date.now() / 1000) < 60, 'created_at is now, in Unix seconds');
      assert.equal('refresh_token' in body, false);
      assert.equal('expires_in' in body, false);
      const me = await username(body['access_token'] as string);
      assert.equal(me.status, 200);
      assert.equal(me.body['username'], 'admin');
    });

    it('accepts a JSON body as well as a form body, for both grants', async () => {
      const code = await getCode(appA);
      const token = await assertSuccess(await exchange(appA, code, {}, { json: true }), 'read');
      assert.equal((await username(token)).body['username'], 'admin');

      const cc = await postToken(
        base,
        { grant_type: 'client_credentials', client_id: appA.client_id, client_secret: appA.client_secret, scope: 'read' },
        { json: true },
      );
      await assertSuccess(cc, 'read');
      const ccForm = await postToken(base, { grant_type: 'client_credentials', client_id: appA.client_id, client_secret: appA.client_secret, scope: 'read' });
      await assertSuccess(ccForm, 'read');
    });

    it('client_credentials with the scope omitted grants the registered scopes', async () => {
      const r = await postToken(base, { grant_type: 'client_credentials', client_id: appA.client_id, client_secret: appA.client_secret });
      const body = (await r.json()) as Record<string, unknown>;
      assert.equal(r.status, 200);
      assert.equal(body['scope'], 'read write');
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'created_at', 'scope', 'token_type']);
      const w = await postToken(base, { grant_type: 'client_credentials', client_id: appWrite.client_id, client_secret: appWrite.client_secret });
      await assertSuccess(w, 'write');
    });
  });

  describe('authorization codes', () => {
    it('code replay: the second exchange of a code is invalid_grant', async () => {
      const code = await getCode(appA);
      const token = await assertSuccess(await exchange(appA, code), 'read');
      await assertTokenError(await exchange(appA, code), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code, {}, { json: true }), 400, 'invalid_grant');
      assert.equal((await username(token)).status, 200, 'the token from the first exchange still works');
    });

    it('an unknown code is invalid_grant', async () => {
      await assertTokenError(await exchange(appA, 'not-a-code-we-issued'), 400, 'invalid_grant');
    });

    it('expired code (fake clock): past ten minutes after approval it is invalid_grant, and stays burnt', async () => {
      const code = await getCode(appA);
      offset = TEN_MINUTES + 5_000;
      try {
        await assertTokenError(await exchange(appA, code), 400, 'invalid_grant');
      } finally {
        offset = 0;
      }
      await assertTokenError(await exchange(appA, code), 400, 'invalid_grant');
    });

    it('a code nine minutes old still works', async () => {
      const code = await getCode(appA);
      offset = 9 * 60_000;
      try {
        const token = await assertSuccess(await exchange(appA, code), 'read');
        assert.equal((await username(token)).body['username'], 'admin');
      } finally {
        offset = 0;
      }
    });

    it("another app's code: exchanged with app B's credentials is invalid_grant, and then app A cannot use it either", async () => {
      const code = await getCode(appA);
      await assertTokenError(await exchange(appB, code), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code), 400, 'invalid_grant');
    });

    it('code or redirect_uri missing is invalid_request', async () => {
      const code = await getCode(appA);
      await assertTokenError(await exchange(appA, code, { code: undefined }), 400, 'invalid_request');
      await assertTokenError(await exchange(appA, code, { redirect_uri: undefined }), 400, 'invalid_request');
    });
  });

  describe('redirect URI must match exactly', () => {
    const variants: Array<[string, string]> = [
      ['a trailing slash', `${CB}/`],
      ['the port', 'http://127.0.0.1:10/callback'],
      ['an added query', `${CB}?x=1`],
    ];

    for (const [what, uri] of variants) {
      it(`at authorization, a URI differing by ${what} gets the error page and no redirect`, async () => {
        assertErrorPage(await authorizeGet({ response_type: 'code', client_id: appA.client_id, redirect_uri: uri, scope: 'read', state: STATE }));
      });

      it(`at the token exchange, a URI differing by ${what} is invalid_grant and burns the code`, async () => {
        const code = await getCode(appA);
        await assertTokenError(await exchange(appA, code, { redirect_uri: uri }), 400, 'invalid_grant');
        await assertTokenError(await exchange(appA, code), 400, 'invalid_grant');
      });
    }

    it('a registered URI with a query must keep its query, exactly', async () => {
      for (const uri of ['http://127.0.0.1:9/cb', 'http://127.0.0.1:9/cb?x=2', 'http://127.0.0.1:9/cb?x=1&y=2']) {
        assertErrorPage(await authorizeGet({ response_type: 'code', client_id: appA.client_id, redirect_uri: uri, scope: 'read', state: STATE }));
      }
      const code = await getCode(appA, { redirectUri: CB_QUERY });
      await assertTokenError(await exchange(appA, code, { redirect_uri: 'http://127.0.0.1:9/cb' }), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code, { redirect_uri: CB_QUERY }), 400, 'invalid_grant');

      const good = await getCode(appA, { redirectUri: CB_QUERY });
      await assertSuccess(await exchange(appA, good, { redirect_uri: CB_QUERY }), 'read');
    });

    it("the app's other registered URI is not the one the code was issued for: invalid_grant", async () => {
      const code = await getCode(appA);
      await assertTokenError(await exchange(appA, code, { redirect_uri: CB_QUERY }), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code), 400, 'invalid_grant');
    });

    it('an unknown client_id gets the error page and no redirect, signed in or not', async () => {
      assertErrorPage(await authorizeGet({ response_type: 'code', client_id: 'no-such-client', redirect_uri: CB, scope: 'read', state: STATE }));
      assertErrorPage(await authorizeGet({ response_type: 'code', client_id: 'no-such-client', redirect_uri: CB, scope: 'read', state: STATE }, false));
      assertErrorPage(await authorizeGet({ response_type: 'code', client_id: appA.client_id, redirect_uri: `${CB}/`, state: STATE }, false));
    });

    it('a redirect URI with a fragment cannot be registered: 422 naming the problem', async () => {
      const json = await fetch(`${base}/api/v1/apps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Fragment', redirect_uris: ['https://example.com/cb#frag'], scopes: 'read' }),
      });
      assert.equal(json.status, 422);
      assert.deepEqual(await json.json(), { error: 'Validation failed: Redirect URI cannot contain a fragment.' });

      const form = await fetch(`${base}/api/v1/apps`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_name: 'Fragment', redirect_uris: 'https://example.com/ok\nhttps://example.com/cb#', scopes: 'read' }).toString(),
      });
      assert.equal(form.status, 422);
      assert.deepEqual(await form.json(), { error: 'Validation failed: Redirect URI cannot contain a fragment.' });
    });
  });

  describe('PKCE', () => {
    it('the right verifier works (control)', async () => {
      const p = pkcePair();
      const code = await getCode(appA, { challenge: p.challenge });
      await assertSuccess(await exchange(appA, code, { code_verifier: p.verifier }), 'read');
    });

    it('a wrong verifier is invalid_grant and burns the code', async () => {
      const p = pkcePair();
      const code = await getCode(appA, { challenge: p.challenge });
      const last = p.verifier.at(-1) === 'A' ? 'B' : 'A';
      await assertTokenError(await exchange(appA, code, { code_verifier: p.verifier.slice(0, -1) + last }), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code, { code_verifier: p.verifier }), 400, 'invalid_grant');
    });

    // The challenge at authorization is the S256 of the very verifier sent, so the hash comparison alone would
    // accept it: only RFC 7636's verifier format (43 to 128 of A-Z a-z 0-9 - . _ ~) refuses it.
    const malformed: Array<[string, string]> = [
      ['42 characters, one too few', 'a'.repeat(42)],
      ['129 characters, one too many', 'a'.repeat(129)],
      ['base64 rather than base64url characters', `${'a'.repeat(40)}+/=`],
    ];
    for (const [what, verifier] of malformed) {
      it(`a malformed verifier (${what}) is invalid_grant even when its own S256 challenge was sent`, async () => {
        const code = await getCode(appA, { challenge: s256(verifier) });
        const body = await assertTokenError(await exchange(appA, code, { code_verifier: verifier }), 400, 'invalid_grant');
        assert.equal(body.error_description, INVALID_GRANT);
      });
    }

    it('a verifier of exactly 43 or 128 characters is accepted (control for the malformed ones)', async () => {
      for (const verifier of ['a'.repeat(43), `${'a'.repeat(124)}-._~`]) {
        const code = await getCode(appA, { challenge: s256(verifier) });
        await assertSuccess(await exchange(appA, code, { code_verifier: verifier }), 'read');
      }
    });

    it('the verifier from another attempt is invalid_grant, though it is right for its own attempt', async () => {
      const p1 = pkcePair();
      const p2 = pkcePair();
      const code1 = await getCode(appA, { challenge: p1.challenge });
      const code2 = await getCode(appA, { challenge: p2.challenge });
      await assertTokenError(await exchange(appA, code1, { code_verifier: p2.verifier }), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code1, { code_verifier: p1.verifier }), 400, 'invalid_grant');
      await assertSuccess(await exchange(appA, code2, { code_verifier: p2.verifier }), 'read');
    });

    it('a missing verifier after a challenge is invalid_grant and burns the code', async () => {
      const p = pkcePair();
      const code = await getCode(appA, { challenge: p.challenge });
      await assertTokenError(await exchange(appA, code), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code, { code_verifier: p.verifier }), 400, 'invalid_grant');
    });

    it('an empty verifier after a challenge is invalid_grant', async () => {
      const p = pkcePair();
      const code = await getCode(appA, { challenge: p.challenge });
      await assertTokenError(await exchange(appA, code, { code_verifier: '' }), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code, { code_verifier: p.verifier }), 400, 'invalid_grant');
    });

    it('a verifier sent without a challenge is invalid_grant and burns the code', async () => {
      const code = await getCode(appA);
      await assertTokenError(await exchange(appA, code, { code_verifier: pkcePair().verifier }), 400, 'invalid_grant');
      await assertTokenError(await exchange(appA, code), 400, 'invalid_grant');
    });

    it('code_challenge_method plain is refused with a redirect carrying invalid_request', async () => {
      const p = pkcePair();
      const q = { response_type: 'code', client_id: appA.client_id, redirect_uri: CB, scope: 'read', state: STATE };
      assertRedirectError(await authorizeGet({ ...q, code_challenge: p.verifier, code_challenge_method: 'plain' }), CB, 'invalid_request');
      assertRedirectError(await authorizeGet({ ...q, code_challenge: p.challenge }), CB, 'invalid_request');
    });
  });

  describe('client authentication', () => {
    const basic = (app: RegisteredApp) => ({ authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}` });

    it('HTTP Basic client authentication with no credentials in the body is invalid_client (401)', async () => {
      const code = await getCode(appA);
      await assertTokenError(await exchange(appA, code, { client_id: undefined, client_secret: undefined }, { headers: basic(appA) }), 401, 'invalid_client');
      await assertTokenError(await postToken(base, { grant_type: 'client_credentials' }, { headers: basic(appA) }), 401, 'invalid_client');
    });

    it('a Basic header is invalid_client even with the right credentials in the body too', async () => {
      const code = await getCode(appA);
      await assertTokenError(await exchange(appA, code, {}, { headers: basic(appA) }), 401, 'invalid_client');
      await assertTokenError(
        await postToken(base, { grant_type: 'client_credentials', client_id: appA.client_id, client_secret: appA.client_secret }, { headers: basic(appA) }),
        401,
        'invalid_client',
      );
    });

    it('a missing client_secret is invalid_client (401)', async () => {
      const code = await getCode(appA);
      await assertTokenError(await exchange(appA, code, { client_secret: undefined }), 401, 'invalid_client');
      await assertTokenError(await exchange(appA, code, { client_secret: '' }), 401, 'invalid_client');
      await assertTokenError(await postToken(base, { grant_type: 'client_credentials', client_id: appA.client_id }), 401, 'invalid_client');
    });

    it('a missing client_id is invalid_client (401)', async () => {
      await assertTokenError(await postToken(base, { grant_type: 'client_credentials', client_secret: appA.client_secret }), 401, 'invalid_client');
    });

    it("a wrong secret, another app's secret or an unknown client is invalid_client (401)", async () => {
      const code = await getCode(appA);
      await assertTokenError(await exchange(appA, code, { client_secret: `${appA.client_secret}x` }), 401, 'invalid_client');
      await assertTokenError(await exchange(appA, code, { client_secret: appB.client_secret }), 401, 'invalid_client');
      await assertTokenError(await exchange(appA, code, { client_id: 'no-such-client' }), 401, 'invalid_client');
      await assertTokenError(
        await postToken(base, { grant_type: 'client_credentials', client_id: appA.client_id, client_secret: 'wrong' }, { json: true }),
        401,
        'invalid_client',
      );
    });
  });

  describe('grant types', () => {
    for (const grant of ['password', 'refresh_token', 'foo']) {
      it(`grant_type ${grant} is unsupported_grant_type (400)`, async () => {
        const fields = {
          grant_type: grant,
          client_id: appA.client_id,
          client_secret: appA.client_secret,
          username: 'admin',
          password: s.app.firstAdmin!.password,
          refresh_token: 'x',
        };
        await assertTokenError(await postToken(base, fields), 400, 'unsupported_grant_type');
        await assertTokenError(await postToken(base, fields, { json: true }), 400, 'unsupported_grant_type');
      });
    }

    it('a missing grant_type is invalid_request (400)', async () => {
      await assertTokenError(await postToken(base, { client_id: appA.client_id, client_secret: appA.client_secret }), 400, 'invalid_request');
      await assertTokenError(await postToken(base, { client_id: appA.client_id, client_secret: appA.client_secret }, { json: true }), 400, 'invalid_request');
    });
  });

  describe('scopes', () => {
    const q = (app: RegisteredApp, extra: Record<string, string> = {}) => ({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: CB,
      state: STATE,
      ...extra,
    });

    it('authorizing a scope the app did not register redirects with invalid_scope', async () => {
      assertRedirectError(await authorizeGet(q(appRead, { scope: 'write' })), CB, 'invalid_scope');
      assertRedirectError(await authorizeGet(q(appRead, { scope: 'read write' })), CB, 'invalid_scope');
      assertRedirectError(await authorizeGet(q(appRead, { scope: 'read no-such-scope' })), CB, 'invalid_scope');
    });

    it('a granular scope covered by the registration is accepted (control)', async () => {
      const code = await getCode(appRead, { scope: 'read:statuses' });
      await assertSuccess(await exchange(appRead, code), 'read:statuses');
    });

    it('omitting scope at authorization means read, refused when only write is registered', async () => {
      assertRedirectError(await authorizeGet(q(appWrite)), CB, 'invalid_scope');
      // ... and granted as read when read is registered
      const r = await authorize(base, jar, { client_id: appRead.client_id, redirect_uri: CB, state: STATE });
      const code = new URL(r.location!).searchParams.get('code')!;
      await assertSuccess(await exchange(appRead, code), 'read');
    });

    it('client_credentials with a scope not registered, or unknown, is invalid_scope (400)', async () => {
      const cc = (app: RegisteredApp, scope: string) =>
        postToken(base, { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope });
      await assertTokenError(await cc(appRead, 'write'), 400, 'invalid_scope');
      await assertTokenError(await cc(appRead, 'read write'), 400, 'invalid_scope');
      await assertTokenError(await cc(appRead, 'no-such-scope'), 400, 'invalid_scope');
      await assertTokenError(await cc(appWrite, 'read'), 400, 'invalid_scope');
      await assertSuccess(await cc(appRead, 'read:accounts'), 'read:accounts');
    });

    it('the consent form post re-validates: a scope widened in the form redirects with invalid_scope', async () => {
      const page = await fetch(`${base}/oauth/authorize?${new URLSearchParams(q(appRead, { scope: 'read' }))}`, { headers: { cookie: jar.header() } });
      assert.equal(page.status, 200);
      const token = /name="authenticity_token" value="([^"]+)"/.exec(await page.text())![1]!;
      const r = await fetch(`${base}/oauth/authorize`, {
        method: 'POST',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ authenticity_token: token, ...q(appRead, { scope: 'read write' }), decision: 'approve' }).toString(),
        redirect: 'manual',
      });
      assertRedirectError({ status: r.status, location: r.headers.get('location') }, CB, 'invalid_scope');
    });
  });

  describe('response type', () => {
    it('response_type=token redirects with unsupported_response_type', async () => {
      assertRedirectError(
        await authorizeGet({ response_type: 'token', client_id: appA.client_id, redirect_uri: CB, scope: 'read', state: STATE }),
        CB,
        'unsupported_response_type',
      );
    });
  });

  describe('revocation', () => {
    const revoke = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
    const creds = (app: RegisteredApp) => ({ client_id: app.client_id, client_secret: app.client_secret });

    async function assertEmptyOk(r: Response): Promise<void> {
      assert.equal(r.status, 200);
      assert.deepEqual(await r.json(), {});
    }

    it("revoking with another app's credentials is 403 unauthorized_client, and the token keeps working", async () => {
      const token = await assertSuccess(await exchange(appA, await getCode(appA)), 'read');
      await assertTokenError(await revoke({ ...creds(appB), token }), 403, 'unauthorized_client');
      const me = await username(token);
      assert.equal(me.status, 200);
      assert.equal(me.body['username'], 'admin');
    });

    it('revoking an unknown token is 200 {}', async () => {
      await assertEmptyOk(await revoke({ ...creds(appA), token: 'no-such-token' }));
    });

    it('revoking twice is 200 {} both times, and the token stops working at once', async () => {
      const token = await assertSuccess(await exchange(appA, await getCode(appA)), 'read');
      assert.equal((await username(token)).status, 200);
      await assertEmptyOk(await revoke({ ...creds(appA), token }));
      const me = await username(token);
      assert.equal(me.status, 401);
      assert.equal(typeof me.body['error'], 'string');
      await assertEmptyOk(await revoke({ ...creds(appA), token }));
    });

    it('an app token can be revoked by its app too', async () => {
      const token = await appToken(base, appA, 'read');
      await assertEmptyOk(await revoke({ ...creds(appA), token }));
      const r = await fetch(`${base}/api/v1/apps/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(r.status, 401);
    });

    it('revoking without client credentials, with a wrong secret or with Basic is 401 invalid_client', async () => {
      const token = await assertSuccess(await exchange(appA, await getCode(appA)), 'read');
      await assertTokenError(await revoke({ token }), 401, 'invalid_client');
      await assertTokenError(await revoke({ client_id: appA.client_id, token }), 401, 'invalid_client');
      await assertTokenError(await revoke({ client_id: appA.client_id, client_secret: 'wrong', token }), 401, 'invalid_client');
      await assertTokenError(
        await revoke({ token }, { authorization: `Basic ${Buffer.from(`${appA.client_id}:${appA.client_secret}`).toString('base64')}` }),
        401,
        'invalid_client',
      );
      assert.equal((await username(token)).status, 200, 'none of these revoked the token');
    });

    it('revoking without a token is 400 invalid_request', async () => {
      await assertTokenError(await revoke(creds(appA)), 400, 'invalid_request');
    });
  });
});
