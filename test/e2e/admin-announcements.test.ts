// Administration › Announcements and › Rules in Chromium (issue 36): an admin finds both pages from the home page;
// writes an announcement with an event's times, all day, which members' apps then list and their user streams
// receive; edits, unpublishes, republishes and deletes it; a blank text or an end before the start is refused with
// the reason. On the Rules page the rules are added, edited and removed (the API and the instance documents show
// them), and the texts and switches saved (extended description, terms of service, peers off). A moderator is
// refused, a visitor sent to sign in, a form without its CSRF token changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { api, type Json } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

const PASSWORD = 'member-password-1'; // createMembers' password

describe('Administration › Announcements and › Rules pages', () => {
  let s: TestServer;
  let browser: Browser;
  let m: LocalMembers;
  let page: Page;
  const sockets: WsClient[] = [];

  const announcements = async (): Promise<Json[]> => {
    const r = await api(s.url, m.token['ann'], 'GET', '/api/v1/announcements');
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const get = async (path: string): Promise<{ status: number; body: Json }> => {
    const r = await api(s.url, undefined, 'GET', path);
    return { status: r.status, body: r.body };
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['boss', 'modo', 'ann'], { boss: 'admin', modo: 'moderator' });
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    await signInWithForm(page, s.url, 'boss', PASSWORD);
    await page.waitForURL(`${s.url}/`);
  });
  after(async () => {
    for (const c of sockets) c.ws.terminate();
    await browser?.close();
    await s?.stop();
  });

  it('lets an admin write, edit, unpublish, republish and delete an announcement that members see', async () => {
    const c = await openWs(s.url, m.token['ann'], 'stream=user');
    sockets.push(c);
    await subscribed(s, m.id['ann']!, 'user');

    await page.click('a:text("Announcements")');
    await page.waitForURL(`${s.url}/admin/announcements`);
    assert.equal(await page.locator('#no-announcements').count(), 1);
    await page.fill('#text', 'Party for #Stoa day');
    await page.fill('#starts_at', '2031-05-01T00:00');
    await page.fill('#ends_at', '2031-05-02T00:00');
    await page.check('#all_day');
    await page.click('#new-announcement button[type=submit]');
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('#done'), 'Announcement saved.');
    const row = page.locator('#announcements tbody tr').first();
    assert.equal(await row.locator('.state').textContent(), 'Published');
    assert.equal(await row.locator('.all-day').textContent(), 'Yes');

    const [a] = await announcements();
    assert.equal(a.content, `<p>Party for <a href="${s.url}/tags/Stoa" class="mention hashtag" rel="tag">#<span>Stoa</span></a> day</p>`);
    assert.deepEqual([a.starts_at, a.ends_at, a.all_day, a.read], ['2031-05-01T00:00:00.000Z', '2031-05-02T00:00:00.000Z', true, false]);
    assert.deepEqual(a.tags, [{ name: 'Stoa', url: `${s.url}/tags/Stoa` }]);
    await eventually(() => assert.equal(framesOf(c.frames, 'announcement').length, 1));
    assert.deepEqual(framesOf(c.frames, 'announcement')[0]!.payload, a);

    // Edit: the times are shown as they were given.
    await row.locator('a.edit').click();
    await page.waitForSelector('#edit-announcement');
    assert.equal(await page.inputValue('#starts_at'), '2031-05-01T00:00');
    assert.equal(await page.inputValue('#text'), 'Party for #Stoa day');
    await page.fill('#text', 'Party moved');
    await page.uncheck('#all_day');
    await page.fill('#starts_at', '');
    await page.fill('#ends_at', '');
    await page.click('#edit-announcement button[type=submit]');
    await page.waitForSelector('#done');
    const [edited] = await announcements();
    assert.deepEqual([edited.id, edited.content, edited.starts_at, edited.all_day], [a.id, '<p>Party moved</p>', null, false]);
    await eventually(() => assert.equal(framesOf(c.frames, 'announcement').length, 2));

    // Unpublish: gone for members (and their streams are told); publish again; delete.
    await page.locator('#announcements button.unpublish').click();
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('#done'), 'Announcement unpublished.');
    assert.equal(await page.locator('#announcements .state').first().textContent(), 'Draft');
    assert.deepEqual(await announcements(), []);
    await eventually(() => assert.equal(framesOf(c.frames, 'announcement.delete').length, 1));
    await page.locator('#announcements button.publish').click();
    await page.waitForSelector('#done');
    assert.equal((await announcements()).length, 1);
    await page.locator('#announcements button.remove').click();
    await page.waitForSelector('#no-announcements');
    assert.deepEqual(await announcements(), []);
    await eventually(() => assert.equal(framesOf(c.frames, 'announcement.delete').length, 2));
  });

  it('refuses a blank text and an end before the start, keeping what was typed', async () => {
    await page.goto(`${s.url}/admin/announcements`);
    await page.fill('#text', 'Backwards');
    await page.fill('#starts_at', '2031-05-02T00:00');
    await page.fill('#ends_at', '2031-05-01T00:00');
    await page.click('#new-announcement button[type=submit]');
    await page.waitForSelector('#error');
    assert.equal(await page.textContent('#error'), 'The end must be after the start');
    assert.equal(await page.inputValue('#text'), 'Backwards');
    assert.equal(await page.inputValue('#starts_at'), '2031-05-02T00:00');
    await page.fill('#ends_at', '');
    await page.click('#new-announcement button[type=submit]');
    await page.waitForSelector('#error');
    assert.equal(await page.textContent('#error'), 'A start and an end go together: give both or neither');
    // The browser's own `required` check is bypassed, as a script could.
    await page.fill('#text', '   ');
    await page.locator('#text').evaluate((e) => (e as unknown as { removeAttribute(n: string): void }).removeAttribute('required'));
    await page.fill('#starts_at', '');
    await page.fill('#ends_at', '');
    await page.click('#new-announcement button[type=submit]');
    await page.waitForSelector('#error');
    assert.equal(await page.textContent('#error'), "Text can't be blank");
    assert.equal(await page.locator('#no-announcements').count(), 1);
  });

  it('lets an admin keep the rules, which the API and the instance documents show, and the texts', async () => {
    await page.goto(`${s.url}/`);
    await page.click('a:text("Rules")');
    await page.waitForURL(`${s.url}/admin/rules`);
    assert.equal(await page.locator('#no-rules').count(), 1);
    for (const [text, hint, priority] of [
      ['No spam', '', '2'],
      ['Be kind', 'Assume good faith', '1'],
    ]) {
      await page.fill('#text', text!);
      await page.fill('#hint', hint!);
      await page.fill('#priority', priority!);
      await page.click('#add-rule button[type=submit]');
      await page.waitForSelector('#done');
    }
    assert.deepEqual(await page.locator('#rules li .text').allTextContents(), ['Be kind', 'No spam']);
    const listed = (await get('/api/v1/instance/rules')).body;
    assert.deepEqual(
      listed.map((r: Json) => [r.text, r.hint]),
      [
        ['Be kind', 'Assume good faith'],
        ['No spam', ''],
      ],
    );
    assert.deepEqual((await get('/api/v2/instance')).body.rules, listed, 'the instance document is rendered again');

    await page.locator('#rules li').nth(1).locator('a.edit').click();
    await page.waitForSelector('#edit-rule');
    await page.fill('#text', 'No spam, no ads');
    await page.click('#edit-rule button[type=submit]');
    await page.waitForSelector('#done');
    await page.locator('#rules li').first().locator('button.remove').click();
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('#done'), 'Rule removed.');
    assert.deepEqual(
      (await get('/api/v1/instance/rules')).body.map((r: Json) => r.text),
      ['No spam, no ads'],
    );
    assert.deepEqual(
      (await get('/api/v1/instance')).body.rules.map((r: Json) => r.text),
      ['No spam, no ads'],
    );

    // The texts and switches.
    assert.equal((await get('/api/v1/instance/peers')).status, 200);
    await page.fill('#extended_description', 'Who we are.');
    await page.fill('#terms_of_service', 'Be nice or leave.');
    await page.fill('#terms_effective_date', '2020-01-01');
    await page.uncheck('#peers_api_enabled');
    await page.click('#texts button[type=submit]');
    await page.waitForSelector('#done');
    assert.equal(await page.textContent('#done'), 'Texts and settings saved.');
    assert.equal(await page.isChecked('#peers_api_enabled'), false);
    assert.equal(await page.isChecked('#activity_api_enabled'), true);
    assert.equal((await get('/api/v1/instance/extended_description')).body.content, '<p>Who we are.</p>');
    assert.deepEqual((await get('/api/v1/instance/terms_of_service')).body, {
      effective_date: '2020-01-01',
      effective: true,
      content: '<p>Be nice or leave.</p>',
      succeeded_by: null,
    });
    assert.equal((await get('/api/v1/instance/peers')).status, 404);
    assert.equal((await get('/api/v1/instance/activity')).status, 200);
    assert.equal((await get('/api/v1/instance/privacy_policy')).status, 404, 'left empty');
  });

  it('refuses a moderator and sends visitors to sign in', async () => {
    const modo = await (await browser.newContext()).newPage();
    await signInWithForm(modo, s.url, 'modo', PASSWORD);
    await modo.waitForURL(`${s.url}/`);
    for (const path of ['/admin/announcements', '/admin/rules']) {
      assert.equal(await modo.locator(`a[href="${path}"]`).count(), 0);
      assert.equal((await modo.goto(`${s.url}${path}`))!.status(), 403, path);
      const visitor = await fetch(`${s.url}${path}`, { redirect: 'manual' });
      assert.equal(visitor.status, 302);
      assert.match(visitor.headers.get('location')!, /\/auth\/sign_in/);
    }
  });

  it('changes nothing for a form without its CSRF token', async () => {
    const jar = new CookieJar();
    const form = await getForm(`${s.url}/auth/sign_in`, jar);
    await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: form.token, login: 'boss', password: PASSWORD });
    const forged = { authenticity_token: 'forged' };
    assert.equal((await postForm(`${s.url}/admin/announcements`, jar, { ...forged, text: 'forged', publish: '1' })).status, 403);
    assert.equal((await postForm(`${s.url}/admin/rules`, jar, { ...forged, text: 'forged' })).status, 403);
    assert.equal((await postForm(`${s.url}/admin/rules/texts`, jar, { ...forged, extended_description: 'forged' })).status, 403);
    assert.deepEqual(await announcements(), []);
    assert.deepEqual(
      (await get('/api/v1/instance/rules')).body.map((r: Json) => r.text),
      ['No spam, no ads'],
    );
    assert.equal((await get('/api/v1/instance/extended_description')).body.content, '<p>Who we are.</p>');
  });
});
