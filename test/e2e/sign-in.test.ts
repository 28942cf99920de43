// Signing in and out in a real Chromium, CSRF protection, throttling and account states.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { hashPassword } from '../../src/auth/password.js';
import { UserStore } from '../../src/store/users.js';
import { launchBrowser } from '../support/browser.js';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('sign-in and sign-out pages', () => {
  let s: TestServer;
  let browser: Browser;
  let adminPassword: string;
  before(async () => {
    s = await startTestServer();
    adminPassword = s.app.firstAdmin!.password;
    browser = await launchBrowser();
    const users = new UserStore(s.app.db);
    await users.create({ username: 'dora', email: 'dora@example.test', passwordHash: await hashPassword('dora-password'), roleId: 0, approved: true });
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('signs the first admin in and out in Chromium, with an HttpOnly SameSite=Lax session cookie', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${s.url}/auth/sign_in`);
    await page.fill('#login', 'admin');
    await page.fill('#password', adminPassword);
    await page.click('button[type=submit]');
    await page.waitForURL(`${s.url}/`);
    assert.equal(await page.textContent('#signed-in-as'), '@admin');
    const session = (await context.cookies()).find((c) => c.name === 'stoa_session');
    assert.ok(session, 'a session cookie is set');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');

    await page.click('text=Sign out');
    await page.waitForURL(/\/auth\/sign_in$/);
    assert.equal(
      (await context.cookies()).find((c) => c.name === 'stoa_session'),
      undefined,
    );
    await page.goto(`${s.url}/`);
    assert.equal(await page.locator('#signed-in-as').count(), 0);
    await context.close();
  });

  it('signs in by e-mail too and returns to the page that asked for it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${s.url}/auth/sign_in?return_to=${encodeURIComponent('/about')}`);
    await page.fill('#login', 'DORA@example.test');
    await page.fill('#password', 'dora-password');
    await page.click('button[type=submit]');
    await page.waitForURL(`${s.url}/about`);
    assert.equal(new URL(page.url()).pathname, '/about', 'back on the page that asked for the sign-in');
    const session = (await context.cookies()).find((c) => c.name === 'stoa_session');
    assert.ok(session, 'signed in: a session cookie is set');
    await page.goto(`${s.url}/`);
    assert.equal(await page.textContent('#signed-in-as'), '@dora');
    await context.close();
  });

  it('gives one generic message for a wrong password and for an unknown user', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const messages: string[] = [];
    for (const [login, password] of [
      ['admin', 'wrong-password'],
      ['nobody', 'whatever-pw'],
    ]) {
      await page.goto(`${s.url}/auth/sign_in`);
      await page.fill('#login', login!);
      await page.fill('#password', password!);
      await page.click('button[type=submit]');
      messages.push((await page.textContent('[role=alert]'))!);
    }
    assert.equal(messages[0], 'Invalid username, e-mail or password.');
    assert.equal(messages[1], messages[0]);
    assert.equal(
      (await context.cookies()).find((c) => c.name === 'stoa_session'),
      undefined,
    );
    await context.close();
  });

  it('refuses a sign-in form without a valid CSRF token, and a forged cross-site form', async () => {
    const jar = new CookieJar();
    await getForm(`${s.url}/auth/sign_in`, jar);
    const r = await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: 'forged', login: 'admin', password: adminPassword });
    assert.equal(r.status, 403);
    assert.equal(jar.cookies.has('stoa_session'), false);

    // A page on another origin posting to us: SameSite=Lax keeps our CSRF cookie out, so the form is refused.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${s.url}/auth/sign_in`); // the browser now holds a CSRF cookie for the server
    const token = await page.getAttribute('input[name=authenticity_token]', 'value');
    await page.goto('about:blank'); // a document of no site of ours
    await page.setContent(
      `<form method="post" action="${s.url}/auth/sign_in"><input name="authenticity_token" value="${token}"><input name="login" value="admin"><input name="password" value="${adminPassword}"><button>go</button></form>`,
    );
    const [response] = await Promise.all([page.waitForResponse(`${s.url}/auth/sign_in`), page.click('button')]);
    assert.equal(response.status(), 403);
    await context.close();
  });

  it('answers odd form bodies with a 4xx, never a 500', async () => {
    const nullBody = await fetch(`${s.url}/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'null' });
    assert.equal(nullBody.status, 403);
    const jar = new CookieJar();
    const { token } = await getForm(`${s.url}/auth/sign_in`, jar);
    const nul = await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: token, login: 'ad\u0000min', password: 'whatever-pw' });
    assert.ok(nul.status >= 400 && nul.status < 500, `status ${nul.status}`);
    const big = await fetch(`${s.url}/auth/sign_in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'x'.repeat(70_000) }),
    });
    assert.equal(big.status, 413);
  });

  it('refuses disabled accounts, also ending their existing sessions', async () => {
    const jar = new CookieJar();
    const { token } = await getForm(`${s.url}/auth/sign_in`, jar);
    const ok = await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: token, login: 'dora', password: 'dora-password' });
    assert.equal(ok.status, 303);
    const home = await fetch(`${s.url}/`, { headers: { cookie: jar.header() } });
    assert.match(await home.text(), /@dora/);

    const users = new UserStore(s.app.db);
    const dora = (await users.byLogin('dora'))!;
    await users.setDisabled(dora.userId, true);
    const after = await fetch(`${s.url}/`, { headers: { cookie: jar.header() } });
    assert.doesNotMatch(await after.text(), /@dora/);

    const jar2 = new CookieJar();
    const f = await getForm(`${s.url}/auth/sign_in`, jar2);
    const refused = await postForm(`${s.url}/auth/sign_in`, jar2, { authenticity_token: f.token, login: 'dora', password: 'dora-password' });
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /Your login is currently disabled/);
    assert.equal(jar2.cookies.has('stoa_session'), false);
    await users.setDisabled(dora.userId, false);
  });
});

describe('sign-in throttling', () => {
  let s: TestServer;
  before(async () => (s = await startTestServer()));
  after(() => s.stop());

  it('answers 429 with Retry-After once an address has made too many attempts', async () => {
    const jar = new CookieJar();
    const { token } = await getForm(`${s.url}/auth/sign_in`, jar);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: token, login: `guess${i}`, password: 'nope-nope' });
      statuses.push(r.status);
      if (r.status === 429) assert.ok(Number(r.headers.get('retry-after')) > 0);
    }
    assert.deepEqual(statuses, [...Array(10).fill(401), 429]);
    // Even the right password is refused while throttled.
    const r = await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: token, login: 'admin', password: s.app.firstAdmin!.password });
    assert.equal(r.status, 429);
  });
});
