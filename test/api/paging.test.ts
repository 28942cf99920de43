// Link-header paging of every paged list, table-driven. Each list holds five rows of which two in the middle are not
// shown (a status the member can no longer read, a boost of a deleted post, a muted or deleted account): walking it
// with limit=2 must give pages of exactly two until the last, absolute next/prev links with the right cursors, and
// an empty page without Link — never an empty page with a next link, nor a short page while more exist.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** The rel → URL pairs of a Link header. */
function links(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^>]+)>;\s*rel="(\w+)"/g)) out[m[2]!] = m[1]!;
  return out;
}

interface Case {
  readonly name: string;
  readonly who: string | undefined;
  readonly path: string;
  /** Ids of what the walk must yield, newest first. */
  readonly expected: string[];
  /** The limit it is clamped to. */
  readonly max: number;
  /** How prev is keyed: min_id (timelines, favourites, bookmarks) or since_id (account lists keyed by hidden ids). */
  readonly prev: 'min_id' | 'since_id';
  /** The cursors are the items' own ids (else hidden row ids). */
  readonly ownIds: boolean;
  /** What identifies an item (a notification by its status). */
  readonly idOf?: (x: Json) => string;
}

const NAMES = [
  'favourites',
  'bookmarks',
  'favourited_by',
  'reblogged_by',
  'blocks',
  'mutes',
  'list timeline',
  'list accounts',
  'account statuses',
  'notifications',
] as const;

describe('Link-header paging of every list', () => {
  let s: TestServer;
  let m: LocalMembers;
  const cases = new Map<string, Case>();

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? m.token[who] : undefined, method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${who} ${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const post = async (who: string, status: string, visibility = 'public'): Promise<string> =>
    (await ok(who, 'POST', '/api/v1/statuses', { status, visibility })).id;
  const names = (prefix: string) => [1, 2, 3, 4, 5].map((i) => `${prefix}${i}`);
  /** Accounts gone, as a remote actor's Delete leaves them. */
  const deleteAccounts = (who: string[]) => s.app.db.exec('UPDATE accounts SET deleted_at = now() WHERE id = ANY($1::bigint[])', [who.map((n) => m.id[n])]);
  /** Of five things made in order, the ones shown (1, 4, 5: 2 and 3 are hidden), newest first. */
  const shown = (five: string[]) => [five[4]!, five[3]!, five[0]!];
  const add = (c: Case & { name: (typeof NAMES)[number] }) => cases.set(c.name, c);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['au', 'vs', 'vw', 'vk', 'vm', 'vl', 'lm', 'gx', 'vn', 'nu', 'bo', ...names('a'), ...names('c'), ...names('d')]);
    const id = m.id;

    // Favourites and bookmarks: vs favourites and bookmarks five of au's posts, then unfollows: the private two go.
    await ok('vs', 'POST', `/api/v1/accounts/${id['au']}/follow`);
    const statuses = [];
    for (const v of ['public', 'private', 'private', 'public', 'unlisted']) {
      const p = await post('au', `${v} for vs`, v);
      statuses.push(p);
      await ok('vs', 'POST', `/api/v1/statuses/${p}/favourite`);
      await ok('vs', 'POST', `/api/v1/statuses/${p}/bookmark`);
    }
    await ok('vs', 'POST', `/api/v1/accounts/${id['au']}/unfollow`);
    add({ name: 'favourites', who: 'vs', path: '/api/v1/favourites', expected: shown(statuses), max: 40, prev: 'min_id', ownIds: false });
    add({ name: 'bookmarks', who: 'vs', path: '/api/v1/bookmarks', expected: shown(statuses), max: 40, prev: 'min_id', ownIds: false });

    // favourited_by and reblogged_by: a1..a5 favourite and boost one post; vw mutes a2 and a3.
    const liked = await post('au', 'like and boost me');
    for (const a of names('a')) {
      await ok(a, 'POST', `/api/v1/statuses/${liked}/favourite`);
      await ok(a, 'POST', `/api/v1/statuses/${liked}/reblog`);
    }
    for (const a of ['a2', 'a3']) await ok('vw', 'POST', `/api/v1/accounts/${id[a]}/mute`);
    const fans = shown(names('a').map((a) => id[a]!));
    add({ name: 'favourited_by', who: 'vw', path: `/api/v1/statuses/${liked}/favourited_by`, expected: fans, max: 80, prev: 'since_id', ownIds: false });
    add({ name: 'reblogged_by', who: 'vw', path: `/api/v1/statuses/${liked}/reblogged_by`, expected: fans, max: 80, prev: 'since_id', ownIds: false });

    // Blocks and mutes: of c1..c5, c2 and c3 are gone.
    for (const c of names('c')) {
      await ok('vk', 'POST', `/api/v1/accounts/${id[c]}/block`);
      await ok('vm', 'POST', `/api/v1/accounts/${id[c]}/mute`);
    }
    const blocked = shown(names('c').map((c) => id[c]!));
    add({ name: 'blocks', who: 'vk', path: '/api/v1/blocks', expected: blocked, max: 80, prev: 'since_id', ownIds: false });
    add({ name: 'mutes', who: 'vm', path: '/api/v1/mutes', expected: blocked, max: 80, prev: 'since_id', ownIds: false });

    // A list's timeline: lm posts, boosts two of gx's posts, posts twice more; gx deletes the boosted posts.
    // And a list's accounts (paged by account id): d1..d5, of which d2 and d3 are gone.
    await ok('vl', 'POST', `/api/v1/accounts/${id['lm']}/follow`);
    const list = (await ok('vl', 'POST', '/api/v1/lists', { title: 'paging' })).id;
    await ok('vl', 'POST', `/api/v1/lists/${list}/accounts`, { account_ids: [id['lm']] });
    const gone = [await post('gx', 'boosted, then deleted'), await post('gx', 'boosted, then deleted too')];
    const timeline = [await post('lm', 'one')];
    for (const g of gone) timeline.push((await ok('lm', 'POST', `/api/v1/statuses/${g}/reblog`)).id);
    timeline.push(await post('lm', 'four'), await post('lm', 'five'));
    const people = (await ok('vl', 'POST', '/api/v1/lists', { title: 'people' })).id;
    for (const d of names('d')) await ok('vl', 'POST', `/api/v1/accounts/${id[d]}/follow`);
    await ok('vl', 'POST', `/api/v1/lists/${people}/accounts`, { account_ids: names('d').map((d) => id[d]) });
    add({ name: 'list timeline', who: 'vl', path: `/api/v1/timelines/list/${list}`, expected: shown(timeline), max: 40, prev: 'min_id', ownIds: true });
    add({
      name: 'list accounts',
      who: 'vl',
      path: `/api/v1/lists/${people}/accounts`,
      expected: shown(names('d').map((d) => id[d]!)),
      max: 80,
      prev: 'since_id',
      ownIds: true,
    });

    // An account's statuses: bo boosts two of gx's posts between posts of its own.
    const boTimeline = [await post('bo', 'one')];
    const gone2 = [await post('gx', 'boosted by bo, then deleted'), await post('gx', 'boosted by bo, then deleted too')];
    for (const g of gone2) boTimeline.push((await ok('bo', 'POST', `/api/v1/statuses/${g}/reblog`)).id);
    boTimeline.push(await post('bo', 'four'), await post('bo', 'five'));
    add({
      name: 'account statuses',
      who: undefined,
      path: `/api/v1/accounts/${id['bo']}/statuses`,
      expected: shown(boTimeline),
      max: 40,
      prev: 'min_id',
      ownIds: true,
    });
    for (const g of [...gone, ...gone2]) await ok('gx', 'DELETE', `/api/v1/statuses/${g}`);

    // Notifications: vn is told of each of nu's posts, then unfollows: those about the private two go.
    await ok('vn', 'POST', `/api/v1/accounts/${id['nu']}/follow`, { notify: true });
    const told = [];
    for (const v of ['public', 'private', 'private', 'public', 'unlisted']) told.push(await post('nu', `${v} for vn`, v));
    await ok('vn', 'POST', `/api/v1/accounts/${id['nu']}/unfollow`);
    add({
      name: 'notifications',
      who: 'vn',
      path: '/api/v1/notifications',
      expected: shown(told),
      max: 80,
      prev: 'min_id',
      ownIds: false,
      idOf: (n) => n.status.id,
    });

    await deleteAccounts(['c2', 'c3', 'd2', 'd3']);
  });
  after(() => s?.stop());

  for (const name of NAMES) {
    it(`${name}: pages of exactly the limit, absolute next and prev links, to an empty page without Link`, async () => {
      const c = cases.get(name)!;
      const base = `${s.url}${c.path}?`;
      const seen: string[] = [];
      const sizes: number[] = [];
      let url = `${c.path}?limit=2`;
      for (let pages = 0; ; pages++) {
        assert.ok(pages < 5, `${c.name}: paging ends`);
        const r = await call(c.who, 'GET', url);
        assert.equal(r.status, 200, `${c.name}: ${JSON.stringify(r.body)}`);
        sizes.push(r.body.length);
        if (r.body.length === 0) {
          assert.equal(r.link, null, `${c.name}: an empty page carries no Link`);
          break;
        }
        const items: Json[] = r.body;
        seen.push(...items.map(c.idOf ?? ((x) => x.id)));
        const l = links(r.link);
        for (const rel of ['next', 'prev']) assert.ok(l[rel]?.startsWith(base), `${c.name}: absolute ${rel} in ${r.link}`);
        const next = new URL(l['next']!);
        const prev = new URL(l['prev']!);
        assert.equal(next.searchParams.get('limit'), '2', c.name);
        assert.equal(prev.searchParams.get('limit'), '2', c.name);
        assert.match(next.searchParams.get('max_id') ?? '', /^\d+$/, `${c.name} next`);
        assert.match(prev.searchParams.get(c.prev) ?? '', /^\d+$/, `${c.name} prev by ${c.prev}`);
        if (c.ownIds) {
          assert.equal(next.searchParams.get('max_id'), items[items.length - 1].id, `${c.name}: next after the last item`);
          assert.equal(prev.searchParams.get(c.prev), items[0].id, `${c.name}: prev before the first`);
        }
        if (pages === 1) {
          // Back from the second page comes the first.
          const back = await call(c.who, 'GET', prev.pathname + prev.search);
          assert.deepEqual(back.body.map(c.idOf ?? ((x: Json) => x.id)), seen.slice(0, 2), `${c.name}: prev of page 2`);
        }
        url = next.pathname + next.search;
      }
      assert.deepEqual(seen, c.expected, `${c.name}: every shown item once, newest first`);
      assert.deepEqual(sizes, [2, 1, 0], `${c.name}: full pages, then the rest, then empty`);
    });

    it(`${name}: limit clamped and checked; no Link for an empty page`, async () => {
      const c = cases.get(name)!;
      const big = await call(c.who, 'GET', `${c.path}?limit=1000`);
      assert.equal(big.status, 200, c.name);
      assert.equal(big.body.length, c.expected.length, c.name);
      assert.equal(new URL(links(big.link)['next']!).searchParams.get('limit'), String(c.max), `${c.name}: limit clamped to ${c.max}`);
      const one = await call(c.who, 'GET', `${c.path}?limit=0`);
      if (c.name === 'list accounts') {
        // Mastodon: limit=0 is every member, without Link.
        assert.deepEqual([one.body.map((a: Json) => a.id), one.link], [c.expected, null], c.name);
      } else {
        assert.equal(one.body.length, 1, `${c.name}: limit=0 is taken as 1`);
      }
      for (const bad of ['-1', 'abc']) {
        const r = await call(c.who, 'GET', `${c.path}?limit=${bad}`);
        assert.equal(r.status, 400, `${c.name} limit=${bad}`);
        assert.equal(typeof r.body.error, 'string');
      }
      const empty = await call(c.who, 'GET', `${c.path}?max_id=1`);
      assert.deepEqual([empty.status, empty.body, empty.link], [200, [], null], `${c.name}: empty page`);
      const newer = await call(c.who, 'GET', `${c.path}?min_id=${'9'.repeat(18)}`);
      assert.deepEqual([newer.body, newer.link], [[], null], `${c.name}: nothing newer`);
    });
  }
});
