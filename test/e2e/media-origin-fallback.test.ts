// Issue 17, direct-origin media fallback in a real Chromium: a history post's picture whose origin refuses our media
// proxy (it answers signed requests with 403) but would give it to anyone else. Without the member preference the
// page loads the picture through the proxy only, it fails, and no request of the browser leaves for the origin; with
// `media:origin_fallback` turned on in Settings › Preferences (a form with CSRF) the picture loads from the origin.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, FED_ENV, type Json } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { png } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PASSWORD = 'member-password-1'; // createMembers' password

describe('direct-origin media fallback', () => {
  let s: TestServer;
  let origin: HistoryOrigin;
  let m: LocalMembers;
  let browser: Browser;
  let page: Page;
  let statusId: string;
  /** Requests for the picture: the proxy's (signed) and browsers' (unsigned). */
  const hits = { proxy: 0, browser: 0 };
  /** Every address the page's browser asked for. */
  const asked: string[] = [];

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const picture = () => page.locator('img.attachment');
  /** Waits until the picture has loaded or failed; its decoded width (0: failed). */
  const settledWidth = async (): Promise<number> => {
    await eventually(async () => assert.ok(await picture().evaluate((i) => (i as unknown as { complete: boolean }).complete)));
    return picture().evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth);
  };

  before(async () => {
    [s, origin] = await Promise.all([startTestServer({ ...FED_ENV, MEDIA_PROXY_RETRY_MS: '0' }), startHistoryOrigin()]);
    m = await createMembers(s, ['ann', 'boss'], { boss: 'admin' });
    const operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    assert.equal((await call(operator, 'PUT', '/api/v1/admin/remote_history', { enabled: true })).status, 200);

    origin.serve('/media/3.png', (req) => {
      if (req.headers.signature !== undefined) {
        hits.proxy++;
        return { status: 403, json: { error: 'Forbidden' } };
      }
      hits.browser++;
      return { body: png(4, 3), contentType: 'image/png' };
    });
    const actor = origin.actor('olga');
    origin.load('basic', { name: 'olga' });
    const found = await call(m.token['ann'], 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actor)}`);
    const id = found.body.accounts[0].id as string;
    await call(m.token['ann'], 'GET', `/api/v1/accounts/${id}/statuses`);
    let withPicture: Json;
    await eventually(async () => {
      const r = await call(m.token['ann'], 'GET', `/api/v1/accounts/${id}/statuses`);
      withPicture = (r.body as Json[]).find((x) => x.media_attachments.length);
      assert.ok(withPicture, 'the post with the picture is imported');
    });
    statusId = withPicture.id;
    assert.equal(hits.proxy + hits.browser, 0, 'importing fetched no media');

    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    page.on('request', (r) => asked.push(r.url()));
    await signInWithForm(page, s.url, 'ann', PASSWORD);
    await page.waitForURL(`${s.url}/`);
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
    await origin?.close();
  });

  it('without the preference, the picture is asked of the proxy only, and nothing leaves for the origin', async () => {
    const proxyAnswer = page.waitForResponse((r) => r.url().includes('/media_proxy/'));
    const res = await page.goto(`${s.url}/web/statuses/${statusId}`);
    assert.equal(res?.status(), 200);
    assert.doesNotMatch(res?.headers()['content-security-policy'] ?? '', /script-src/, 'no script on the page');
    assert.equal((await proxyAnswer).status(), 502, 'the proxy could not fetch it');
    assert.equal(await settledWidth(), 0, 'the picture did not load');
    assert.equal(await picture().getAttribute('data-origin'), null);
    assert.ok(hits.proxy >= 1, 'the proxy asked the origin');
    assert.equal(hits.browser, 0, 'the browser did not');
    assert.deepEqual(
      asked.filter((u) => !u.startsWith(s.url)),
      [],
      'every request of the page went to this server',
    );
  });

  it('with media:origin_fallback turned on in the settings, the picture loads from its origin', async () => {
    await page.goto(`${s.url}/settings/preferences`);
    assert.equal(await page.isChecked('#media_origin_fallback'), false, 'off by default');
    await page.check('#media_origin_fallback');
    await page.click('button[type=submit]');
    await page.waitForSelector('#saved-notice');
    assert.equal(await page.isChecked('#media_origin_fallback'), true);
    const prefs = await call(m.token['ann'], 'GET', '/api/v1/preferences');
    assert.equal(prefs.body['media:origin_fallback'], true);

    const res = await page.goto(`${s.url}/web/statuses/${statusId}`);
    assert.equal(res?.status(), 200);
    const served = (await res!.text()) ?? '';
    assert.match(served, new RegExp(`<img class="attachment" src="${s.url}/media_proxy/\\d+"`), 'the page names the proxy first');
    assert.match(served, new RegExp(`data-origin="${origin.url}/media/3.png"`), 'and the origin to fall back to');
    assert.ok(hits.proxy >= 2, 'the proxy was asked again first');
    await eventually(async () => assert.equal(await picture().evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth), 4));
    assert.equal(await picture().getAttribute('src'), `${origin.url}/media/3.png`);
    assert.equal(hits.browser, 1, 'the browser fetched it from the origin');
    assert.ok(asked.includes(`${origin.url}/media/3.png`));
  });

  it('turned off again, nothing leaves for the origin', async () => {
    await page.goto(`${s.url}/settings/preferences`);
    await page.uncheck('#media_origin_fallback');
    await page.click('button[type=submit]');
    await page.waitForSelector('#saved-notice');
    const before = hits.browser;
    await page.goto(`${s.url}/web/statuses/${statusId}`);
    assert.equal(await settledWidth(), 0);
    assert.equal(hits.browser, before);
    assert.equal((await call(m.token['ann'], 'GET', '/api/v1/preferences')).body['media:origin_fallback'], false);
  });

  it('refuses a preferences form without its CSRF token', async () => {
    const r = await page.request.post(`${s.url}/settings/preferences`, { form: { media_origin_fallback: '1' } });
    assert.equal(r.status(), 403);
    assert.equal((await call(m.token['ann'], 'GET', '/api/v1/preferences')).body['media:origin_fallback'], false);
  });
});
