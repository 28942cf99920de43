// OAuth helpers over plain HTTP: register an app, sign a member in, approve on the consent page, exchange a code.
// Tests of the flow's rules call the endpoints themselves; these are for tests that need a token to get going.
import { createHash, randomBytes } from 'node:crypto';
import { CookieJar, getForm, postForm } from './forms.js';

export interface RegisteredApp {
  readonly id: string;
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris: string[];
  readonly scopes: string[];
}

export async function registerApp(
  baseUrl: string,
  fields: { client_name?: string; redirect_uris?: string | string[]; scopes?: string; website?: string } = {},
): Promise<RegisteredApp> {
  const r = await fetch(`${baseUrl}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test client', redirect_uris: 'http://127.0.0.1:9/callback', scopes: 'read write follow push profile', ...fields }),
  });
  if (r.status !== 200) throw new Error(`app registration failed: ${r.status} ${await r.text()}`);
  return (await r.json()) as RegisteredApp;
}

/** Signs in through the real sign-in form; the jar then holds the session. */
export async function signIn(baseUrl: string, login: string, password: string, jar = new CookieJar()): Promise<CookieJar> {
  const { token } = await getForm(`${baseUrl}/auth/sign_in`, jar);
  const r = await postForm(`${baseUrl}/auth/sign_in`, jar, { authenticity_token: token, login, password });
  if (r.status !== 303) throw new Error(`sign-in failed: ${r.status}`);
  return jar;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * Opens the consent page with these query parameters and presses Authorize (or Deny); returns the redirect's
 * Location (or the response, when the server answered with a page instead of a redirect).
 */
export async function authorize(
  baseUrl: string,
  jar: CookieJar,
  query: Record<string, string>,
  decision: 'approve' | 'deny' = 'approve',
): Promise<{ status: number; location: string | null; html: string }> {
  const qs = new URLSearchParams({ response_type: 'code', ...query });
  const page = await fetch(`${baseUrl}/oauth/authorize?${qs}`, { headers: { cookie: jar.header() }, redirect: 'manual' });
  jar.store(page);
  const html = await page.text();
  if (page.status !== 200) return { status: page.status, location: page.headers.get('location'), html };
  const m = /name="authenticity_token" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSRF token on the consent page');
  const r = await postForm(`${baseUrl}/oauth/authorize`, jar, { authenticity_token: m[1]!, ...Object.fromEntries(qs), decision });
  return { status: r.status, location: r.headers.get('location'), html: await r.text() };
}

export async function postToken(
  baseUrl: string,
  fields: Record<string, string>,
  opts: { json?: boolean; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': opts.json ? 'application/json' : 'application/x-www-form-urlencoded', ...opts.headers },
    body: opts.json ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
  });
}

/** The whole authorization-code flow for a member; returns the access token. */
export async function userToken(baseUrl: string, jar: CookieJar, app: RegisteredApp, scope = 'read write'): Promise<string> {
  const redirectUri = app.redirect_uris[0]!;
  const { location } = await authorize(baseUrl, jar, { client_id: app.client_id, redirect_uri: redirectUri, scope, state: 's' });
  const code = new URL(location!).searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  const r = await postToken(baseUrl, {
    grant_type: 'authorization_code',
    code,
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: redirectUri,
  });
  if (r.status !== 200) throw new Error(`token exchange failed: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { access_token: string }).access_token;
}

export async function appToken(baseUrl: string, app: RegisteredApp, scope?: string): Promise<string> {
  const r = await postToken(baseUrl, {
    grant_type: 'client_credentials',
    client_id: app.client_id,
    client_secret: app.client_secret,
    ...(scope ? { scope } : {}),
  });
  if (r.status !== 200) throw new Error(`client_credentials failed: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { access_token: string }).access_token;
}

/** GET /api/v1/accounts/verify_credentials with this Authorization header value (none when undefined). */
export async function verifyCredentials(
  baseUrl: string,
  authorization: string | undefined,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const r = await fetch(`${baseUrl}/api/v1/accounts/verify_credentials`, { headers: authorization === undefined ? {} : { authorization } });
  return { status: r.status, body: (await r.json()) as Record<string, unknown>, headers: r.headers };
}
