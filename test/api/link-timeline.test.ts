// Mastodon 4.3's link timeline (GET /api/v1/timelines/link?url=): the public posts about a trending link, newest
// first, paged with max_id/since_id/min_id/limit and Link headers, the URL matched however the client writes it,
// without what the viewer may not read or does not want (private posts, boosts, blocks, mutes, accounts not
// discoverable); 404 for a link that is not a trend shown to the public, as Mastodon's. Through masto.js too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRestAPIClient } from 'masto';
import { TrendStore } from '../../src/store/trends.js';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const POSTERS = ['ann', 'ben', 'cal', 'dan', 'eve'] as const;
const URL_ = 'https://news.example/story';

describe('link timeline', () => {
  let s: TestServer;
  let m: LocalMembers;
  const posts: Record<string, string> = {};

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const ok = async (token: string | undefined, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(token, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const timeline = (query: string, token?: string) => call(token, 'GET', `/api/v1/timelines/link?${query}`);
  const authors = async (query = `url=${encodeURIComponent(URL_)}`, token?: string) => {
    const r = await timeline(query, token);
    assert.equal(r.status, 200, r.text);
    return (r.body as Json[]).map((x) => x.account.acct);
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, [...POSTERS, 'hid', 'val', 'boss'], { boss: 'admin' });
    for (const who of [...POSTERS, 'val']) await ok(m.token[who], 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: true });
    for (const who of POSTERS) posts[who] = (await ok(m.token[who], 'POST', '/api/v1/statuses', { status: `${who} on ${URL_}` })).id;
    // Not listed: a followers-only post, a boost, and an account that did not opt in to discovery.
    await ok(m.token['val'], 'POST', '/api/v1/statuses', { status: `private ${URL_}`, visibility: 'private' });
    await ok(m.token['val'], 'POST', `/api/v1/statuses/${posts['ann']}/reblog`);
    await ok(m.token['hid'], 'POST', '/api/v1/statuses', { status: `hid on ${URL_}` });
    const boss = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    await ok(boss, 'PUT', '/api/v1/admin/trends/settings', { review_required: false });
  });
  after(async () => {
    await s?.stop();
  });

  it('is 404 until the link trends, and for an unknown or missing URL', async () => {
    for (const q of [`url=${encodeURIComponent(URL_)}`, 'url=https://unknown.example/', 'url=not-a-url', '']) {
      const r = await timeline(q);
      assert.deepEqual([r.status, r.body], [404, { error: 'Record not found' }], q);
    }
    await new TrendStore(s.app.db).refresh(new Date());
    assert.equal((await timeline(`url=${encodeURIComponent(URL_)}`)).status, 200);
  });

  it('lists the public posts about the link, newest first, however the URL is written', async () => {
    assert.deepEqual(await authors(), ['eve', 'dan', 'cal', 'ben', 'ann']);
    assert.deepEqual(await authors(`url=${encodeURIComponent('HTTPS://NEWS.example:443/story#top')}`), ['eve', 'dan', 'cal', 'ben', 'ann']);
  });

  it('pages with Link headers and max_id, since_id, min_id', async () => {
    const first = await timeline(`url=${encodeURIComponent(URL_)}&limit=2`);
    assert.deepEqual(
      first.body.map((x: Json) => x.id),
      [posts['eve'], posts['dan']],
    );
    const base = `${s.url}/api/v1/timelines/link?limit=2&url=${encodeURIComponent(URL_)}`;
    assert.equal(first.link, `<${base}&max_id=${posts['dan']}>; rel="next", <${base}&min_id=${posts['eve']}>; rel="prev"`);
    const next = /<([^>]+)>; rel="next"/.exec(first.link!)![1]!;
    assert.deepEqual(
      (await ok(undefined, 'GET', next.slice(s.url.length))).map((x: Json) => x.id),
      [posts['cal'], posts['ben']],
    );
    assert.deepEqual(await authors(`url=${encodeURIComponent(URL_)}&since_id=${posts['cal']}`), ['eve', 'dan']);
    assert.deepEqual(await authors(`url=${encodeURIComponent(URL_)}&min_id=${posts['ann']}&limit=2`), ['cal', 'ben']);
    assert.equal((await timeline(`url=${encodeURIComponent(URL_)}&limit=-1`)).status, 400);
  });

  it('leaves out the accounts a viewer blocks or mutes, and needs read:statuses of a token that is sent', async () => {
    const val = m.token['val']!;
    await ok(val, 'POST', `/api/v1/accounts/${m.id['ben']}/block`);
    await ok(val, 'POST', `/api/v1/accounts/${m.id['dan']}/mute`);
    assert.deepEqual(await authors(undefined, val), ['eve', 'cal', 'ann']);
    const wrong = await timeline(`url=${encodeURIComponent(URL_)}`, await m.tokenFor('val', ['read:accounts']));
    assert.equal(wrong.status, 403);
    assert.deepEqual(await authors(undefined, await m.tokenFor('val', ['read:statuses'])), ['eve', 'cal', 'ann']);
  });

  it('serves masto.js: v1.timelines.link.list, paging through its paginator', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['eve']! });
    const pages: string[][] = [];
    for await (const page of client.v1.timelines.link.list({ url: URL_, limit: 2 })) pages.push(page.map((x) => x.account.acct));
    // As on Mastodon, a short page still links on; the empty page after it carries no Link header and ends the walk.
    assert.deepEqual(pages, [['eve', 'dan'], ['cal', 'ben'], ['ann'], []]);
  });

  it('follows edits: a post edited to another link leaves this one, and a deleted post is gone', async () => {
    await ok(m.token['ann'], 'PUT', `/api/v1/statuses/${posts['ann']}`, { status: 'ann changed her mind: https://other.example/' });
    await ok(m.token['cal'], 'DELETE', `/api/v1/statuses/${posts['cal']}`);
    assert.deepEqual(await authors(), ['eve', 'dan', 'ben']);
    const r = await s.app.db.pool.query(`SELECT l.url FROM status_links sl JOIN links l ON l.id = sl.link_id WHERE sl.status_id = $1`, [posts['ann']]);
    assert.deepEqual(r.rows, [{ url: 'https://other.example/' }]);
  });
});
