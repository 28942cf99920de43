// The moderators' report pages in Chromium: a moderator finds a member's report from the home page, reads it with
// the reported post (markup shown as text), takes it on, resolves and reopens it; open reports are listed first;
// visitors are sent to sign in, ordinary members refused, and a form without its CSRF token changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { api } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PASSWORD = 'member-password-1'; // createMembers' password

describe('report pages', () => {
  let s: TestServer;
  let browser: Browser;
  let m: LocalMembers;
  let domain: string;
  let older: string;
  let newer: string;

  before(async () => {
    s = await startTestServer();
    domain = s.app.config.localDomain;
    m = await createMembers(s, ['modo', 'reporter', 'troll', 'bystander'], { modo: 'moderator' });
    const post = (await api(s.url, m.token['troll'], 'POST', '/api/v1/statuses', { status: 'buy <b>cheap</b> pills' })).body;
    older = (await api(s.url, m.token['reporter'], 'POST', '/api/v1/reports', { account_id: m.id['bystander'], comment: 'older report' })).body.id;
    const r = await api(s.url, m.token['reporter'], 'POST', '/api/v1/reports', {
      account_id: m.id['troll'],
      status_ids: [post.id],
      comment: 'spam <i>again</i>',
      category: 'spam',
    });
    assert.equal(r.status, 200, r.text);
    newer = r.body.id;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('lets a moderator read a report with its post, take it on, resolve and reopen it', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInWithForm(page, s.url, 'modo', PASSWORD);
    await page.waitForURL(`${s.url}/`);
    await page.click('text=Reports');
    await page.waitForURL(`${s.url}/admin/reports`);
    assert.deepEqual(await page.locator('tr[data-report-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-report-id'))), [newer, older]);

    await page.click(`tr[data-report-id="${newer}"] a`);
    await page.waitForURL(`${s.url}/admin/reports/${newer}`);
    assert.equal(await page.textContent('#target'), `@troll@${domain}`);
    assert.equal(await page.textContent('#reporter'), `@reporter@${domain}`);
    assert.equal(await page.textContent('#comment'), 'spam <i>again</i>', 'the comment is text, not markup');
    assert.match((await page.textContent('.reported-post'))!, /buy <b>cheap<\/b> pills/);
    assert.equal(await page.locator('.reported-post b, #comment i').count(), 0);
    assert.equal(await page.textContent('#state'), 'Open');

    await page.click('button:has-text("Assign to me")');
    await page.waitForSelector(`#state:has-text("Open, assigned to @modo@${domain}")`);
    await page.click('button:has-text("Resolve")');
    await page.waitForSelector('#state:has-text("Resolved")');
    assert.match((await page.textContent('#state'))!, new RegExp(`^Resolved .* UTC by @modo@${domain.replace(/\./g, '\\.')}$`));
    const api1 = await api(s.url, await m.tokenFor('modo', ['admin:read:reports']), 'GET', `/api/v1/admin/reports/${newer}`);
    assert.equal(api1.body.action_taken, true, 'the API sees what the page did');
    assert.equal(api1.body.assigned_account.id, m.id['modo']);

    // Resolved reports go below open ones.
    await page.click('text=All reports');
    await page.waitForURL(`${s.url}/admin/reports`);
    assert.deepEqual(
      await page.locator('tr[data-report-id]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-report-id')}:${r.getAttribute('data-state')}`)),
      [`${older}:open`, `${newer}:resolved`],
    );

    await page.click(`tr[data-report-id="${newer}"] a`);
    await page.click('button:has-text("Reopen")');
    await page.waitForSelector(`#state:has-text("Open, assigned to @modo@${domain}")`);
    await page.click('button:has-text("Unassign")');
    await page.waitForSelector('#state:text-is("Open")');
  });

  it('sends visitors to sign in, refuses ordinary members and forms without a CSRF token', async () => {
    const anonymous = await fetch(`${s.url}/admin/reports/${newer}`, { redirect: 'manual' });
    assert.equal(anonymous.status, 302);
    assert.equal(anonymous.headers.get('location'), `/auth/sign_in?return_to=${encodeURIComponent(`/admin/reports/${newer}`)}`);

    const member = new CookieJar();
    const signIn = await getForm(`${s.url}/auth/sign_in`, member);
    await postForm(`${s.url}/auth/sign_in`, member, { authenticity_token: signIn.token, login: 'bystander', password: PASSWORD });
    for (const path of ['/admin/reports', `/admin/reports/${newer}`]) {
      const r = await fetch(s.url + path, { headers: { cookie: member.header() } });
      assert.equal(r.status, 403, path);
      assert.doesNotMatch(await r.text(), /spam/);
    }
    const memberPost = await postForm(`${s.url}/admin/reports/${newer}/resolve`, member, { authenticity_token: signIn.token });
    assert.equal(memberPost.status, 403);

    const moderator = new CookieJar();
    const modForm = await getForm(`${s.url}/auth/sign_in`, moderator);
    await postForm(`${s.url}/auth/sign_in`, moderator, { authenticity_token: modForm.token, login: 'modo', password: PASSWORD });
    const forged = await postForm(`${s.url}/admin/reports/${newer}/resolve`, moderator, { authenticity_token: 'forged' });
    assert.equal(forged.status, 403);
    const detail = await getForm(`${s.url}/admin/reports/${newer}`, moderator);
    assert.match(detail.html, /<td id="state">Open<\/td>/, 'still open');
    assert.equal((await fetch(`${s.url}/admin/reports/1`, { headers: { cookie: moderator.header() } })).status, 404);
  });
});
