// A featured tag's `url` (/@name/tagged/tag, Mastodon's profile filtered by tag) in a real Chromium: the member's
// posts with the tag as the viewer may read them (a follower sees the followers-only ones too), replies and untagged
// posts left out, newest first, 20 at a time with "Older posts", the pinned ones with the tag first (as
// GET /api/v1/accounts/:id/statuses?pinned=true&tagged= lists them); reached from the profile's featured hashtags.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createRestAPIClient } from 'masto';
import { api, type Json } from '../support/api.js';
import { launchBrowser, signInWithForm } from '../support/browser.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('a profile filtered by a hashtag (/@name/tagged/tag)', () => {
  let s: TestServer;
  let m: LocalMembers;
  let browser: Browser;
  let url = '';
  let priv: Json;
  let reply: Json;
  let others: Json;
  let pinnedUntagged: Json;
  const tagged: Json[] = [];

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const post = async (who: string, body: Record<string, unknown>) => {
    const r = await call(m.token[who], 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, r.text);
    return r.body as Json;
  };
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
  const postIds = (tab: Page) => tab.locator('section.posts article.post').evaluateAll((els) => els.map((e) => e.id));

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'fol', 'bob']);
    assert.equal((await call(m.token['fol'], 'POST', `/api/v1/accounts/${m.id['ann']}/follow`)).status, 200);
    // 22 public posts with the tag, each followed by one without it: the tagged ones need two pages.
    for (let i = 1; i <= 22; i++) {
      tagged.push(await post('ann', { status: `tagged post ${i} #Garden`, visibility: i % 2 ? 'public' : 'unlisted' }));
      await post('ann', { status: `untagged post ${i}` });
    }
    priv = await post('ann', { status: 'for followers #garden', visibility: 'private' });
    // Someone else's post with the tag is not ann's, and her answer to it is a reply (her self-replies would stay).
    others = await post('bob', { status: 'bob too #Garden' });
    reply = await post('ann', { status: 'a reply #Garden', in_reply_to_id: others.id });
    // Pinned: the oldest tagged post, and one without the tag.
    pinnedUntagged = await post('ann', { status: 'pinned, no tag' });
    for (const x of [tagged[0], pinnedUntagged]) assert.equal((await call(m.token['ann'], 'POST', `/api/v1/statuses/${x.id}/pin`)).status, 200);
    const featured = await call(m.token['ann'], 'POST', '/api/v1/featured_tags', { name: 'Garden' });
    assert.equal(featured.status, 200, featured.text);
    url = featured.body.url;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  it("is the featured tag's url: ann's public posts with the tag, newest first, paged by Older posts", async () => {
    assert.equal(url, `${s.url}/@ann/tagged/Garden`);
    const { context, tab, complaints } = await open();
    try {
      assert.equal((await tab.goto(url))?.status(), 200);
      assert.equal(await tab.getAttribute('meta[property="og:url"]', 'content'), url);
      assert.match(await tab.title(), /^ann #Garden/);
      assert.match((await tab.textContent('h2.tagged')) ?? '', /Posts tagged #Garden/);
      assert.deepEqual(await tab.locator('.pinned article.post').evaluateAll((els) => els.map((e) => e.id)), [`post-${tagged[0].id}`]);
      assert.deepEqual(
        await postIds(tab),
        tagged
          .slice(2)
          .reverse()
          .map((x) => `post-${x.id}`),
        'the newest 20 tagged posts: no untagged post, no reply, no followers-only post, nobody else’s',
      );
      for (const x of [priv, reply, others]) assert.equal(await tab.locator(`#post-${x.id}`).count(), 0);
      await tab.click('a.older');
      await tab.waitForURL(/\/@ann\/tagged\/Garden\?max_id=\d+$/);
      assert.deepEqual(await postIds(tab), [`post-${tagged[1].id}`, `post-${tagged[0].id}`]);
      assert.equal(await tab.locator('.pinned').count(), 0, 'pinned posts on the first page only');
      assert.equal(await tab.locator('a.older').count(), 0);
      assert.deepEqual(complaints, []);
    } finally {
      await context.close();
    }
  });

  it('lists the same through the API: ?tagged= and ?pinned=true&tagged=, as Mastodon’s AccountStatusesFilter', async () => {
    const ids = async (q: string) => {
      const r = await call(undefined, 'GET', `/api/v1/accounts/${m.id['ann']}/statuses?${q}`);
      assert.equal(r.status, 200, r.text);
      return (r.body as Json[]).map((x) => x.id as string);
    };
    assert.deepEqual(await ids('pinned=true&tagged=garden'), [tagged[0].id]);
    assert.deepEqual((await ids('pinned=true')).sort(), [tagged[0].id, pinnedUntagged.id].sort());
    assert.deepEqual(await ids('pinned=true&tagged=nothinghere'), []);
    // masto.js asks the same.
    const masto = createRestAPIClient({ url: s.url, accessToken: m.token['bob'] });
    const viaMasto = await masto.v1.accounts.$select(m.id['ann']!).statuses.list({ pinned: true, tagged: 'Garden' });
    assert.deepEqual(
      viaMasto.map((x) => x.id),
      [tagged[0].id],
    );
    assert.deepEqual(
      await ids('tagged=Garden&exclude_replies=true&limit=40'),
      tagged
        .slice()
        .reverse()
        .map((x) => x.id),
    );
  });

  it('shows a follower the followers-only posts with the tag too', async () => {
    const { context, tab, complaints } = await open('fol');
    try {
      assert.equal((await tab.goto(url))?.status(), 200);
      const ids = await postIds(tab);
      assert.equal(ids[0], `post-${priv.id}`);
      assert.equal(ids.length, 20);
      assert.deepEqual(complaints, []);
    } finally {
      await context.close();
    }
  });

  it("is reached from the profile's featured hashtags; any case of the name; no page for a bad name or no member", async () => {
    const { context, tab, complaints } = await open();
    try {
      assert.equal((await tab.goto(`${s.url}/@ann`))?.status(), 200);
      await tab.click('.featured-tags a[rel="tag"]');
      await tab.waitForURL(url);
      assert.equal(await tab.locator('section.posts article.post').count(), 20);
      // The tag's link leads to the tag's own page, "all posts" back to the profile.
      assert.equal(await tab.getAttribute('h2.tagged a[rel="tag"]', 'href'), `${s.url}/tags/Garden`);
      assert.equal((await tab.goto(`${s.url}/@ann/tagged/garden`))?.status(), 200);
      assert.equal(await tab.locator('section.posts article.post').count(), 20);
      assert.equal((await tab.goto(`${s.url}/@ann/tagged/nothinghere`))?.status(), 200);
      assert.match((await tab.textContent('.empty')) ?? '', /No posts with this tag yet/);
      assert.deepEqual(complaints, []);
    } finally {
      await context.close();
    }
    for (const path of ['/@ann/tagged/not%20a%20tag', '/@nobody/tagged/Garden', '/@ann@elsewhere.example/tagged/Garden']) {
      assert.equal((await fetch(`${s.url}${path}`)).status, 404, path);
    }
    // An ActivityPub client is given the actor, as at /@ann.
    const actor = await fetch(url, { headers: { accept: 'application/activity+json' } });
    assert.equal(actor.status, 200);
    assert.equal(((await actor.json()) as Json).preferredUsername, 'ann');
  });
});
