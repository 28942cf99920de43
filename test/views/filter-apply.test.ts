// Content filters where a member sees statuses over REST: a `warn` (or `blur`) filter's matches carry
// `filtered: [FilterResult]`, a `hide` filter's are left out of the page, each only in its contexts (home and lists,
// public and hashtags, notifications v1 and v2, a thread, an account's statuses). Keywords match as Mastodon's do:
// case-insensitive, whole words at word boundaries, in the text without markup, the content warning, poll options and
// media descriptions; a filter may also name statuses. Expired filters, other members' filters and one's own posts
// are left alone, and a change shows on the next page (the per-node cache is dropped).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Request } from '../../src/http/request.js';
import type { Principal, Route } from '../../src/http/types.js';
import { api, type Json } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('filters applied to REST pages', () => {
  let s: TestServer;
  let m: LocalMembers;
  const call = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const post = (who: string, body: Json): Promise<Json> => call(who, 'POST', '/api/v1/statuses', { visibility: 'public', ...body });
  const filter = (who: string, body: Json): Promise<Json> => call(who, 'POST', '/api/v2/filters', body);
  /** The page's statuses by id. */
  const page = async (who: string, path: string): Promise<Map<string, Json>> => new Map(((await call(who, 'GET', path)) as Json[]).map((x) => [x.id, x]));
  const titles = (st: Json) => (st.filtered as Json[]).map((r) => r.filter.title);

  /** The statements the last request's handler sent, by path and member. */
  const sent = new Map<string, string[]>();

  before(async () => {
    s = await startTestServer();
    for (const r of s.app.routes as Route[]) {
      const h = r.handler as (req: Request, who: Principal | null) => unknown;
      (r as { handler: unknown }).handler = async (req: Request, who: Principal | null) => {
        const { value, statements } = await s.app.db.tally(async () => h(req, who));
        sent.set(`${req.path} ${who?.record.user?.accountId}`, statements);
        return value;
      };
    }
    m = await createMembers(s, ['ann', 'bob', 'cid']);
    await call('ann', 'POST', `/api/v1/accounts/${m.id['bob']}/follow`);
    await call('cid', 'POST', `/api/v1/accounts/${m.id['bob']}/follow`);
  });
  beforeEach(async () => {
    for (const who of ['ann', 'cid']) for (const f of await call(who, 'GET', '/api/v2/filters')) await call(who, 'DELETE', `/api/v2/filters/${f.id}`);
  });
  after(() => s?.stop());

  it('warns in home with the filter and what matched; hides in home; leaves other members alone', async () => {
    const warned = await post('bob', { status: 'The Season FINALE was great' });
    const hidden = await post('bob', { status: 'spoiler: the butler did it' });
    const plain = await post('bob', { status: 'nothing to see' });
    const w = await filter('ann', { title: 'TV', context: ['home'], filter_action: 'warn', keywords_attributes: [{ keyword: 'finale' }] });
    await filter('ann', { title: 'Whodunit', context: ['home'], filter_action: 'hide', keywords_attributes: [{ keyword: 'butler' }] });
    const home = await page('ann', '/api/v1/timelines/home');
    assert.deepEqual(home.get(warned.id).filtered, [
      {
        filter: { id: w.id, title: 'TV', context: ['home'], expires_at: null, filter_action: 'warn' },
        keyword_matches: ['FINALE'],
        status_matches: null,
      },
    ]);
    assert.equal(home.has(hidden.id), false, 'a hide filter takes the status out of the page');
    assert.deepEqual(home.get(plain.id).filtered, []);
    // cid has no filters: everything, unfiltered.
    const cids = await page('cid', '/api/v1/timelines/home');
    assert.deepEqual(cids.get(warned.id).filtered, []);
    assert.ok(cids.has(hidden.id));
    // A list is the home context too.
    const list = await call('ann', 'POST', '/api/v1/lists', { title: 'friends' });
    await call('ann', 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [m.id['bob']] });
    const listed = await page('ann', `/api/v1/timelines/list/${list.id}`);
    assert.deepEqual(titles(listed.get(warned.id)), ['TV']);
    assert.equal(listed.has(hidden.id), false);
  });

  it('applies only in the filter’s contexts: public and hashtags, an account’s statuses, a thread', async () => {
    const p = await post('bob', { status: 'A #rumour about the merger' });
    const reply = await post('cid', { status: '@bob no merger here', in_reply_to_id: p.id });
    await filter('ann', { title: 'Public', context: ['public'], filter_action: 'hide', keywords_attributes: [{ keyword: 'merger' }] });
    await filter('ann', { title: 'Profiles', context: ['account', 'thread'], keywords_attributes: [{ keyword: 'merger' }] });
    assert.equal((await page('ann', '/api/v1/timelines/public')).has(p.id), false);
    assert.equal((await page('ann', '/api/v1/timelines/tag/rumour')).has(p.id), false);
    assert.deepEqual((await page('ann', '/api/v1/timelines/home')).get(p.id).filtered, [], 'no home filter');
    assert.deepEqual(titles((await page('ann', `/api/v1/accounts/${m.id['bob']}/statuses`)).get(p.id)), ['Profiles']);
    const ctx = await call('ann', 'GET', `/api/v1/statuses/${p.id}/context`);
    assert.deepEqual(
      ctx.descendants.map((x: Json) => [x.id, titles(x)]),
      [[reply.id, ['Profiles']]],
    );
    // Hidden in the thread context: the reply goes from the thread.
    await filter('ann', { title: 'No replies', context: ['thread'], filter_action: 'hide', keywords_attributes: [{ keyword: 'no merger' }] });
    assert.deepEqual((await call('ann', 'GET', `/api/v1/statuses/${p.id}/context`)).descendants, []);
    // Asked for by id, a status carries every filter it matches, whatever the context, and is never hidden (as Mastodon).
    assert.deepEqual(titles(await call('ann', 'GET', `/api/v1/statuses/${reply.id}`)).sort(), ['No replies', 'Profiles', 'Public']);
    // Anonymous readers have no filters.
    assert.ok(((await api(s.url, undefined, 'GET', '/api/v1/timelines/public')).body as Json[]).some((x) => x.id === p.id));
  });

  it('hides and warns in notifications, v1 and v2', async () => {
    await filter('ann', { title: 'Rude', context: ['notifications'], filter_action: 'hide', keywords_attributes: [{ keyword: 'rude' }] });
    const w = await filter('ann', { title: 'Sales', context: ['notifications'], filter_action: 'warn', keywords_attributes: [{ keyword: 'sale' }] });
    const rude = await post('cid', { status: '@ann a rude remark' });
    const sale = await post('cid', { status: '@ann a sale today' });
    const v1 = (await call('ann', 'GET', '/api/v1/notifications')) as Json[];
    assert.equal(
      v1.some((n) => n.status?.id === rude.id),
      false,
    );
    assert.deepEqual(
      v1.find((n) => n.status?.id === sale.id).status.filtered.map((r: Json) => r.filter.id),
      [w.id],
    );
    const v2 = await call('ann', 'GET', '/api/v2/notifications');
    assert.equal(
      v2.statuses.some((x: Json) => x.id === rude.id),
      false,
    );
    assert.equal(
      v2.notification_groups.some((g: Json) => g.status_id === rude.id),
      false,
    );
    assert.deepEqual(
      v2.statuses.find((x: Json) => x.id === sale.id).filtered.map((r: Json) => r.filter.id),
      [w.id],
    );
  });

  it('matches keywords as Mastodon does: whole words, case, markup, content warning, poll options, media descriptions', async () => {
    await filter('ann', {
      title: 'Words',
      context: ['home'],
      keywords_attributes: [
        { keyword: 'cat', whole_word: true },
        { keyword: 'dog', whole_word: false },
        { keyword: 'C++', whole_word: true },
        { keyword: 'noopener', whole_word: false },
        { keyword: 'e-mail (x)', whole_word: true },
      ],
    });
    const media = await upload(s.url, m.token['bob'], png(8, 8), { description: 'a sleepy Cat on a sofa' });
    const cases: [string, Json, string[] | null][] = [
      ['word', { status: 'my cat is here' }, ['cat']],
      ['inside a word', { status: 'concatenate these' }, null],
      ['accents are letters', { status: 'catégorie' }, null],
      ['not whole word', { status: 'hotdogs for all' }, ['dog']],
      ['a symbol keyword', { status: 'I write C++ daily' }, ['C++']],
      ['punctuation is literal', { status: 'send an E-Mail (X) now' }, ['E-Mail (X)']],
      ['escaped text is text', { status: 'see <cat> tags' }, ['cat']],
      ['markup is not text', { status: 'a link https://example.com/x' }, null],
      ['content warning', { status: 'hidden', spoiler_text: 'CAT pictures' }, ['CAT']],
      ['poll option', { status: 'vote', poll: { options: ['cat', 'bird'], expires_in: 3600 } }, ['cat']],
      ['media description', { status: 'look', media_ids: [media.body.id] }, ['Cat']],
    ];
    const posted = [];
    for (const [name, body, expected] of cases) posted.push({ name, expected, id: (await post('bob', body)).id });
    const home = await page('ann', '/api/v1/timelines/home?limit=40');
    for (const p of posted) {
      const st = home.get(p.id);
      assert.ok(st, p.name);
      const matches = st.filtered.length ? st.filtered[0].keyword_matches : null;
      assert.deepEqual(matches, p.expected, p.name);
    }
  });

  it('filters named statuses and boosts of them, never one’s own posts, not once expired, and follows each change', async () => {
    const p = await post('bob', { status: 'a status named by a filter' });
    const boost = await call('bob', 'POST', `/api/v1/statuses/${p.id}/reblog`);
    const mine = await post('ann', { status: 'my own secret plan' });
    const f = await filter('ann', { title: 'Named', context: ['home'], keywords_attributes: [{ keyword: 'secret' }] });
    await call('ann', 'POST', `/api/v2/filters/${f.id}/statuses`, { status_id: p.id });
    let home = await page('ann', '/api/v1/timelines/home');
    const r = home.get(p.id).filtered;
    assert.deepEqual(
      r.map((x: Json) => [x.filter.id, x.status_matches, x.keyword_matches]),
      [[f.id, [p.id], null]],
    );
    assert.deepEqual(
      home.get(boost.id).filtered.map((x: Json) => x.status_matches),
      [[p.id]],
      'a boost is matched by what it boosts',
    );
    assert.deepEqual(home.get(boost.id).reblog.filtered.length, 1);
    assert.deepEqual(home.get(mine.id).filtered, [], 'never one’s own posts');

    // Hide now: both go; then the filter expires: both are back.
    await call('ann', 'PUT', `/api/v2/filters/${f.id}`, { filter_action: 'hide' });
    home = await page('ann', '/api/v1/timelines/home');
    assert.equal(home.has(p.id), false);
    assert.equal(home.has(boost.id), false);
    await s.app.db.exec("UPDATE custom_filters SET expires_at = now() - interval '1 minute' WHERE id = $1", [f.id]);
    await eventually(async () => {
      home = await page('ann', '/api/v1/timelines/home');
      assert.ok(home.has(p.id));
    });
    assert.deepEqual(home.get(p.id).filtered, []);
    // The expired filter is still listed (clients show it as expired).
    assert.equal((await call('ann', 'GET', `/api/v2/filters/${f.id}`)).expires_at !== null, true);
  });

  it('keeps the page’s Link from the statuses read, so hidden ones do not end the walk', async () => {
    await filter('cid', { title: 'All', context: ['home'], filter_action: 'hide', keywords_attributes: [{ keyword: 'zzhidden' }] });
    const older = await post('bob', { status: 'an older visible post' });
    for (let i = 0; i < 3; i++) await post('bob', { status: `zzhidden ${i}` });
    const r = await api(s.url, m.token['cid'], 'GET', '/api/v1/timelines/home?limit=3');
    assert.deepEqual(r.body, []);
    const next = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
    assert.ok(next, 'a next link though the page shows nothing');
    const rest = (await api(s.url, m.token['cid'], 'GET', new URL(next).pathname + new URL(next).search)).body as Json[];
    assert.ok(rest.some((x) => x.id === older.id));
  });

  it('reads a member’s filters once, then from the node’s cache; members without filters cost nothing', async () => {
    await post('bob', { status: 'something for both' });
    const home = '/api/v1/timelines/home';
    /** How many of the request's statements read filters. */
    const reads = async (who: string) => {
      await call(who, 'GET', home);
      return sent.get(`${home} ${m.id[who]}`)!.filter((q) => q.includes('custom_filter')).length;
    };
    assert.equal(await reads('bob'), 0, 'a member who never had filters: none read');
    assert.equal(await reads('bob'), 0);
    await filter('ann', { title: 'Any', context: ['home'], keywords_attributes: [{ keyword: 'something' }] });
    assert.equal(await reads('ann'), 1, 'read once after a change');
    assert.equal(await reads('ann'), 0, 'then from the cache');
    assert.equal(await reads('ann'), 0);
  });
});
