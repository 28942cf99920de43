// The OAuth consent page in a real Chromium: sign in on the way, Authorize and Deny reaching a real loopback
// callback, the out-of-band code, an unregistered redirect URI, the Authorized applications page and a forged
// cross-site consent form.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { pkcePair, postToken, registerApp, verifyCredentials as verifyWith, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const OOB = 'urn:ietf:wg:oauth:2.0:oob';
const APP_NAME = 'Chromium Test Client';
const STATE = 'a b/c?d=e&f +%20é';

/** A loopback client: records every request it gets and answers 200 "ok". */
interface CallbackServer {
  readonly origin: string;
  readonly redirectUri: string;
  /** Every request URL received so far, in order. */
  readonly hits: string[];
  /** The requests to the callback path since the index given, parsed. */
  callbacksSince(index: number): URL[];
  close(): Promise<void>;
}

async function startCallbackServer(): Promise<CallbackServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    redirectUri: `${origin}/callback`,
    hits,
    callbacksSince: (index) =>
      hits
        .slice(index)
        .map((u) => new URL(u, origin))
        .filter((u) => u.pathname === '/callback'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('OAuth authorization in Chromium', () => {
  let s: TestServer;
  let browser: Browser;
  let cb: CallbackServer;
  let app: RegisteredApp;
  let adminPassword: string;
  /** The tokens obtained in the flows below, revoked together on the Authorized applications page. */
  let flowToken: string | undefined;
  let oobToken: string | undefined;

  const authorizeUrl = (query: Record<string, string>) =>
    `${s.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.client_id, ...query })}`;

  /** A new browser signed in as the admin through the sign-in page. */
  async function signedInContext(): Promise<BrowserContext> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInWithForm(page, s.url, 'admin', adminPassword);
    await page.waitForURL(`${s.url}/`);
    await page.close();
    return context;
  }

  before(async () => {
    s = await startTestServer();
    adminPassword = s.app.firstAdmin!.password;
    cb = await startCallbackServer();
    browser = await launchBrowser();
    app = await registerApp(s.url, { client_name: APP_NAME, redirect_uris: [cb.redirectUri, OOB], scopes: 'read write follow profile' });
  });
  after(async () => {
    await browser?.close();
    await cb?.close();
    await s?.stop();
  });

  it('signs a signed-out member in on the way, shows the consent page and redirects to the client with the code and the exact state', async () => {
    const { verifier, challenge } = pkcePair();
    const context = await browser.newContext();
    const page = await context.newPage();
    const url = authorizeUrl({
      redirect_uri: cb.redirectUri,
      scope: 'read write:statuses profile',
      state: STATE,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    await page.goto(url);
    assert.equal(new URL(page.url()).pathname, '/auth/sign_in', `sent to sign in, at ${page.url()}`);
    await signInWithForm(page, s.url, 'admin', adminPassword);
    await page.waitForURL((u) => u.pathname === '/oauth/authorize');
    assert.equal(page.url(), url, 'back at the very same authorization request');

    assert.equal(await page.textContent('#app-name'), APP_NAME);
    const scopes = await page.$$eval('ul#scopes li[data-scope]', (lis) => lis.map((li) => [li.getAttribute('data-scope'), li.textContent ?? '']));
    assert.deepEqual(
      scopes.map(([scope]) => scope),
      ['read', 'write:statuses', 'profile'],
    );
    const words = new Map(scopes.map(([scope, text]) => [scope, text]));
    assert.match(words.get('read')!, /^Read all your account’s data/);
    assert.match(words.get('write:statuses')!, /^Change your statuses/);
    assert.match(words.get('profile')!, /^Read only your basic profile information/);

    const before = cb.hits.length;
    await Promise.all([page.waitForURL((u) => u.origin === cb.origin), page.click('#authorize')]);
    assert.equal(await page.textContent('body'), 'ok');
    const got = cb.callbacksSince(before);
    assert.equal(got.length, 1, `one callback, got ${cb.hits.slice(before).join(', ')}`);
    const code = got[0]!.searchParams.get('code');
    assert.ok(code, 'the callback carries a code');
    assert.equal(got[0]!.searchParams.get('state'), STATE);
    assert.equal(got[0]!.searchParams.has('error'), false);
    await context.close();

    const r = await postToken(s.url, {
      grant_type: 'authorization_code',
      code,
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: cb.redirectUri,
      code_verifier: verifier,
    });
    assert.equal(r.status, 200);
    const body = (await r.json()) as { access_token: string; token_type: string; scope: string };
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.scope, 'read write:statuses profile');
    const me = await verifyWith(s.url, `Bearer ${body.access_token}`);
    assert.equal(me.status, 200);
    assert.equal(me.body['username'], 'admin');
    flowToken = body.access_token;
  });

  it('Deny redirects to the client with error=access_denied and the exact state, and no code', async () => {
    const context = await signedInContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl({ redirect_uri: cb.redirectUri, scope: 'read', state: STATE }));
    assert.equal(await page.textContent('#app-name'), APP_NAME);
    const before = cb.hits.length;
    await Promise.all([page.waitForURL((u) => u.origin === cb.origin), page.click('#deny')]);
    const got = cb.callbacksSince(before);
    assert.equal(got.length, 1, `one callback, got ${cb.hits.slice(before).join(', ')}`);
    const q = got[0]!.searchParams;
    assert.equal(q.get('error'), 'access_denied');
    assert.ok(q.get('error_description'), 'with a description');
    assert.equal(q.get('state'), STATE);
    assert.equal(q.has('code'), false);
    await context.close();
  });

  it('shows the code on the page for the out-of-band redirect URI, and that code can be exchanged', async () => {
    const context = await signedInContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl({ redirect_uri: OOB, scope: 'read', state: STATE }));
    assert.equal(await page.textContent('#app-name'), APP_NAME);
    const before = cb.hits.length;
    const [response] = await Promise.all([page.waitForResponse(`${s.url}/oauth/authorize`), page.click('#authorize')]);
    assert.equal(response.status(), 200);
    await page.waitForSelector('#authorization-code');
    assert.equal(new URL(page.url()).origin, new URL(s.url).origin, 'the browser stays on the server');
    const code = (await page.textContent('#authorization-code'))!.trim();
    assert.ok(code.length >= 20, `a code is shown: ${JSON.stringify(code)}`);
    assert.equal(cb.callbacksSince(before).length, 0);
    await context.close();

    const r = await postToken(s.url, { grant_type: 'authorization_code', code, client_id: app.client_id, client_secret: app.client_secret, redirect_uri: OOB });
    assert.equal(r.status, 200);
    const body = (await r.json()) as { access_token: string; scope: string };
    assert.equal(body.scope, 'read');
    const me = await verifyWith(s.url, `Bearer ${body.access_token}`);
    assert.equal(me.status, 200);
    assert.equal(me.body['username'], 'admin');
    oobToken = body.access_token;
  });

  it('shows an error page for a redirect URI that is not registered, and never redirects to it', async () => {
    const context = await signedInContext();
    const page = await context.newPage();
    const before = cb.hits.length;
    for (const redirectUri of [`${cb.origin}/elsewhere`, `${cb.redirectUri}/`, `${cb.redirectUri}?x=1`]) {
      const response = await page.goto(authorizeUrl({ redirect_uri: redirectUri, scope: 'read', state: STATE }));
      assert.equal(response!.status(), 400, redirectUri);
      assert.equal(new URL(page.url()).origin, new URL(s.url).origin, `still on the server for ${redirectUri}`);
      assert.ok(await page.isVisible('#oauth-error'), `#oauth-error shown for ${redirectUri}`);
      assert.match((await page.textContent('#oauth-error'))!, /redirect URI/i);
      assert.equal(await page.locator('#authorize').count(), 0);
    }
    await context.close();

    // Signed out too: the problem is shown before any sign-in.
    const anon = await browser.newContext();
    const anonPage = await anon.newPage();
    const response = await anonPage.goto(authorizeUrl({ redirect_uri: `${cb.origin}/elsewhere`, state: STATE }));
    assert.equal(response!.status(), 400);
    assert.equal(new URL(anonPage.url()).pathname, '/oauth/authorize');
    assert.ok(await anonPage.isVisible('#oauth-error'));
    await anon.close();
    assert.deepEqual(cb.hits.slice(before), [], 'the callback server received nothing');
  });

  it('lists the authorized app on the Authorized applications page, and Revoke ends its tokens', async () => {
    assert.ok(flowToken && oobToken, 'the flows above produced tokens');
    const context = await signedInContext();
    const page = await context.newPage();
    await page.goto(`${s.url}/settings/applications`);
    const row = page.locator(`#authorized-apps tr[data-app-name="${APP_NAME}"]`);
    assert.equal(await row.count(), 1);
    const scopes = (await row.locator('td.scopes').textContent())!.trim().split(/\s+/).sort();
    assert.deepEqual(scopes, ['profile', 'read', 'write:statuses']);

    await Promise.all([
      page.waitForURL((u) => u.pathname === '/settings/applications' && u.searchParams.get('revoked') === '1'),
      row.locator('button', { hasText: 'Revoke' }).click(),
    ]);
    assert.ok(await page.isVisible('#revoked-notice'));
    assert.equal(await page.locator(`tr[data-app-name="${APP_NAME}"]`).count(), 0, 'the app is gone from the list');
    assert.ok(await page.isVisible('#no-apps'));
    await context.close();

    for (const token of [flowToken!, oobToken!]) {
      const r = await verifyWith(s.url, `Bearer ${token}`);
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { error: 'The access token is invalid' });
    }
  });

  it('refuses a consent form posted from another site or without a valid CSRF token: 403, no code, no redirect', async () => {
    const context = await signedInContext();
    const page = await context.newPage();
    const query = { response_type: 'code', client_id: app.client_id, redirect_uri: cb.redirectUri, scope: 'read', state: STATE };
    await page.goto(authorizeUrl(query)); // the browser now holds a session and a CSRF cookie, and sees a real token
    const realToken = (await page.getAttribute('input[name=authenticity_token]', 'value'))!;
    const codesBefore = Number((await s.app.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM oauth_codes')).rows[0]!.n);
    const before = cb.hits.length;

    // A page of no site of ours posting the consent form, with a forged token and then even with the real one
    // (SameSite=Lax keeps the cookies out of a cross-site POST).
    const escapeAttr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    for (const token of ['forged', realToken]) {
      await page.goto('about:blank');
      const fields = { authenticity_token: token, ...query, decision: 'approve' };
      await page.setContent(
        `<form method="post" action="${s.url}/oauth/authorize">${Object.entries(fields)
          .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeAttr(v)}">`)
          .join('')}<button>go</button></form>`,
      );
      const [response] = await Promise.all([page.waitForResponse(`${s.url}/oauth/authorize`), page.click('button')]);
      assert.equal(response.status(), 403);
      assert.equal(response.headers()['location'], undefined);
      await page.waitForSelector('#oauth-error');
      assert.equal(new URL(page.url()).origin, new URL(s.url).origin);
    }

    // The browser's own cookies, but a forged or missing token.
    const cookie = (await context.cookies(s.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    assert.match(cookie, /stoa_session=/);
    for (const token of ['forged', realToken.slice(0, -2) + (realToken.endsWith('AA') ? 'BB' : 'AA'), undefined]) {
      const fields: Record<string, string> = { ...query, decision: 'approve' };
      if (token !== undefined) fields['authenticity_token'] = token;
      const r = await fetch(`${s.url}/oauth/authorize`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });
      assert.equal(r.status, 403, `token ${token}`);
      assert.equal(r.headers.get('location'), null);
      assert.match(await r.text(), /id="oauth-error"/);
    }
    await context.close();

    assert.deepEqual(cb.hits.slice(before), [], 'the callback server received nothing');
    const codesAfter = Number((await s.app.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM oauth_codes')).rows[0]!.n);
    assert.equal(codesAfter, codesBefore, 'no code was issued');
  });
});
