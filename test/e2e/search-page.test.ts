// The search page and the links to profile pages in Chromium (issue 17): a member searches a handle of the fake
// origin that this server has never seen, follows the result to its profile page with the history panel; a post's
// author links to their profile page on the status page (remote and local) and in the profile's posts, a boost names
// its booster; an anonymous visitor gets the form and local results only, and nothing is asked of another server.
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

describe('search page and author links', () => {
  let s: TestServer;
  let origin: HistoryOrigin;
  let m: LocalMembers;
  let browser: Browser;
  let member: BrowserContext;
  let tab: Page;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  /** The origin answers WebFinger for `name` (as a server does for a handle). */
  const webfinger = (name: string, actor: string) =>
    origin.serve(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:${name}@${origin.host}`)}`, {
      contentType: 'application/jrd+json',
      json: { subject: `acct:${name}@${origin.host}`, links: [{ rel: 'self', type: 'application/activity+json', href: actor }] },
    });

  before(async () => {
    [s, origin] = await Promise.all([startTestServer(FED_ENV), startHistoryOrigin()]);
    m = await createMembers(s, ['ann', 'boss'], { boss: 'admin' });
    const operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    assert.equal((await call(operator, 'PUT', '/api/v1/admin/remote_history', { enabled: true })).status, 200);
    browser = await launchBrowser();
    member = await browser.newContext();
    tab = await member.newPage();
    await signInWithForm(tab, s.url, 'ann', 'member-password-1');
    await tab.waitForURL(`${s.url}/`);
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
    await origin?.close();
  });

  it('a member finds a handle of another server and lands on its profile page with the history panel', async () => {
    webfinger('someone', origin.actor('someone'));
    origin.load('basic', { name: 'someone' });
    await tab.click('a:text("Search")');
    await tab.waitForURL(`${s.url}/search`);
    await tab.fill('#q', `@someone@${origin.host}`);
    await tab.click('#search button[type=submit]');
    await tab.waitForSelector('#accounts');
    const link = tab.locator('#accounts a.account-link');
    assert.equal(await link.count(), 1);
    assert.equal(((await tab.textContent('#accounts .acct')) ?? '').trim(), `@someone@${origin.host}`);
    await link.click();
    await tab.waitForURL(`${s.url}/@someone@${origin.host}`);
    await tab.locator('.history').waitFor(WAIT);
    // Opening it asked for the history, as the API's first page does; the page reloads itself until the posts are in.
    await tab.locator('.post').nth(2).waitFor(WAIT);
    assert.equal(((await tab.textContent('.history-state')) ?? '').trim(), '3 older posts loaded; more are available');
    // Each post names its author, linked to this page.
    assert.equal(await tab.getAttribute('.post a.author', 'href'), `/@someone@${origin.host}`);
  });

  it("a post's author links to their profile page from the status page", async () => {
    const id = (await call(m.token['ann'], 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`someone@${origin.host}`)}`)).body.id as string;
    let post: Json;
    await eventually(async () => {
      const r = await call(m.token['ann'], 'GET', `/api/v1/accounts/${id}/statuses`);
      post = (r.body as Json[]).find((x) => x.content.includes('history five'));
      assert.ok(post, r.text);
    });
    await tab.goto(`${s.url}/web/statuses/${post.id}`);
    assert.equal(((await tab.textContent('.status .author')) ?? '').includes(`@someone@${origin.host}`), true);
    await tab.click('.status a.author');
    await tab.waitForURL(`${s.url}/@someone@${origin.host}`);
    await tab.locator('.history-state').waitFor(WAIT);

    // A local member's post links to their page; its boost names the booster and the author.
    const own = await call(m.token['ann'], 'POST', '/api/v1/statuses', { status: 'hello from ann', visibility: 'public' });
    assert.equal(own.status, 200, own.text);
    const boost = await call(m.token['boss'], 'POST', `/api/v1/statuses/${own.body.id}/reblog`);
    assert.equal(boost.status, 200, boost.text);
    await tab.goto(`${s.url}/web/statuses/${boost.body.id}`);
    assert.equal(await tab.getAttribute('.status a.booster', 'href'), '/@boss');
    assert.equal(await tab.getAttribute('.status a.author', 'href'), '/@ann');
    assert.match((await tab.textContent('.status')) ?? '', /hello from ann/);
    await tab.click('.status a.author');
    await tab.waitForURL(`${s.url}/@ann`);
  });

  it("a remote profile's boost names the booster and links the boosted post's author", async () => {
    const own = await call(m.token['ann'], 'POST', '/api/v1/statuses', { status: 'boost me', visibility: 'public' });
    assert.equal(own.status, 200, own.text);
    const actor = origin.actor('booster');
    origin.serve('/users/booster/outbox', {
      json: {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${actor}/outbox`,
        type: 'OrderedCollection',
        totalItems: 1,
        orderedItems: [
          { id: `${actor}/statuses/1/activity`, type: 'Announce', actor, to: ['https://www.w3.org/ns/activitystreams#Public'], object: own.body.uri },
        ],
      },
    });
    const found = await call(m.token['ann'], 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actor)}`);
    assert.equal(found.body.accounts?.length, 1, found.text);
    await tab.goto(`${s.url}/@booster@${origin.host}`);
    await tab.locator('.post.boost').waitFor(WAIT);
    assert.equal(await tab.getAttribute('.post.boost a.booster', 'href'), `/@booster@${origin.host}`);
    assert.equal(await tab.getAttribute('.post.boost a.author', 'href'), '/@ann');
    assert.match((await tab.textContent('.post.boost .content')) ?? '', /boost me/);
  });

  it('shows posts found with their author linked', async () => {
    const own = await call(m.token['ann'], 'POST', '/api/v1/statuses', { status: 'zanzibar quokka', visibility: 'public' });
    assert.equal(own.status, 200, own.text);
    await tab.goto(`${s.url}/search?q=zanzibar`);
    await tab.waitForSelector('#statuses');
    assert.equal(await tab.getAttribute('#statuses .post a.author', 'href'), '/@ann');
    assert.match((await tab.textContent('#statuses .post .content')) ?? '', /zanzibar quokka/);
  });

  it('an anonymous visitor gets the form and local results, and nothing is asked of another server', async () => {
    const anon = await browser.newContext();
    try {
      const p = await anon.newPage();
      const res = await p.goto(`${s.url}/search`);
      assert.equal(res?.status(), 200);
      assert.equal(await p.locator('#search #q').count(), 1);
      await p.fill('#q', 'ann');
      await p.click('#search button[type=submit]');
      await p.waitForSelector('#accounts');
      assert.equal(await p.getAttribute('#accounts a.account-link', 'href'), '/@ann');

      webfinger('nobody', origin.actor('nobody'));
      const before = origin.requests();
      await p.goto(`${s.url}/search?q=${encodeURIComponent(`@nobody@${origin.host}`)}`);
      await p.waitForSelector('#no-results');
      assert.equal(origin.requests(), before, 'nothing was fetched for an anonymous search');
      // What this server knows already is found by anyone.
      await p.goto(`${s.url}/search?q=${encodeURIComponent(`@someone@${origin.host}`)}`);
      assert.equal(await p.getAttribute('#accounts a.account-link', 'href'), `/@someone@${origin.host}`);
    } finally {
      await anon.close();
    }
  });
});
