// Mastodon's chosen_languages, which no API sets, in a real Chromium: ticking languages in Settings › Preferences
// (a form with CSRF) narrows the member's public timeline to them (and posts with no language); untick all and every
// language is back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, type Json } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PASSWORD = 'member-password-1'; // createMembers' password

describe('chosen languages on the preferences page', () => {
  let s: TestServer;
  let m: LocalMembers;
  let browser: Browser;
  let page: Page;

  const languagesShown = async (): Promise<string[]> => {
    const r = await api(s.url, m.token['ann'], 'GET', '/api/v1/timelines/public');
    assert.equal(r.status, 200);
    return (r.body as Json[]).map((x) => x.language ?? 'none');
  };
  const save = async () => {
    await page.click('button[type=submit]');
    await page.waitForSelector('#saved-notice');
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob']);
    for (const language of ['', 'de', 'en', 'fr']) {
      assert.equal((await api(s.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: `in ${language || 'none'}`, language })).status, 200);
    }
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    await signInWithForm(page, s.url, 'ann', PASSWORD);
    await page.waitForURL(`${s.url}/`);
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('narrows the public timeline to the languages ticked, and back to all with none ticked', async () => {
    await page.goto(`${s.url}/settings/preferences`);
    assert.equal(await page.isChecked('#lang-en'), false, 'none ticked by default');
    assert.deepEqual(await languagesShown(), ['fr', 'en', 'de', 'none']);

    await page.check('#lang-en');
    await page.check('#lang-fr');
    await save();
    assert.equal(await page.isChecked('#lang-en'), true);
    assert.equal(await page.isChecked('#lang-fr'), true);
    assert.equal(await page.isChecked('#lang-de'), false);
    assert.equal(await page.isChecked('#media_origin_fallback'), false, 'the other preference is untouched');
    assert.deepEqual(await languagesShown(), ['fr', 'en', 'none']);

    await page.uncheck('#lang-fr');
    await save();
    assert.deepEqual(await languagesShown(), ['en', 'none']);

    await page.uncheck('#lang-en');
    await save();
    assert.deepEqual(await languagesShown(), ['fr', 'en', 'de', 'none']);
  });

  it('refuses a language that is no ISO 639 code', async () => {
    await page.goto(`${s.url}/settings/preferences`);
    const token = await page.inputValue('input[name=authenticity_token]');
    const r = await page.request.post(`${s.url}/settings/preferences`, { form: { authenticity_token: token, 'chosen_languages[]': 'English!' } });
    assert.equal(r.status(), 422);
    assert.deepEqual(await languagesShown(), ['fr', 'en', 'de', 'none']);
  });
});
