// The pages at the URLs we give out, in a real Chromium: a post's page (/@name/id) with its thread and the
// OpenGraph head link previewers read; a followers-only post's page for an anonymous visitor, a signed-in stranger
// and a follower; a profile's posts, pinned first, paged by "Older posts"; a tag's page, paged likewise.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, FED_ENV, type Json } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('status, profile and tag pages', () => {
  let s: TestServer;
  let m: LocalMembers;
  let browser: Browser;
  let host: string;
  let root: Json;
  let mid: Json;
  let leaf: Json;
  let priv: Json;
  let direct: Json;
  let pinned: Json;
  const paged: Json[] = [];

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const post = async (who: string, body: Record<string, unknown>) => {
    const r = await call(m.token[who], 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, r.text);
    return r.body as Json;
  };
  /** A page in a fresh context (signed in as `who` if named), with whatever the page complains of collected. */
  const open = async (who?: string): Promise<{ context: BrowserContext; tab: Page; complaints: string[] }> => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const complaints: string[] = [];
    tab.on('console', (msg) => {
      if (/Content.Security.Policy|Refused to/i.test(msg.text())) complaints.push(msg.text());
    });
    tab.on('pageerror', (e) => complaints.push(e.message));
    if (who) {
      await signInWithForm(tab, s.url, who, 'member-password-1');
      await tab.waitForURL(`${s.url}/`);
    }
    return { context, tab, complaints };
  };
  const meta = (tab: Page, property: string) => tab.getAttribute(`meta[property="${property}"], meta[name="${property}"]`, 'content');

  before(async () => {
    s = await startTestServer(FED_ENV);
    host = new URL(s.url).host;
    m = await createMembers(s, ['ann', 'fol', 'str']);
    assert.equal((await call(m.token['fol'], 'POST', `/api/v1/accounts/${m.id['ann']}/follow`)).status, 200);
    // A profile and a tag with more than a page of posts (20): the oldest two only on the second page.
    for (let i = 1; i <= 22; i++) paged.push(await post('ann', { status: `numbered post ${i} #PagedTag`, visibility: 'public' }));
    pinned = paged[0];
    assert.equal((await call(m.token['ann'], 'POST', `/api/v1/statuses/${pinned.id}/pin`)).status, 200);
    // A thread: ann's root, her own reply with a picture, and a follower's reply to that.
    root = await post('ann', { status: 'Root of the thread', visibility: 'public' });
    const picture = await upload(s.url, m.token['ann'], png(40, 30), { description: 'a small picture' });
    assert.equal(picture.status, 200, JSON.stringify(picture.body));
    mid = await post('ann', { status: 'The middle post', visibility: 'public', in_reply_to_id: root.id, media_ids: [picture.body.id] });
    leaf = await post('fol', { status: 'A reply below', visibility: 'public', in_reply_to_id: mid.id });
    priv = await post('ann', { status: 'For followers only', visibility: 'private' });
    direct = await post('ann', { status: '@str a word between us', visibility: 'direct' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  it("a public post's page shows it in its thread, with the OpenGraph head previewers read", async () => {
    const { context, tab, complaints } = await open();
    try {
      const res = await tab.goto(mid.url);
      assert.equal(res?.status(), 200);
      assert.equal(tab.url(), `${s.url}/@ann/${mid.id}`);
      assert.equal(await tab.title(), 'ann: "The middle post" - Stoa');
      assert.match((await tab.textContent('.status')) ?? '', /The middle post/);
      assert.match((await tab.textContent('.ancestors')) ?? '', /Root of the thread/);
      assert.match((await tab.textContent('.replies')) ?? '', /A reply below/);
      assert.equal(await tab.getAttribute('.status img.attachment', 'alt'), 'a small picture');

      assert.equal(await meta(tab, 'og:title'), `ann (@ann@${host})`);
      assert.equal(await meta(tab, 'og:description'), 'Attached: 1 image\n\nThe middle post');
      assert.equal(await meta(tab, 'og:published_time'), mid.created_at);
      assert.equal(await meta(tab, 'og:url'), mid.url);
      assert.equal(await meta(tab, 'og:type'), 'article');
      assert.equal(await meta(tab, 'og:site_name'), 'Stoa');
      assert.equal(await meta(tab, 'og:image'), mid.media_attachments[0].url);
      assert.equal(await meta(tab, 'twitter:card'), 'summary_large_image');
      assert.equal(await tab.getAttribute('link[rel=alternate][type="application/activity+json"]', 'href'), mid.uri);
      const oembed = await tab.getAttribute('link[rel=alternate][type="application/json+oembed"]', 'href');
      assert.equal(oembed, `${s.url}/api/oembed?format=json&url=${encodeURIComponent(mid.url)}`);
      assert.equal((await call(undefined, 'GET', new URL(oembed).pathname + new URL(oembed).search)).body.type, 'rich');

      // A post of the thread links to its own page.
      await tab.click(`.ancestors a.permalink`);
      await tab.waitForURL(root.url);
      assert.match((await tab.textContent('.status')) ?? '', /Root of the thread/);
      assert.match((await tab.textContent('.replies')) ?? '', /The middle post/);
      // Without a picture, the author's avatar.
      assert.equal(await meta(tab, 'og:image'), root.account.avatar);
      assert.equal(await meta(tab, 'twitter:card'), 'summary');
      await tab.goto(leaf.url);
      assert.equal(await meta(tab, 'og:title'), `fol (@fol@${host})`);
      assert.deepEqual(complaints, []);
    } finally {
      await context.close();
    }
  });

  it("a followers-only post's page: not found for an anonymous visitor and a stranger, shown to a follower; a direct one to whom it mentions", async () => {
    const anonymous = await open();
    try {
      const res = await anonymous.tab.goto(priv.url);
      assert.equal(res?.status(), 404);
      assert.equal(await anonymous.tab.textContent('h1'), 'Page not found');
      assert.ok(!((await anonymous.tab.content()) ?? '').includes('For followers only'));
    } finally {
      await anonymous.context.close();
    }
    const stranger = await open('str');
    try {
      const res = await stranger.tab.goto(priv.url);
      assert.equal(res?.status(), 404);
      assert.ok(!((await stranger.tab.content()) ?? '').includes('For followers only'));
      // A direct post is shown to the member it mentions (and to nobody else, the follower included: below).
      assert.equal((await stranger.tab.goto(direct.url))?.status(), 200);
      assert.match((await stranger.tab.textContent('.status')) ?? '', /a word between us/);
    } finally {
      await stranger.context.close();
    }
    const follower = await open('fol');
    try {
      const res = await follower.tab.goto(priv.url);
      assert.equal(res?.status(), 200);
      assert.match((await follower.tab.textContent('.status')) ?? '', /For followers only/);
      assert.equal((await follower.tab.goto(direct.url))?.status(), 404);
      await follower.tab.goto(priv.url);
      // Nothing points other servers or embedders at what they may not fetch.
      assert.equal(await follower.tab.locator('link[rel=alternate]').count(), 0);
      // The follower sees it on the profile too; a visitor does not (below).
      await follower.tab.goto(`${s.url}/@ann`);
      assert.equal(await follower.tab.locator(`#post-${priv.id}`).count(), 1);
    } finally {
      await follower.context.close();
    }
  });

  it("a profile lists the member's posts, pinned first, 20 at a time with an Older posts link", async () => {
    const { context, tab, complaints } = await open();
    try {
      assert.equal((await tab.goto(`${s.url}/@ann`))?.status(), 200);
      assert.equal(await meta(tab, 'og:type'), 'profile');
      assert.equal(await meta(tab, 'og:url'), `${s.url}/@ann`);
      assert.equal(await meta(tab, 'profile:username'), `ann@${host}`);
      assert.equal(await tab.locator('.pinned article.post').count(), 1);
      assert.match((await tab.textContent('.pinned')) ?? '', /numbered post 1 /);
      const first = tab.locator('section.posts article.post');
      assert.equal(await first.count(), 20);
      assert.equal(await tab.locator(`section.posts #post-${priv.id}`).count(), 0, 'a followers-only post is not shown to a visitor');
      // Newest first: the thread's posts by ann (the root and her self-reply), then the numbered ones, newest first.
      assert.equal(await first.nth(0).getAttribute('id'), `post-${mid.id}`);
      assert.equal(await first.nth(1).getAttribute('id'), `post-${root.id}`);
      assert.equal(await first.nth(2).getAttribute('id'), `post-${paged[21].id}`);
      await tab.click('a.older');
      await tab.waitForURL(/\/@ann\?max_id=\d+$/);
      const older = tab.locator('section.posts article.post');
      // The thread's two took two places of the first page: four numbered posts are left for the second.
      assert.deepEqual(
        await older.evaluateAll((els) => els.map((e) => e.id)),
        [3, 2, 1, 0].map((i) => `post-${paged[i].id}`),
      );
      assert.equal(await tab.locator('.pinned').count(), 0, 'pinned posts on the first page only');
      assert.equal(await tab.locator('a.older').count(), 0);
      // Each post opens its own page.
      await tab.click(`#post-${paged[0].id} a.permalink`);
      await tab.waitForURL(paged[0].url);
      assert.match((await tab.textContent('.status')) ?? '', /numbered post 1 /);
      assert.deepEqual(complaints, []);
    } finally {
      await context.close();
    }
  });

  it("a tag's page lists its recent public posts, paged; an unknown tag is an empty page", async () => {
    const { context, tab, complaints } = await open();
    try {
      const tagUrl = paged[0].tags[0].url as string;
      assert.equal(tagUrl, `${s.url}/tags/PagedTag`);
      assert.equal((await tab.goto(tagUrl))?.status(), 200);
      assert.equal(await tab.textContent('h1'), '#PagedTag');
      assert.equal(await meta(tab, 'og:title'), '#PagedTag');
      assert.equal(await meta(tab, 'og:url'), tagUrl);
      assert.equal(await tab.locator('section.posts article.post').count(), 20);
      assert.equal(await tab.locator('section.posts article.post').first().getAttribute('id'), `post-${paged[21].id}`);
      await tab.click('a.older');
      await tab.waitForURL(/\/tags\/PagedTag\?max_id=\d+$/);
      assert.deepEqual(await tab.locator('section.posts article.post').evaluateAll((els) => els.map((e) => e.id)), [
        `post-${paged[1].id}`,
        `post-${paged[0].id}`,
      ]);
      assert.equal(await tab.locator('a.older').count(), 0);

      assert.equal((await tab.goto(`${s.url}/tags/nothinghere`))?.status(), 200);
      assert.equal(await tab.locator('article.post').count(), 0);
      assert.match((await tab.textContent('.empty')) ?? '', /No public posts with this tag/);
      assert.deepEqual(complaints, []);
    } finally {
      await context.close();
    }
  });
});
