// Administration › History in Chromium (issue 17): an admin finds the page from the home page, changes the remote
// history settings (the API reads the same), sees the origins and totals, and Prune now says what it removed and
// lists the run; a moderator (no Manage federation) is refused, a visitor sent to sign in, and a form without its
// CSRF token changes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { api, FED_ENV } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { CookieJar, getForm, postForm } from '../support/forms.js';
import { HistoryFixture } from '../support/history-posts.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PASSWORD = 'member-password-1'; // createMembers' password

describe('Administration › History page', () => {
  let s: TestServer;
  let peer: FakePeer;
  let browser: Browser;
  let m: LocalMembers;
  let operator: string;
  let remId: string;
  const kept: string[] = [];

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    m = await createMembers(s, ['boss', 'modo', 'ann'], { boss: 'admin', modo: 'moderator' });
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    await peer.addActor('rem');
    const fx = new HistoryFixture(s, peer);
    remId = await fx.accountId(m.token['ann']!, 'rem');
    // The sweep's first round (at start) is over before anything is old enough for it.
    await eventually(async () => assert.ok(await s.app.db.one("SELECT 1 FROM history_prune_runs WHERE kind = 'sweep'")));
    // Three history posts of an actor whose profile nobody viewed for 100 days; ann bookmarks one of them.
    for (let i = 0; i < 3; i++) {
      kept.push(
        await fx.storeHistory(
          {
            uri: peer.newId('notes'),
            actor: 'rem',
            visibility: 'public',
            text: `old ${i}`,
            tags: [],
            mentions: [],
            inReplyTo: null,
            published: new Date(Date.now() - (200 + i) * 86_400_000),
          },
          remId,
          m.id,
        ),
      );
    }
    await s.app.db.exec("INSERT INTO remote_histories (account_id, origin, state, viewed_at) VALUES ($1, $2, 'partial', now() - interval '100 days')", [
      remId,
      peer.host,
    ]);
    await api(s.url, m.token['ann'], 'POST', `/api/v1/statuses/${kept[0]}/bookmark`);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it('lets an admin change the settings and prune, and shows origins, totals and runs', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInWithForm(page, s.url, 'boss', PASSWORD);
    await page.waitForURL(`${s.url}/`);
    await page.click('text=History');
    await page.waitForURL(`${s.url}/admin/history`);
    assert.equal(await page.textContent(`tr[data-origin="${peer.host}"] td:nth-child(1)`), peer.host);
    assert.equal(await page.textContent('#total-posts'), '3');
    assert.match((await page.textContent('#runs tbody tr'))!, /sweep\s*0\s*0/, 'the sweep at start removed nothing');

    // Settings: switch the feature on, 30 days' retention.
    assert.equal(await page.isChecked('input[name=enabled]'), false);
    await page.check('input[name=enabled]');
    await page.fill('input[name=retention_days]', '30');
    await page.click('#settings button[type=submit]');
    await page.waitForSelector('#saved');
    assert.equal(await page.isChecked('input[name=enabled]'), true);
    assert.equal(await page.inputValue('input[name=retention_days]'), '30');
    const r = await api(s.url, operator, 'GET', '/api/v1/admin/remote_history');
    assert.equal(r.body.enabled, true, 'the API reads what the page saved');
    assert.equal(r.body.retention_days, 30);

    // Out of range: refused with the reason, nothing changed.
    await page.fill('input[name=retention_days]', '5000');
    await page.$eval('#settings', (f) => f.setAttribute('novalidate', ''));
    await page.click('#settings button[type=submit]');
    await page.waitForSelector('#error');
    assert.match((await page.textContent('#error'))!, /between 1 and 3650/);
    assert.equal((await api(s.url, operator, 'GET', '/api/v1/admin/remote_history')).body.retention_days, 30);

    // Prune now: the bookmarked post stays, the other two go.
    await page.click('#prune-now');
    await page.waitForSelector('#prune-result');
    assert.equal(await page.textContent('#prune-result'), 'Removed 2 history posts; cleanup of 0 media attachments queued.');
    assert.equal(await page.textContent('#total-posts'), '1');
    assert.match((await page.textContent('#runs tbody tr'))!, /manual\s*2\s*0/);
    assert.equal((await api(s.url, m.token['ann'], 'GET', `/api/v1/statuses/${kept[0]}`)).status, 200);
    assert.equal((await api(s.url, m.token['ann'], 'GET', `/api/v1/statuses/${kept[1]}`)).status, 404);
  });

  it('refuses members without Manage federation and sends visitors to sign in', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInWithForm(page, s.url, 'modo', PASSWORD);
    await page.waitForURL(`${s.url}/`);
    assert.equal(await page.locator('a[href="/admin/history"]').count(), 0);
    const res = await page.goto(`${s.url}/admin/history`);
    assert.equal(res!.status(), 403);
    const visitor = await fetch(`${s.url}/admin/history`, { redirect: 'manual' });
    assert.equal(visitor.status, 302);
    assert.match(visitor.headers.get('location')!, /\/auth\/sign_in/);
  });

  it('changes nothing for a form without its CSRF token', async () => {
    const jar = new CookieJar();
    const form = await getForm(`${s.url}/auth/sign_in`, jar);
    await postForm(`${s.url}/auth/sign_in`, jar, { authenticity_token: form.token, login: 'boss', password: PASSWORD });
    const before = (await api(s.url, operator, 'GET', '/api/v1/admin/remote_history')).body;
    const res = await postForm(`${s.url}/admin/history/settings`, jar, { authenticity_token: 'forged', retention_days: '7' });
    assert.equal(res.status, 403);
    const prune = await postForm(`${s.url}/admin/history/prune`, jar, { authenticity_token: 'forged' });
    assert.equal(prune.status, 403);
    assert.deepEqual((await api(s.url, operator, 'GET', '/api/v1/admin/remote_history')).body, before);
  });
});
