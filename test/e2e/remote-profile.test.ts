// A remote profile page (/@name@host) in a real Chromium against the fake origin (issue 17): a member opening an
// empty profile sees its older posts arrive (the page reloads itself while the fetch runs), Load older posts adds
// the next page, a backoff shows its time, an unsupported history its reason, no button once complete or while the
// feature is off, and an anonymous visitor sees what is held but asks for nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, FED_ENV, type Json } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const WAIT = { timeout: 20_000 };
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

describe('remote profile page with the history panel', () => {
  let s: TestServer;
  let origin: HistoryOrigin;
  let m: LocalMembers;
  let operator: string;
  let browser: Browser;
  let member: BrowserContext;
  let tab: Page;
  const complaints: string[] = [];

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const setEnabled = async (enabled: boolean) => {
    const r = await call(operator, 'PUT', '/api/v1/admin/remote_history', { enabled });
    assert.equal(r.status, 200, r.text);
  };
  const history = async (accountId: string): Promise<Json> => (await call(m.token['ann'], 'GET', `/api/v1/accounts/${accountId}/remote_history`)).body;
  /** The account is known here (resolved through search, as a member's client does), its history not yet asked for. */
  const known = async (actorUri: string): Promise<string> => {
    const r = await call(m.token['ann'], 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actorUri)}`);
    assert.equal(r.body.accounts?.length, 1, r.text);
    return r.body.accounts[0].id as string;
  };
  const texts = async (p: Page) => (await p.locator('.post .content').allTextContents()).map((t) => t.trim());
  const state = async (p: Page) => ((await p.textContent('.history-state')) ?? '').trim();

  before(async () => {
    [s, origin] = await Promise.all([startTestServer(FED_ENV), startHistoryOrigin()]);
    m = await createMembers(s, ['ann', 'boss'], { boss: 'admin' });
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    browser = await launchBrowser();
    member = await browser.newContext();
    tab = await member.newPage();
    tab.on('console', (c) => {
      if (/Content.Security.Policy|Refused to/i.test(c.text())) complaints.push(c.text());
    });
    tab.on('pageerror', (e) => complaints.push(e.message));
    await signInWithForm(tab, s.url, 'ann', 'member-password-1');
    await tab.waitForURL((u) => !u.pathname.startsWith('/auth/sign_in'));
    await setEnabled(true);
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
    await origin?.close();
  });

  it('an anonymous visitor of a fresh profile sees its header and asks for nothing', async () => {
    const actor = origin.actor('pete');
    origin.load('basic', { name: 'pete' });
    const id = await known(actor);
    const anon = await browser.newContext();
    try {
      const p = await anon.newPage();
      const res = await p.goto(`${s.url}/@pete@${origin.host}`);
      assert.equal(res?.status(), 200);
      assert.match((await p.textContent('.handle')) ?? '', new RegExp(`^@pete@${origin.host.replace(/\./g, '\\.')}`));
      assert.equal(await p.locator('.post').count(), 0);
      assert.equal(await state(p), 'Older posts have not been asked for');
      assert.equal(await p.locator('text=Load older posts').count(), 0);
      assert.equal(await p.locator('script').count(), 0, 'the page has no script');
      await s.app.history.scheduler()!.roundAfterKick();
      assert.equal((await history(id)).state, 'idle');
      assert.equal(origin.requests('/users/pete/outbox'), 0, 'the outbox was fetched');
    } finally {
      await anon.close();
    }
  });

  it('a member opening an empty profile sees its posts appear, and Load older posts adds the next page', async () => {
    const actor = origin.actor('olga');
    origin.load('basic', { name: 'olga' });
    const id = await known(actor);
    const res = await tab.goto(`${s.url}/@olga@${origin.host}`);
    assert.equal(res?.status(), 200);
    // The page reloads itself while the fetch is queued or running.
    await tab.locator('.post').nth(2).waitFor(WAIT);
    assert.deepEqual(await texts(tab), ['history five', 'history four', 'history three'], 'newest first');
    assert.equal(await state(tab), '3 older posts loaded; more are available');
    assert.equal(await tab.locator('.post img').count(), 1, 'the third post shows its image');
    assert.equal(await tab.getAttribute('.post img', 'alt'), 'a picture');
    assert.equal((await history(id)).state, 'partial');

    await tab.click('button:text("Load older posts")');
    await tab.waitForURL(`${s.url}/@olga@${origin.host}`);
    await eventually(async () => {
      await tab.locator('.post').nth(4).waitFor(WAIT);
      assert.equal(await state(tab), 'All public posts are here');
    });
    assert.deepEqual(await texts(tab), ['history five', 'history four', 'history three', 'history two', 'history one']);
    assert.equal(await tab.locator('text=Load older posts').count(), 0, 'no button once complete');
    assert.equal((await history(id)).pages_fetched, 3);
    assert.deepEqual(complaints, []);
  });

  it('shows content warnings folded and polls with their options', async () => {
    const actor = origin.actor('cora');
    const outbox = `${origin.url}/users/cora/outbox`;
    const create = (n: number, object: Record<string, unknown>) => ({
      id: `${actor}/statuses/${n}/activity`,
      type: 'Create',
      actor,
      to: [PUBLIC],
      object: { id: `${actor}/statuses/${n}`, attributedTo: actor, to: [PUBLIC], published: `2024-0${n}-01T00:00:00Z`, ...object },
    });
    origin.serve('/users/cora/outbox', {
      json: {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: outbox,
        type: 'OrderedCollection',
        totalItems: 2,
        orderedItems: [
          create(2, { type: 'Note', summary: 'spoilers ahead', content: '<p>the butler did it</p>' }),
          create(1, {
            type: 'Question',
            content: '<p>tea or coffee?</p>',
            endTime: '2024-01-02T00:00:00Z',
            oneOf: [
              { type: 'Note', name: 'tea', replies: { type: 'Collection', totalItems: 3 } },
              { type: 'Note', name: 'coffee', replies: { type: 'Collection', totalItems: 1 } },
            ],
          }),
        ],
      },
    });
    await known(actor);
    await tab.goto(`${s.url}/@cora@${origin.host}`);
    await tab.locator('.post').nth(1).waitFor(WAIT);
    assert.equal(((await tab.textContent('.post .cw summary')) ?? '').trim(), 'spoilers ahead');
    assert.equal(await tab.locator('.post .cw .content').isVisible(), false, 'the content is folded under its warning');
    await tab.click('.post .cw summary');
    assert.equal(await tab.locator('.post .cw .content').isVisible(), true);
    assert.deepEqual(
      (await tab.locator('.post .poll li').allTextContents()).map((t) => t.trim()),
      ['tea (3)', 'coffee (1)'],
    );
    assert.equal(await state(tab), 'All public posts are here');
  });

  it('an anonymous visitor sees the posts already held, with no button', async () => {
    const anon = await browser.newContext();
    try {
      const p = await anon.newPage();
      await p.goto(`${s.url}/@olga@${origin.host}`);
      assert.equal((await texts(p)).length, 5);
      assert.equal(await p.locator('text=Load older posts').count(), 0);
    } finally {
      await anon.close();
    }
  });

  it('a rate-limited origin shows when it will be tried again', async () => {
    const busy = await startHistoryOrigin();
    try {
      const actor = busy.actor('rita');
      const reset = new Date(Date.now() + 3_600_000);
      busy.serve('/users/rita/outbox', { status: 429, json: { error: 'Too many requests' }, headers: { 'x-ratelimit-reset': reset.toISOString() } });
      await known(actor);
      await tab.goto(`${s.url}/@rita@${busy.host}`);
      const hhmm = `${reset.toISOString().slice(11, 16)} UTC`;
      await tab.locator(`.history-state:has-text("retrying at")`).waitFor(WAIT);
      assert.equal(await state(tab), `Rate-limited by ${busy.host}; retrying at ${hhmm}`);
      assert.equal(((await tab.textContent('.attempts')) ?? '').trim(), '1');
      assert.equal(await tab.locator('text=Load older posts').count(), 0);
    } finally {
      await busy.close();
    }
  });

  it('an origin that refuses us shows the reason', async () => {
    const actor = origin.actor('una');
    origin.serve('/users/una/outbox', { status: 403, json: { error: 'forbidden' } });
    await known(actor);
    await tab.goto(`${s.url}/@una@${origin.host}`);
    await tab.locator('.history-state:has-text("refuses")').waitFor(WAIT);
    assert.equal(await state(tab), 'This server refuses us: forbidden');
    assert.equal(await tab.locator('text=Load older posts').count(), 0);
  });

  it('Load older posts refuses a form without its token, and sends a visitor who is not signed in to sign in', async () => {
    const actor = origin.actor('finn');
    origin.load('basic', { name: 'finn' });
    const id = await known(actor);
    await tab.goto(`${s.url}/@finn@${origin.host}`);
    await tab.locator('button:text("Load older posts")').waitFor(WAIT);
    const forged = await tab.request.post(`${s.url}/@finn@${origin.host}/load_older`, { form: { authenticity_token: 'forged' }, maxRedirects: 0 });
    assert.equal(forged.status(), 403);
    const anon = await fetch(`${s.url}/@finn@${origin.host}/load_older`, { method: 'POST', redirect: 'manual' });
    assert.equal(anon.status, 302);
    assert.match(anon.headers.get('location') ?? '', /^\/auth\/sign_in\?return_to=/);
    const h = await history(id);
    assert.deepEqual([h.state, h.pages_fetched], ['partial', 2], 'nothing more was asked for');
  });

  it("a busy origin's notice says when to try again, as the refusal named it", async () => {
    origin.load('basic', { name: 'gil' });
    await known(origin.actor('gil'));
    const notice = async (query: string) => {
      await tab.goto(`${s.url}/@gil@${origin.host}?${query}`);
      return tab.locator('#origin-busy').textContent();
    };
    assert.match((await notice('notice=busy&retry=30')) ?? '', /try again in 30 seconds\.$/);
    assert.match((await notice('notice=busy&retry=130')) ?? '', /try again in 3 minutes\.$/);
    assert.match((await notice('notice=busy&retry=soon')) ?? '', /try again shortly\.$/);
  });

  it('a local member under the full handle is sent to their own page', async () => {
    const r = await fetch(`${s.url}/@ann@${new URL(s.url).host}`, { redirect: 'manual' });
    assert.equal(r.status, 301);
    assert.equal(r.headers.get('location'), '/@ann');
  });

  it('no button while the feature is off, even where more is available', async () => {
    const actor = origin.actor('dora');
    origin.load('basic', { name: 'dora' });
    await known(actor);
    await tab.goto(`${s.url}/@dora@${origin.host}`);
    await tab.locator('button:text("Load older posts")').waitFor(WAIT);
    await setEnabled(false);
    await tab.reload();
    assert.equal(await state(tab), 'Older posts are not fetched on this server');
    assert.equal(await tab.locator('text=Load older posts').count(), 0);
    assert.equal((await texts(tab)).length, 3, 'the posts held still show');
  });
});
