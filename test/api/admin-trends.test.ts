// Mastodon's Admin::Trends API as a moderator's client sees it: the candidates of the last refresh with
// `requires_review`, approve and reject of tags, statuses and links, and how the operator's "trends need review"
// setting decides what the public lists show (Mastodon's trendable_by_default); who may call each route; Mastodon.py
// 1.8's admin_trending_tags, admin_trending_statuses and admin_trending_links (it has no call for publishers). Link
// publishers: the review of a link's domain, and how it decides the public link trends as a client sees them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { TrendStore } from '../../src/store/trends.js';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
const POSTERS = ['ann', 'ben', 'cal', 'dan', 'eve', 'fay'] as const;

describe('admin trends API', () => {
  let s: TestServer;
  let m: LocalMembers;
  let boss: string;
  let mod: string;
  const ids: Record<string, string> = {};

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const ok = async (token: string | undefined, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(token, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const shown = async () => ({
    tags: ((await ok(undefined, 'GET', '/api/v1/trends/tags')) as Json[]).map((t) => t.name),
    statuses: ((await ok(undefined, 'GET', '/api/v1/trends/statuses')) as Json[]).map((x) => x.id),
    links: ((await ok(undefined, 'GET', '/api/v1/trends/links')) as Json[]).map((l) => l.url),
  });

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, [...POSTERS, 'mod', 'boss'], { mod: 'moderator', boss: 'admin' });
    boss = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    mod = await m.tokenFor('mod', ['admin:read', 'admin:write']);
    for (const who of POSTERS) await ok(m.token[who], 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: true });
    // Two tags, a link and a status, each past Mastodon's thresholds.
    for (const who of POSTERS)
      await ok(m.token[who], 'POST', '/api/v1/statuses', { status: `#first ${who === 'fay' ? '' : '#second'} see https://news.example/item` });
    const post = await ok(m.token['ann'], 'POST', '/api/v1/statuses', { status: 'worth a look' });
    ids['status'] = post.id;
    for (const who of POSTERS.slice(1)) await ok(m.token[who], 'POST', `/api/v1/statuses/${post.id}/favourite`);
    await new TrendStore(s.app.db).refresh(new Date());
  });
  after(async () => {
    await s?.stop();
  });

  it('needs admin:read or admin:write and the Manage taxonomies permission; the settings need Manage settings', async () => {
    assert.equal((await call(undefined, 'GET', '/api/v1/admin/trends/tags')).status, 401);
    assert.equal((await call(m.token['ann'], 'GET', '/api/v1/admin/trends/tags')).status, 403, 'read write follow is not admin:read');
    const ann = await m.tokenFor('ann', ['admin:read', 'admin:write']);
    for (const path of ['/api/v1/admin/trends/tags', '/api/v1/admin/trends/statuses', '/api/v1/admin/trends/links']) {
      const r = await call(ann, 'GET', path);
      assert.deepEqual([r.status, typeof r.body.error], [403, 'string'], path);
    }
    assert.equal((await call(await m.tokenFor('mod', ['admin:read']), 'POST', '/api/v1/admin/trends/tags/1/approve')).status, 403);
    // A moderator reviews trends but does not change the server's settings.
    assert.equal((await call(mod, 'GET', '/api/v1/admin/trends/tags')).status, 200);
    assert.equal((await call(mod, 'PUT', '/api/v1/admin/trends/settings', { review_required: false })).status, 403);
    const bad = await call(boss, 'PUT', '/api/v1/admin/trends/settings', { enabled: 'maybe' });
    assert.equal(bad.status, 422);
    assert.equal(typeof bad.body.error, 'string');
    assert.deepEqual(await ok(boss, 'GET', '/api/v1/admin/trends/settings'), { enabled: true, review_required: true }, "Mastodon's defaults");
  });

  it('lists every candidate for review while nothing is shown in public (review first, as Mastodon by default)', async () => {
    assert.deepEqual(await shown(), { tags: [], statuses: [], links: [] });
    const tags: Json[] = await ok(mod, 'GET', '/api/v1/admin/trends/tags');
    assert.deepEqual(
      tags.map((t) => [t.name, t.requires_review, t.trendable, t.usable, t.listable]),
      [
        ['first', true, false, true, true],
        ['second', true, false, true, true],
      ],
    );
    assert.match(tags[0].id, /^\d+$/);
    assert.equal(tags[0].history[0].accounts, '6');
    ids['first'] = tags[0].id;
    ids['second'] = tags[1].id;
    const statuses: Json[] = await ok(mod, 'GET', '/api/v1/admin/trends/statuses');
    assert.deepEqual(
      statuses.map((x) => [x.id, x.requires_review, x.favourites_count]),
      [[ids['status'], true, 5]],
    );
    const links: Json[] = await ok(mod, 'GET', '/api/v1/admin/trends/links');
    assert.deepEqual(
      links.map((l) => [l.url, l.requires_review, l.type]),
      [['https://news.example/item', true, 'link']],
    );
    assert.match(links[0].id, /^\d+$/);
    ids['link'] = links[0].id;
  });

  it('shows what a moderator approves, and never what they reject', async () => {
    const approved = await ok(mod, 'POST', `/api/v1/admin/trends/tags/${ids['first']}/approve`);
    assert.deepEqual([approved.name, approved.requires_review, approved.trendable], ['first', false, true]);
    const rejected = await ok(mod, 'POST', `/api/v1/admin/trends/tags/${ids['second']}/reject`);
    assert.deepEqual([rejected.name, rejected.requires_review, rejected.trendable], ['second', false, false]);
    const status = await ok(mod, 'POST', `/api/v1/admin/trends/statuses/${ids['status']}/approve`);
    assert.deepEqual([status.id, status.requires_review, status.content], [ids['status'], false, '<p>worth a look</p>']);
    const link = await ok(mod, 'POST', `/api/v1/admin/trends/links/${ids['link']}/approve`);
    assert.deepEqual([link.id, link.url, link.requires_review], [ids['link'], 'https://news.example/item', false]);
    assert.deepEqual(await shown(), { tags: ['first'], statuses: [ids['status']], links: ['https://news.example/item'] });
    // The candidates' list keeps both, reviewed.
    assert.deepEqual(
      ((await ok(mod, 'GET', '/api/v1/admin/trends/tags')) as Json[]).map((t) => [t.name, t.requires_review]),
      [
        ['first', false],
        ['second', false],
      ],
    );
  });

  it('with review off, shows anything not rejected; a rejection still holds', async () => {
    await ok(mod, 'POST', `/api/v1/admin/trends/statuses/${ids['status']}/reject`);
    assert.deepEqual(await ok(boss, 'PUT', '/api/v1/admin/trends/settings', { review_required: 'false' }), { enabled: true, review_required: false });
    assert.deepEqual(await shown(), { tags: ['first'], statuses: [], links: ['https://news.example/item'] });
    await ok(mod, 'POST', `/api/v1/admin/trends/tags/${ids['second']}/approve`);
    assert.deepEqual((await shown()).tags, ['first', 'second']);
    assert.deepEqual(await ok(boss, 'PUT', '/api/v1/admin/trends/settings', { review_required: true }), { enabled: true, review_required: true });
  });

  it('counts no silenced account: its uses leave the history, while the peak already reached decays as before', async () => {
    for (const who of ['eve', 'fay']) assert.equal((await call(boss, 'POST', `/api/v1/admin/accounts/${m.id[who]}/action`, { type: 'silence' })).status, 200);
    await new TrendStore(s.app.db).refresh(new Date());
    const tags: Json[] = await ok(mod, 'GET', '/api/v1/admin/trends/tags');
    assert.deepEqual(
      tags.map((t) => [t.name, t.history[0].accounts]),
      [
        ['first', '4'],
        ['second', '4'],
      ],
    );
    for (const who of ['eve', 'fay']) await ok(boss, 'POST', `/api/v1/admin/accounts/${m.id[who]}/unsilence`);
  });

  it('answers 404 for what does not exist', async () => {
    for (const path of ['tags/999999/approve', 'statuses/999999/reject', 'links/abc/approve', 'links/999999/reject']) {
      const r = await call(mod, 'POST', `/api/v1/admin/trends/${path}`);
      assert.deepEqual([r.status, r.body], [404, { error: 'Record not found' }], path);
    }
  });

  it('serves Mastodon.py 1.8: admin_trending_tags, admin_trending_statuses, admin_trending_links', async () => {
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
print(json.dumps({
  'tags': [[t['name'], t['requires_review']] for t in m.admin_trending_tags()],
  'statuses': [s['requires_review'] for s in m.admin_trending_statuses()],
  'links': [l['url'] for l in m.admin_trending_links()],
}))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: mod } });
    assert.deepEqual(JSON.parse(stdout), {
      tags: [
        ['first', false],
        ['second', false],
      ],
      statuses: [false],
      links: ['https://news.example/item'],
    });
  });
});

describe('admin trends API: link publishers', () => {
  let s: TestServer;
  let m: LocalMembers;
  let mod: string;
  let boss: string;
  const BLOG = ['https://blog.example/one', 'https://blog.example/two'];
  const NEWS = 'https://news.example/item';
  const pub: Record<string, string> = {};
  const link: Record<string, string> = {};

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const ok = async (token: string | undefined, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(token, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  /** The public link trends as a client reads them, without a token (sorted: equal scores have no order to keep). */
  const trending = async () => ((await ok(undefined, 'GET', '/api/v1/trends/links')) as Json[]).map((l) => l.url as string).sort();
  const publishers = async (): Promise<Json[]> => ok(mod, 'GET', '/api/v1/admin/trends/links/publishers');

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, [...POSTERS, 'mod', 'boss'], { mod: 'moderator', boss: 'admin' });
    mod = await m.tokenFor('mod', ['admin:read', 'admin:write']);
    boss = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    // Three links past Mastodon's threshold: two on one publisher, one on another.
    for (const url of [...BLOG, NEWS]) for (const who of POSTERS) await ok(m.token[who], 'POST', '/api/v1/statuses', { status: `read ${url}` });
    await new TrendStore(s.app.db).refresh(new Date());
    for (const l of (await ok(mod, 'GET', '/api/v1/admin/trends/links')) as Json[]) link[l.url] = l.id;
  });
  after(async () => {
    await s?.stop();
  });

  it("lists the publishers a refresh found, in Mastodon's shape, to staff with Manage taxonomies only", async () => {
    assert.equal((await call(undefined, 'GET', '/api/v1/admin/trends/links/publishers')).status, 401);
    const ann = await m.tokenFor('ann', ['admin:read', 'admin:write']);
    assert.equal((await call(ann, 'GET', '/api/v1/admin/trends/links/publishers')).status, 403);
    assert.equal((await call(ann, 'POST', '/api/v1/admin/trends/links/publishers/1/approve')).status, 403);
    const list = await publishers();
    assert.deepEqual(list.map((p) => p.domain).sort(), ['blog.example', 'news.example']);
    for (const p of list) {
      assert.deepEqual(Object.keys(p), ['id', 'domain', 'trendable', 'reviewed_at', 'requested_review_at', 'requires_review']);
      assert.match(p.id, /^\d+$/);
      assert.deepEqual([p.trendable, p.reviewed_at, p.requested_review_at, p.requires_review], [null, null, null, true]);
      pub[p.domain] = p.id;
    }
    // Newest first by id, with Mastodon's cursors.
    assert.ok(BigInt(list[0].id) > BigInt(list[1].id));
    assert.deepEqual(Object.keys(link).sort(), [...BLOG, NEWS].sort());
  });

  it("review on: a publisher's approval shows its links that have no verdict of their own; a link's own verdict wins", async () => {
    assert.deepEqual(await trending(), [], 'nothing reviewed, nothing shown');
    const approved = await ok(mod, 'POST', `/api/v1/admin/trends/links/publishers/${pub['blog.example']}/approve`);
    assert.deepEqual([approved.id, approved.domain, approved.trendable, approved.requires_review], [pub['blog.example'], 'blog.example', true, false]);
    assert.ok(Math.abs(Date.parse(approved.reviewed_at) - Date.now()) < 60_000, approved.reviewed_at);
    assert.deepEqual(await trending(), BLOG);
    // The moderators' link list: the publisher's review counts as the review of its links.
    const review = Object.fromEntries(((await ok(mod, 'GET', '/api/v1/admin/trends/links')) as Json[]).map((l) => [l.url, l.requires_review]));
    assert.deepEqual(review, { [BLOG[0]!]: false, [BLOG[1]!]: false, [NEWS]: true });
    // The link timeline opens with the trend.
    assert.equal((await call(undefined, 'GET', `/api/v1/timelines/link?url=${encodeURIComponent(BLOG[0]!)}`)).status, 200);
    await ok(mod, 'POST', `/api/v1/admin/trends/links/${link[BLOG[1]!]}/reject`);
    assert.deepEqual(await trending(), [BLOG[0]]);
    // A link approved on its own trends while its publisher is unreviewed (Mastodon's PreviewCard#trendable?).
    await ok(mod, 'POST', `/api/v1/admin/trends/links/${link[NEWS]}/approve`);
    assert.deepEqual(await trending(), [BLOG[0], NEWS]);
  });

  it("review off: a rejected publisher's links without a verdict stay hidden; one approved on its own still shows", async () => {
    await ok(boss, 'PUT', '/api/v1/admin/trends/settings', { review_required: false });
    assert.deepEqual(await trending(), [BLOG[0], NEWS]);
    const rejected = await ok(mod, 'POST', `/api/v1/admin/trends/links/publishers/${pub['blog.example']}/reject`);
    assert.deepEqual([rejected.trendable, rejected.requires_review], [false, false]);
    assert.deepEqual(await trending(), [NEWS]);
    assert.equal((await call(undefined, 'GET', `/api/v1/timelines/link?url=${encodeURIComponent(BLOG[0]!)}`)).status, 404);
    await ok(mod, 'POST', `/api/v1/admin/trends/links/${link[BLOG[0]!]}/approve`);
    assert.deepEqual(await trending(), [BLOG[0], NEWS]);
    // A publisher's rejection does not undo a link approved on its own.
    await ok(mod, 'POST', `/api/v1/admin/trends/links/publishers/${pub['news.example']}/reject`);
    assert.deepEqual(await trending(), [BLOG[0], NEWS]);
    await ok(boss, 'PUT', '/api/v1/admin/trends/settings', { review_required: true });
  });

  it("a subdomain's links belong to the publisher of its parent domain (Mastodon's matching_domain)", async () => {
    await ok(m.token['ann'], 'POST', '/api/v1/statuses', { status: 'also https://www.blog.example/three' });
    await ok(m.token['ann'], 'POST', '/api/v1/statuses', { status: 'and https://elsewhere.example/' });
    await new TrendStore(s.app.db).refresh(new Date());
    assert.deepEqual((await publishers()).map((p) => p.domain).sort(), ['blog.example', 'elsewhere.example', 'news.example']);
  });

  it('pages by id with Link headers, and answers 404 for what does not exist', async () => {
    const first = await call(mod, 'GET', '/api/v1/admin/trends/links/publishers?limit=2');
    assert.equal(first.status, 200);
    assert.equal(first.body.length, 2);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    assert.ok(next?.includes(`max_id=${first.body[1].id}`), first.headers.get('link') ?? 'no Link');
    const last = await call(mod, 'GET', next!.slice(s.url.length));
    assert.equal(last.body.length, 1);
    assert.ok(BigInt(last.body[0].id) < BigInt(first.body[1].id));
    // A page that is not full has no next; prev asks for the ones just newer (min_id), as Mastodon's.
    assert.doesNotMatch(last.headers.get('link') ?? '', /rel="next"/);
    const prev = /<([^>]+)>; rel="prev"/.exec(last.headers.get('link') ?? '')?.[1];
    assert.ok(prev?.includes(`min_id=${last.body[0].id}`), last.headers.get('link') ?? 'no Link');
    assert.deepEqual(
      ((await ok(mod, 'GET', prev!.slice(s.url.length))) as Json[]).map((p) => p.id),
      first.body.map((p: Json) => p.id),
    );
    for (const path of ['999999/approve', 'abc/reject']) {
      const r = await call(mod, 'POST', `/api/v1/admin/trends/links/publishers/${path}`);
      assert.deepEqual([r.status, r.body], [404, { error: 'Record not found' }], path);
    }
  });
});
