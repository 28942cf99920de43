// Sign-up under each registration mode, and an admin approving a pending sign-up in Chromium.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, signInWithForm as signIn } from '../support/browser.js';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('registrations: approval', () => {
  let s: TestServer;
  let browser: Browser;
  before(async () => {
    s = await startTestServer({ REGISTRATIONS: 'approval' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('holds a sign-up for review until an admin approves it', async () => {
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${s.url}/auth/sign_up`);
    await visitor.fill('#username', 'newbie');
    await visitor.fill('#email', 'newbie@example.test');
    await visitor.fill('#password', 'newbie-password');
    await visitor.fill('#password_confirmation', 'newbie-password');
    await visitor.fill('#reason', 'I like stoas');
    await visitor.click('button[type=submit]');
    await visitor.waitForSelector('#pending');

    await signIn(visitor, s.url, 'newbie', 'newbie-password');
    assert.equal(await visitor.textContent('[role=alert]'), 'Your login is currently pending approval.');

    const admin = await (await browser.newContext()).newPage();
    await signIn(admin, s.url, 'admin', s.app.firstAdmin!.password);
    await admin.waitForURL(`${s.url}/`);
    await admin.click('text=Pending registrations');
    const row = admin.locator('tr[data-username=newbie]');
    assert.match((await row.textContent())!, /I like stoas/);
    await row.locator('text=Approve').click();
    await admin.waitForSelector('#none-pending');

    await signIn(visitor, s.url, 'newbie', 'newbie-password');
    await visitor.waitForURL(`${s.url}/`);
    assert.equal(await visitor.textContent('#signed-in-as'), '@newbie');
  });

  it('shows sign-up errors clearly and keeps usernames unique regardless of case', async () => {
    const jar = new CookieJar();
    const { token } = await getForm(`${s.url}/auth/sign_up`, jar);
    const base = { authenticity_token: token, email: 'x@example.test', password: 'long-enough', password_confirmation: 'long-enough' };
    const taken = await postForm(`${s.url}/auth/sign_up`, jar, { ...base, username: 'NEWBIE' });
    assert.equal(taken.status, 422);
    assert.match(await taken.text(), /That username is taken/);
    const bad = await postForm(`${s.url}/auth/sign_up`, jar, { ...base, username: 'no spaces' });
    assert.match(await bad.text(), /may contain only letters/);
    const mismatch = await postForm(`${s.url}/auth/sign_up`, jar, { ...base, username: 'other', password_confirmation: 'different' });
    assert.match(await mismatch.text(), /Passwords do not match/);
  });

  it('keeps the approval list for people who may manage users', async () => {
    const jar = new CookieJar();
    const anonymous = await fetch(`${s.url}/admin/registrations`, { redirect: 'manual' });
    assert.equal(anonymous.status, 302);
    assert.match(anonymous.headers.get('location')!, /\/auth\/sign_in\?return_to=/);
    // newbie (an ordinary member now) is refused.
    const { token } = await getForm(`${s.url}/auth/sign_in`, jar);
    await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: token, login: 'newbie', password: 'newbie-password' });
    const member = await fetch(`${s.url}/admin/registrations`, { headers: { cookie: jar.header() } });
    assert.equal(member.status, 403);
  });
});

describe('registrations: open and closed', () => {
  let open: TestServer;
  let closed: TestServer;
  before(async () => {
    [open, closed] = await Promise.all([startTestServer({ REGISTRATIONS: 'open' }), startTestServer()]);
  });
  after(async () => {
    await open?.stop();
    await closed?.stop();
  });

  it('signs a new member straight in when registrations are open', async () => {
    const jar = new CookieJar();
    const { token } = await getForm(`${open.url}/auth/sign_up`, jar);
    const r = await postForm(`${open.url}/auth/sign_up`, jar, {
      authenticity_token: token,
      username: 'walkin',
      email: 'walkin@example.test',
      password: 'walkin-pass',
      password_confirmation: 'walkin-pass',
    });
    assert.equal(r.status, 303);
    const home = await fetch(`${open.url}/`, { headers: { cookie: jar.header() } });
    assert.match(await home.text(), /@walkin/);
  });

  it('has no sign-up page when registrations are closed', async () => {
    assert.equal((await fetch(`${closed.url}/auth/sign_up`)).status, 404);
    const page = await (await fetch(`${closed.url}/auth/sign_in`)).text();
    assert.doesNotMatch(page, /Create an account/);
  });
});
