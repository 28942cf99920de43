// The whole OAuth 2 flow driven by a real client library (oauth4webapi): RFC 8414 discovery, registration through
// POST /api/v1/apps, an authorization request with PKCE and state, consent over HTTP as a signed-in member, the
// library's own callback validation, code exchange, an API call, client_credentials and revocation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { registerApp, signIn, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

function decodeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The hidden fields of the consent form, as a browser would submit them. */
function consentFields(html: string): Record<string, string> {
  const form = /<form method="post" action="\/oauth\/authorize">([\s\S]*?)<\/form>/.exec(html);
  assert.ok(form, 'the consent page has the authorization form');
  const fields: Record<string, string> = {};
  for (const m of form[1]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = decodeHtml(m[2]!);
  return fields;
}

/** Opens the authorization URL as the member in `jar` and presses Authorize or Deny; returns the callback URL. */
async function consent(authorizationUrl: URL, jar: CookieJar, decision: 'approve' | 'deny'): Promise<URL> {
  const page = await fetch(authorizationUrl, { headers: { cookie: jar.header() }, redirect: 'manual' });
  jar.store(page);
  const html = await page.text();
  assert.equal(page.status, 200, `consent page: ${page.status} ${html.slice(0, 300)}`);
  const r = await postForm(new URL('/oauth/authorize', authorizationUrl).href, jar, { ...consentFields(html), decision });
  assert.equal(r.status, 302);
  const location = r.headers.get('location');
  assert.ok(location, 'the decision redirects to the client');
  return new URL(location);
}

describe('OAuth flow with oauth4webapi', () => {
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  let registered: RegisteredApp;
  let client: oauth.Client;
  let clientAuth: oauth.ClientAuth;
  let adminPassword: string;

  before(async () => {
    s = await startTestServer();
    adminPassword = s.app.firstAdmin!.password;
    const issuer = new URL(s.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    registered = await registerApp(s.url, { client_name: 'oauth4webapi client', redirect_uris: REDIRECT_URI, scopes: 'read write' });
    client = { client_id: registered.client_id };
    clientAuth = oauth.ClientSecretPost(registered.client_secret);
  });
  after(async () => {
    await s?.stop();
  });

  async function authorizationUrl(state: string, verifier: string, scope = 'read write'): Promise<URL> {
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', REDIRECT_URI);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', scope);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    return url;
  }

  /**
   * An API call through the library. A refusal that carries an RFC 6750 WWW-Authenticate challenge is thrown by
   * the library; the response is then taken from the error, after checking the challenge names the right problem.
   */
  async function resource(token: string, path: string): Promise<Response> {
    try {
      return await oauth.protectedResourceRequest(token, 'GET', new URL(path, s.url), undefined, undefined, insecure);
    } catch (e) {
      if (!(e instanceof oauth.WWWAuthenticateChallengeError)) throw e;
      const bearer = e.cause.find((c) => c.scheme === 'bearer');
      assert.ok(bearer, 'a Bearer challenge');
      if (e.status === 401) assert.equal(bearer.parameters.error, 'invalid_token');
      if (e.status === 403) assert.equal(bearer.parameters.error, 'insufficient_scope');
      return e.response;
    }
  }

  const verifyCredentials = (token: string) => resource(token, '/api/v1/accounts/verify_credentials');

  it('discovers the server from its RFC 8414 metadata', () => {
    assert.equal(as.issuer, `${s.url}/`);
    assert.equal(as.authorization_endpoint, `${s.url}/oauth/authorize`);
    assert.equal(as.token_endpoint, `${s.url}/oauth/token`);
    assert.equal(as.revocation_endpoint, `${s.url}/oauth/revoke`);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(as.token_endpoint_auth_methods_supported, ['client_secret_post']);
    assert.deepEqual(as.grant_types_supported, ['authorization_code', 'client_credentials']);
    assert.deepEqual(as.response_types_supported, ['code']);
    assert.ok(as.scopes_supported?.includes('read:accounts'));
  });

  it('signs in, authorizes with PKCE, exchanges the code and calls the API; then revokes the token', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = await authorizationUrl(state, verifier);

    // Not signed in: the server sends the member to sign in and back to this very request.
    const jar = new CookieJar();
    const first = await fetch(url, { redirect: 'manual' });
    jar.store(first);
    assert.equal(first.status, 302);
    const signInUrl = new URL(first.headers.get('location')!, s.url);
    assert.equal(signInUrl.pathname, '/auth/sign_in');
    assert.equal(signInUrl.searchParams.get('return_to'), `${url.pathname}${url.search}`);
    const { token } = await getForm(signInUrl.href, jar);
    const signedIn = await postForm(`${s.url}/auth/sign_in`, jar, {
      authenticity_token: token,
      login: 'admin',
      password: adminPassword,
      return_to: signInUrl.searchParams.get('return_to')!,
    });
    assert.equal(signedIn.status, 303);
    assert.equal(new URL(signedIn.headers.get('location')!, s.url).href, url.href);

    const callback = await consent(url, jar, 'approve');
    assert.equal(`${callback.origin}${callback.pathname}`, REDIRECT_URI);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    assert.ok(params.get('code'));

    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT_URI, verifier, insecure);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.scope, 'read write');
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(tokens.expires_in, undefined);
    assert.equal(typeof tokens['created_at'], 'number');

    const me = await verifyCredentials(tokens.access_token);
    assert.equal(me.status, 200);
    const account = (await me.json()) as { username: string; acct: string };
    assert.equal(account.username, 'admin');
    assert.equal(account.acct, 'admin');

    // The library cannot replay the code either.
    const replay = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT_URI, verifier, insecure);
    await assert.rejects(oauth.processAuthorizationCodeResponse(as, client, replay), (e: unknown) => {
      assert.ok(e instanceof oauth.ResponseBodyError);
      assert.equal(e.error, 'invalid_grant');
      assert.equal(e.status, 400);
      return true;
    });

    const revoked = await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, insecure);
    assert.equal(await oauth.processRevocationResponse(revoked), undefined);
    const after = await verifyCredentials(tokens.access_token);
    assert.equal(after.status, 401);
    assert.deepEqual(await after.json(), { error: 'The access token is invalid' });

    // Revoking again is still a success for the library.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, insecure));
  });

  it('gets an application token with client_credentials, and revokes it', async () => {
    const response = await oauth.clientCredentialsGrantRequest(as, client, clientAuth, { scope: 'read' }, insecure);
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.scope, 'read');

    const appInfo = await resource(tokens.access_token, '/api/v1/apps/verify_credentials');
    assert.equal(appInfo.status, 200);
    assert.equal(((await appInfo.json()) as { name: string }).name, 'oauth4webapi client');

    // An application token has no member behind it.
    const member = await verifyCredentials(tokens.access_token);
    assert.equal(member.status, 422);
    assert.deepEqual(await member.json(), { error: 'This method requires an authenticated user' });

    const omitted = await oauth.processClientCredentialsResponse(as, client, await oauth.clientCredentialsGrantRequest(as, client, clientAuth, {}, insecure));
    assert.equal(omitted.scope, 'read write');

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, insecure));
    const gone = await resource(tokens.access_token, '/api/v1/apps/verify_credentials');
    assert.equal(gone.status, 401);
  });

  it('the library surfaces token-endpoint errors: a wrong secret is invalid_client', async () => {
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost('wrong-secret'), { scope: 'read' }, insecure);
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, response), (e: unknown) => {
      assert.ok(e instanceof oauth.ResponseBodyError);
      assert.equal(e.error, 'invalid_client');
      assert.equal(e.status, 401);
      return true;
    });
    const basic = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(registered.client_secret), { scope: 'read' }, insecure);
    await assert.rejects(oauth.processClientCredentialsResponse(as, client, basic), (e: unknown) => {
      assert.ok(e instanceof oauth.ResponseBodyError);
      assert.equal(e.error, 'invalid_client');
      return true;
    });
  });

  it('the library rejects a callback whose state differs or is missing', async () => {
    const jar = await signIn(s.url, 'admin', adminPassword);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const callback = await consent(await authorizationUrl(state, verifier), jar, 'approve');
    assert.equal(callback.searchParams.get('state'), state, 'the server returned the state unchanged');

    assert.throws(
      () => oauth.validateAuthResponse(as, client, callback, oauth.generateRandomState()),
      (e: unknown) => {
        assert.ok(e instanceof oauth.OperationProcessingError);
        assert.match(e.message, /state/);
        return true;
      },
    );
    const stripped = new URL(callback);
    stripped.searchParams.delete('state');
    assert.throws(() => oauth.validateAuthResponse(as, client, stripped, state), /state/);
    // The genuine callback still validates.
    assert.ok(oauth.validateAuthResponse(as, client, callback, state).get('code'));
  });

  it('a denied authorization reaches the library as an access_denied error, with the state', async () => {
    const jar = await signIn(s.url, 'admin', adminPassword);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const callback = await consent(await authorizationUrl(state, verifier), jar, 'deny');
    assert.equal(callback.searchParams.get('code'), null);
    assert.throws(
      () => oauth.validateAuthResponse(as, client, callback, state),
      (e: unknown) => {
        assert.ok(e instanceof oauth.AuthorizationResponseError);
        assert.equal(e.error, 'access_denied');
        assert.ok(e.error_description);
        assert.equal(e.cause.get('state'), state);
        return true;
      },
    );
  });

  it('the library reports a scope the app did not register as invalid_scope from the callback', async () => {
    const jar = await signIn(s.url, 'admin', adminPassword);
    const state = oauth.generateRandomState();
    const url = await authorizationUrl(state, oauth.generateRandomCodeVerifier(), 'read admin:read');
    const r = await fetch(url, { headers: { cookie: jar.header() }, redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.throws(
      () => oauth.validateAuthResponse(as, client, new URL(r.headers.get('location')!), state),
      (e: unknown) => {
        assert.ok(e instanceof oauth.AuthorizationResponseError);
        assert.equal(e.error, 'invalid_scope');
        return true;
      },
    );
  });
});
