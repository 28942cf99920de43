// Administration › Domain blocks in Chromium (issue 17): an admin finds the page from the home page, suspends the fake
// origin's domain (the API's list shows the block, and the origin's profile page says it refuses us), edits it and
// removes it; a bad domain or a second block of a domain is refused with the reason; a member without Manage
// federation is refused, a visitor sent to sign in, and a form without its CSRF token changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, FED_ENV, type Json } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PASSWORD = 'member-password-1'; // createMembers' password
const WAIT = { timeout: 20_000 };

describe('Administration › Domain blocks page', () => {
  let s: TestServer;
  let origin: HistoryOrigin;
  let browser: Browser;
  let m: LocalMembers;
  let operator: string;
  let page: Page;

  const blocks = async (): Promise<Json[]> => {
    const r = await api(s.url, operator, 'GET', '/api/v1/admin/domain_blocks');
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const row = (domain: string) => page.locator(`#domain-blocks tr[data-domain="${domain}"]`);

  before(async () => {
    [s, origin] = await Promise.all([startTestServer(FED_ENV), startHistoryOrigin()]);
    m = await createMembers(s, ['boss', 'modo', 'ann'], { boss: 'admin', modo: 'moderator' });
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    assert.equal((await api(s.url, operator, 'PUT', '/api/v1/admin/remote_history', { enabled: true })).status, 200);
    // An account of the origin is known here, its history not asked for yet.
    const actor = origin.actor('sam');
    origin.load('basic', { name: 'sam' });
    const found = await api(s.url, m.token['ann'], 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actor)}`);
    assert.equal(found.body.accounts?.length, 1, found.text);
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    await signInWithForm(page, s.url, 'boss', PASSWORD);
    await page.waitForURL(`${s.url}/`);
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
    await origin?.close();
  });

  it("lets an admin suspend a domain, which the API lists and the domain's profiles show as a refusal", async () => {
    await page.click('a:text("Domain blocks")');
    await page.waitForURL(`${s.url}/admin/domain_blocks`);
    assert.equal(await page.locator('#no-blocks').count(), 1);
    await page.fill('#domain', origin.host);
    await page.selectOption('#severity', 'suspend');
    await page.check('input[name=reject_reports]');
    await page.fill('#public_comment', 'spam');
    await page.fill('#private_comment', 'see ticket 12');
    await page.click('#add-block button[type=submit]');
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('#done'), 'Domain block added.');
    assert.equal(await row(origin.host).locator('.severity').textContent(), 'suspend');
    assert.equal(await row(origin.host).locator('.reject-reports').textContent(), 'Yes');
    assert.equal(await row(origin.host).locator('.private-comment').textContent(), 'see ticket 12');

    const listed = await blocks();
    assert.equal(listed.length, 1);
    assert.deepEqual(
      [listed[0].domain, listed[0].severity, listed[0].reject_media, listed[0].reject_reports, listed[0].public_comment, listed[0].private_comment],
      [origin.host, 'suspend', false, true, 'spam', 'see ticket 12'],
    );

    // The origin's profile page: its history is refused, and nothing was asked of the origin.
    await page.goto(`${s.url}/@sam@${origin.host}`);
    await page.locator('.history-state:has-text("refuses")').waitFor(WAIT);
    assert.equal((await page.textContent('.history-state'))!.trim(), 'This server refuses us: this server does not federate with it');
    assert.equal(origin.requests('/users/sam/outbox'), 0);

    // Edit: silence it and reject its media instead.
    await page.goto(`${s.url}/admin/domain_blocks`);
    await row(origin.host).locator('a.edit').click();
    await page.waitForSelector('#edit-block');
    assert.equal(await page.inputValue('#severity'), 'suspend');
    assert.equal(await page.inputValue('#public_comment'), 'spam');
    await page.selectOption('#severity', 'silence');
    await page.check('input[name=reject_media]');
    await page.click('#edit-block button[type=submit]');
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('#done'), 'Domain block saved.');
    assert.equal(await row(origin.host).locator('.severity').textContent(), 'silence');
    const edited = (await blocks())[0];
    assert.deepEqual([edited.severity, edited.reject_media, edited.reject_reports, edited.public_comment], ['silence', true, true, 'spam']);

    // Remove it.
    await row(origin.host).locator('button.remove').click();
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('#done'), 'Domain block removed.');
    assert.equal(await page.locator('#no-blocks').count(), 1);
    assert.deepEqual(await blocks(), []);
  });

  it('refuses a bad domain and a second block of a domain, saying why', async () => {
    await page.goto(`${s.url}/admin/domain_blocks`);
    await page.fill('#domain', 'not a domain/x');
    await page.click('#add-block button[type=submit]');
    await page.waitForSelector('#error');
    assert.equal(await page.textContent('#error'), 'Domain is not a valid domain name');
    assert.equal(await page.inputValue('#domain'), 'not a domain/x', 'what was typed is kept');

    await page.fill('#domain', 'Spam.Example.');
    await page.click('#add-block button[type=submit]');
    await page.waitForSelector('#done');
    assert.equal(await row('spam.example').count(), 1, 'stored as the API stores it');
    await page.fill('#domain', 'spam.example');
    await page.click('#add-block button[type=submit]');
    await page.waitForSelector('#error');
    assert.equal(await page.textContent('#error'), 'spam.example is blocked already: edit its block instead.');
    assert.equal((await blocks()).length, 1);
    await row('spam.example').locator('button.remove').click();
    await page.waitForSelector('#no-blocks');
  });

  it('refuses members without Manage federation and sends visitors to sign in', async () => {
    const modo = await (await browser.newContext()).newPage();
    await signInWithForm(modo, s.url, 'modo', PASSWORD);
    await modo.waitForURL(`${s.url}/`);
    assert.equal(await modo.locator('a[href="/admin/domain_blocks"]').count(), 0);
    const res = await modo.goto(`${s.url}/admin/domain_blocks`);
    assert.equal(res!.status(), 403);
    const visitor = await fetch(`${s.url}/admin/domain_blocks`, { redirect: 'manual' });
    assert.equal(visitor.status, 302);
    assert.match(visitor.headers.get('location')!, /\/auth\/sign_in/);
  });

  it('changes nothing for a form without its CSRF token', async () => {
    const block = await api(s.url, operator, 'POST', '/api/v1/admin/domain_blocks', { domain: 'kept.example', severity: 'silence' });
    assert.equal(block.status, 200, block.text);
    const jar = new CookieJar();
    const form = await getForm(`${s.url}/auth/sign_in`, jar);
    await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: form.token, login: 'boss', password: PASSWORD });
    const create = await postForm(`${s.url}/admin/domain_blocks`, jar, { authenticity_token: 'forged', domain: 'new.example', severity: 'suspend' });
    assert.equal(create.status, 403);
    const update = await postForm(`${s.url}/admin/domain_blocks/${block.body.id}`, jar, { authenticity_token: 'forged', severity: 'suspend' });
    assert.equal(update.status, 403);
    const remove = await postForm(`${s.url}/admin/domain_blocks/${block.body.id}/remove`, jar, { authenticity_token: 'forged' });
    assert.equal(remove.status, 403);
    assert.deepEqual(
      (await blocks()).map((b) => [b.domain, b.severity]),
      [['kept.example', 'silence']],
    );
  });
});
