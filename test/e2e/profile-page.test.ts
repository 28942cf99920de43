// The public profile page in a real Chromium: /@name and /users/name show the display name, handle and bio, with no
// script at all and nothing the Content-Security-Policy refuses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { newNonce } from '../../src/store/auth-events.js';
import { UserStore } from '../../src/store/users.js';
import { launchBrowser } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('profile page', () => {
  let s: TestServer;
  let browser: Browser;
  let host: string;

  before(async () => {
    s = await startTestServer({ BASE_URL: 'http://127.0.0.1:{port}' });
    host = new URL(s.url).host;
    const admin = (await new UserStore(s.app.db).byLogin('admin'))!;
    // Markup in the profile must show as text, never become elements.
    await s.app.federation.accounts.updateLocalProfile(
      admin.accountId,
      { displayName: 'Ada <b>Admin</b>', note: 'Keeper of <script>alert(1)</script> things' },
      newNonce(),
    );
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  for (const path of ['/@admin', '/users/admin']) {
    it(`shows the display name and handle at ${path}, with no script and no CSP violation`, async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      // Chromium reports every CSP refusal on the console; the browser's own favicon probe (404) is not the page's.
      const complaints: string[] = [];
      page.on('console', (m) => {
        if (/Content.Security.Policy|Refused to/i.test(m.text())) complaints.push(m.text());
      });
      page.on('pageerror', (e) => complaints.push(e.message));
      page.on('requestfailed', (r) => complaints.push(`failed: ${r.url()}`));
      page.on('response', (r) => {
        if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') complaints.push(`${r.status()}: ${r.url()}`);
      });
      try {
        const res = await page.goto(s.url + path);
        assert.ok(res, 'a response');
        assert.equal(res.status(), 200);
        const headers = res.headers();
        assert.match(headers['content-type'] ?? '', /^text\/html\b/);
        const csp = headers['content-security-policy'] ?? '';
        assert.match(csp, /default-src 'none'/);
        assert.doesNotMatch(csp, /script-src/, 'no script source is allowed at all');
        assert.equal(headers['x-frame-options'], 'DENY');
        assert.equal(headers['x-content-type-options'], 'nosniff');

        assert.equal(await page.textContent('h1'), 'Ada <b>Admin</b>');
        assert.equal(await page.locator('h1 b').count(), 0);
        assert.match((await page.textContent('.handle')) ?? '', new RegExp(`^@admin@${host.replace(/\./g, '\\.')}\\b`));
        assert.ok(((await page.textContent('.profile')) ?? '').includes('Keeper of <script>alert(1)</script> things'));
        assert.equal(await page.title(), 'Ada <b>Admin</b> - Stoa');

        assert.equal(await page.locator('script').count(), 0, 'the page has no script element');
        const handlers = await page.locator('[onload], [onclick], [onerror], [onmouseover]').count();
        assert.equal(handlers, 0, 'no inline event handlers');
        assert.deepEqual(complaints, []);
      } finally {
        await context.close();
      }
    });
  }

  it('shows the not-found page for an unknown member', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const res = await page.goto(`${s.url}/@nobody`);
      assert.equal(res?.status(), 404);
      assert.equal(await page.locator('script').count(), 0);
    } finally {
      await context.close();
    }
  });
});
