// The visibility matrix (test/support/visibility-matrix.ts) through every other endpoint that reads statuses:
// favourites and bookmarks, notifications, search, favourited_by / reblogged_by, polls, reactions, quotes, history
// and source, list timelines and pinned statuses. Before amy blocks her, fay favourites, bookmarks, reacts to and
// boosts all four of amy's statuses and lists amy: the block must then hide all of it from her. eve loses a
// private status by unfollowing, after favouriting, bookmarking and being told of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StatusStore } from '../../src/store/statuses.js';
import { KINDS, kindsIn, MAY_SEE, MEMBERS, startMatrix, VIEWERS, type Json, type Kind, type Matrix, type Viewer } from '../support/visibility-matrix.js';

const THUMBS = encodeURIComponent('👍');
/** What each member could read while setting up, before fay was blocked. */
const SAW: Record<(typeof MEMBERS)[number], readonly Kind[]> = { ...MAY_SEE, fay: KINDS };
const BOOSTERS = ['bob', 'cal', 'dee', 'fay'] as const;

describe('statuses API: the visibility matrix on every other read', () => {
  let m: Matrix;
  const lists: Record<string, string> = {};
  /** gil's public quotes of each of amy's statuses. */
  const quote = {} as Record<Kind, string>;

  before(async () => {
    m = await startMatrix({
      beforeBlock: async (x) => {
        for (const v of MEMBERS) {
          for (const k of SAW[v]) {
            for (const action of ['favourite', 'bookmark'])
              assert.equal((await x.call(v, 'POST', `/api/v1/statuses/${x.post[k]}/${action}`)).status, 200, `${v} ${action} ${k}`);
            assert.equal((await x.call(v, 'PUT', `/api/v1/pleroma/statuses/${x.post[k]}/reactions/${THUMBS}`)).status, 200, `${v} reacts to ${k}`);
          }
        }
        for (const v of BOOSTERS)
          for (const k of ['public', 'unlisted'] as const) assert.equal((await x.call(v, 'POST', `/api/v1/statuses/${x.post[k]}/reblog`)).status, 200);
        for (const v of ['bob', 'fay'] as const) {
          lists[v] = (await x.call(v, 'POST', '/api/v1/lists', { title: `${v}'s`, replies_policy: 'followed' })).body.id;
          assert.deepEqual((await x.call(v, 'POST', `/api/v1/lists/${lists[v]}/accounts`, { account_ids: [x.id['amy']] })).body, {});
        }
      },
    });
    for (const k of ['public', 'unlisted'] as const) quote[k] = (await m.postAs('gil', { status: `quoting ${k}`, quoted_status_id: m.post[k] })).id;
    // Followers-only and direct posts cannot be quoted here, but a remote server's quote of one can arrive: stored as such.
    const statuses = new StatusStore(m.server.app.db);
    for (const k of ['private', 'direct'] as const) {
      quote[k] = (
        await statuses.create({
          accountId: m.id['gil']!,
          uri: null,
          url: null,
          text: `quoting ${k}`,
          content: `<p>quoting ${k}</p>`,
          spoilerText: '',
          visibility: 'public',
          sensitive: false,
          language: null,
          inReplyToId: null,
          inReplyToAccountId: null,
          inReplyToUri: null,
          local: true,
          mentionIds: [],
          tags: [],
          quoteOfId: m.post[k],
        })
      ).status.id;
    }
    for (const k of ['public', 'unlisted', 'private'] as const)
      assert.equal((await m.call('amy', 'POST', `/api/v1/statuses/${m.post[k]}/pin`)).status, 200, `pin ${k}`);
  });
  after(() => m?.stop());

  it('lists in favourites and bookmarks only what the member may still read; nothing, and no Link, for fay', async () => {
    for (const v of MEMBERS) {
      for (const path of ['/api/v1/favourites?limit=40', '/api/v1/bookmarks?limit=40']) {
        const r = await m.call(v, 'GET', path);
        assert.deepEqual(kindsIn(r.body, m.post), MAY_SEE[v], `${v} ${path}`);
        assert.equal(r.body.length, MAY_SEE[v].length, `${v} ${path}: nothing else`);
        assert.equal(r.link === null, MAY_SEE[v].length === 0, `${v} ${path}: a Link only on a page with items`);
      }
    }
    for (const v of ['anonymous', 'app'] as const) assert.notEqual((await m.call(v, 'GET', '/api/v1/favourites')).status, 200, v);
  });

  it('shows each member notifications only about statuses they may read', async () => {
    const about = async (v: Viewer, types: string) => (await m.list(v, `/api/v1/notifications?limit=80&${types}`)).map((n: Json) => n.status);
    // bob follows amy with notify: status notifications; cal is mentioned in the direct ones; fay was, then blocked.
    const told: Record<(typeof MEMBERS)[number], readonly Kind[]> = { amy: [], bob: ['public', 'unlisted', 'private'], cal: ['direct'], dee: [], fay: [] };
    for (const v of MEMBERS) {
      const statuses = await about(v, 'types[]=status&types[]=mention');
      assert.deepEqual(kindsIn(statuses, m.post), told[v], v);
      assert.deepEqual(kindsIn(statuses, m.reply), told[v], `${v} replies`);
      assert.deepEqual(kindsIn(statuses, m.pollStatus), told[v], `${v} polls`);
    }
    // amy is told of favourites on all four, from each member who could read them; nothing from fay.
    const favs = (await m.list('amy', '/api/v1/notifications?limit=80&types[]=favourite')).map(
      (n: Json) => `${n.account.acct} ${KINDS.find((k) => m.post[k] === n.status.id)}`,
    );
    const expected = (['bob', 'cal', 'dee'] as const).flatMap((v) => MAY_SEE[v].map((k) => `${v} ${k}`));
    assert.deepEqual(favs.sort(), expected.sort());
  });

  it('finds in search only what the member may read, by words and by URL; no statuses without a member', async () => {
    for (const v of VIEWERS) {
      const r = await m.call(v, 'GET', '/api/v2/search?q=matrixpost&type=statuses');
      assert.equal(r.status, 200, v);
      const expected = v === 'anonymous' || v === 'app' ? [] : MAY_SEE[v];
      assert.deepEqual(kindsIn(r.body.statuses, m.post), expected, v);
      assert.equal(r.body.statuses.length, expected.length, v);
    }
    for (const k of KINDS) {
      const url = (await m.call('amy', 'GET', `/api/v1/statuses/${m.post[k]}`)).body.url;
      for (const v of MEMBERS) {
        const found = (await m.call(v, 'GET', `/api/v2/search?q=${encodeURIComponent(url)}&type=statuses`)).body.statuses.map((x: Json) => x.id);
        assert.deepEqual(found, MAY_SEE[v].includes(k) ? [m.post[k]] : [], `${v} ${k} by URL`);
      }
    }
  });

  it('answers favourited_by and reblogged_by only to those who may see the status, without accounts the viewer blocks', async () => {
    for (const v of VIEWERS) {
      for (const k of KINDS) {
        const fav = await m.call(v, 'GET', `/api/v1/statuses/${m.post[k]}/favourited_by`);
        const boosts = await m.call(v, 'GET', `/api/v1/statuses/${m.post[k]}/reblogged_by`);
        if (!MAY_SEE[v].includes(k)) {
          assert.deepEqual([fav.status, boosts.status], [404, 404], `${v} ${k}`);
          continue;
        }
        // amy blocked fay: as Mastodon, accounts the viewer blocks or mutes are left out of these lists.
        const hidden = (w: string) => v === 'amy' && w === 'fay';
        const favouriters = MEMBERS.filter((w) => SAW[w].includes(k) && !hidden(w));
        assert.deepEqual(fav.body.map((a: Json) => a.username).sort(), [...favouriters].sort(), `${v} ${k} favourited_by`);
        const boosters = k === 'public' || k === 'unlisted' ? BOOSTERS.filter((w) => !hidden(w)) : [];
        assert.deepEqual(boosts.body.map((a: Json) => a.username).sort(), [...boosters].sort(), `${v} ${k} reblogged_by`);
      }
    }
  });

  it('shows a poll, its reactions and its history only to those who may see the status', async () => {
    for (const v of VIEWERS) {
      for (const k of KINDS) {
        const may = MAY_SEE[v].includes(k);
        const poll = await m.call(v, 'GET', `/api/v1/polls/${m.poll[k]}`);
        assert.equal(poll.status, may ? 200 : 404, `${v} poll ${k}`);
        if (may) assert.deepEqual([poll.body.id, poll.body.options.map((o: Json) => o.title)], [m.poll[k], ['yes', 'no']]);
        const reactions = await m.call(v, 'GET', `/api/v1/pleroma/statuses/${m.post[k]}/reactions`);
        assert.equal(reactions.status, may ? 200 : 404, `${v} reactions ${k}`);
        // Counted as the viewer may see them: amy blocks fay, so fay's reaction is not shown to amy.
        const counted = MEMBERS.filter((w) => SAW[w].includes(k) && !(v === 'amy' && w === 'fay')).length;
        if (may)
          assert.deepEqual(
            reactions.body.map((r: Json) => [r.name, r.count]),
            [['👍', counted]],
            `${v} reactions ${k}`,
          );
        const history = await m.call(v, 'GET', `/api/v1/statuses/${m.post[k]}/history`);
        assert.equal(history.status, may ? 200 : 404, `${v} history ${k}`);
        if (may) assert.match(history.body[0].content, new RegExp(`${k} matrixpost`));
      }
    }
  });

  it('gives the source only to the author', async () => {
    for (const k of KINDS) {
      const own = await m.call('amy', 'GET', `/api/v1/statuses/${m.post[k]}/source`);
      assert.equal(own.status, 200);
      assert.equal(own.body.id, m.post[k]);
      assert.match(own.body.text, new RegExp(`^${k} matrixpost #matrix`));
      for (const v of ['bob', 'cal', 'dee', 'fay'] as const)
        assert.equal((await m.call(v, 'GET', `/api/v1/statuses/${m.post[k]}/source`)).status, 404, `${v} ${k}`);
      assert.equal((await m.call('anonymous', 'GET', `/api/v1/statuses/${m.post[k]}/source`)).status, 401);
      assert.equal((await m.call('app', 'GET', `/api/v1/statuses/${m.post[k]}/source`)).status, 422);
    }
  });

  it('embeds a quoted status only for viewers who may see it, and says unauthorized to the rest', async () => {
    for (const v of VIEWERS) {
      for (const k of KINDS) {
        const r = await m.call(v, 'GET', `/api/v1/statuses/${quote[k]}`);
        assert.equal(r.status, 200, `${v}: gil's quote is public`);
        const may = MAY_SEE[v].includes(k);
        assert.deepEqual([r.body.quote.state, r.body.quote.quoted_status?.id ?? null], may ? ['accepted', m.post[k]] : ['unauthorized', null], `${v} ${k}`);
      }
      const onTimeline = (await m.list(v, `/api/v1/accounts/${m.id['gil']}/statuses`)).filter((x: Json) => x.quote?.quoted_status);
      assert.deepEqual(
        kindsIn(onTimeline, m.post, (x) => x.quote.quoted_status.id),
        MAY_SEE[v],
        `${v} on gil's timeline`,
      );
    }
  });

  it("shows on a list's timeline what the owner may see of its members, never direct posts; fay's list lost amy", async () => {
    const toBob = (await m.postAs('amy', { status: '@bob only you', visibility: 'direct' })).id;
    const bobList = await m.list('bob', `/api/v1/timelines/list/${lists['bob']}?limit=40`);
    assert.deepEqual(kindsIn(bobList, m.post), ['public', 'unlisted', 'private']);
    assert.deepEqual(kindsIn(bobList, m.reply), ['public', 'unlisted', 'private']);
    assert.ok(!bobList.some((x: Json) => x.id === toBob), 'a direct post is not on lists (as Mastodon)');
    assert.ok((await m.list('bob', '/api/v1/timelines/home')).some((x: Json) => x.id === toBob));
    const fay = await m.call('fay', 'GET', `/api/v1/timelines/list/${lists['fay']}`);
    assert.deepEqual([fay.status, fay.body, fay.link], [200, [], null]);
    assert.deepEqual(await m.list('fay', `/api/v1/lists/${lists['fay']}/accounts`), []);
  });

  it("shows on amy's pinned statuses only those the viewer may see", async () => {
    for (const v of VIEWERS) {
      const pinned = await m.list(v, `/api/v1/accounts/${m.id['amy']}/statuses?pinned=true`);
      assert.deepEqual(
        kindsIn(pinned, m.post),
        MAY_SEE[v].filter((k) => k !== 'direct'),
        v,
      );
      assert.ok(
        pinned.every((x: Json) => x.pinned === (v === 'amy' ? true : undefined)),
        `${v}: pinned is shown to the author only`,
      );
    }
  });

  it("takes a private status out of eve's favourites, bookmarks, notifications, list and search when she unfollows", async () => {
    const amy = m.id['amy'];
    assert.equal((await m.call('eve', 'POST', `/api/v1/accounts/${amy}/follow`, { notify: true })).body.notifying, true);
    const list = (await m.call('eve', 'POST', '/api/v1/lists', { title: 'amy' })).body.id;
    await m.call('eve', 'POST', `/api/v1/lists/${list}/accounts`, { account_ids: [amy] });
    const secret = (await m.postAs('amy', { status: 'followers only evesecret', visibility: 'private' })).id;
    for (const action of ['favourite', 'bookmark']) assert.equal((await m.call('eve', 'POST', `/api/v1/statuses/${secret}/${action}`)).status, 200);
    const reads = {
      favourites: async () => (await m.list('eve', '/api/v1/favourites')).map((x: Json) => x.id),
      bookmarks: async () => (await m.list('eve', '/api/v1/bookmarks')).map((x: Json) => x.id),
      notifications: async () => (await m.list('eve', '/api/v1/notifications?types[]=status')).map((n: Json) => n.status.id),
      list: async () => (await m.list('eve', `/api/v1/timelines/list/${list}`)).map((x: Json) => x.id),
      search: async () => (await m.call('eve', 'GET', '/api/v2/search?q=evesecret&type=statuses')).body.statuses.map((x: Json) => x.id),
    };
    for (const [name, read] of Object.entries(reads)) assert.ok((await read()).includes(secret), `${name} while following`);
    assert.equal((await m.call('eve', 'POST', `/api/v1/accounts/${amy}/unfollow`)).status, 200);
    for (const [name, read] of Object.entries(reads)) assert.ok(!(await read()).includes(secret), `${name} after unfollowing`);
    assert.deepEqual([await reads.favourites(), await reads.bookmarks()], [[], []], 'eve favourited and bookmarked nothing else');
    for (const path of ['/api/v1/favourites', '/api/v1/bookmarks', '/api/v1/notifications?types[]=status']) {
      assert.equal((await m.call('eve', 'GET', path)).link, null, `${path}: an empty page carries no Link`);
    }
    for (const path of [`/api/v1/statuses/${secret}`, `/api/v1/statuses/${secret}/favourited_by`, `/api/v1/statuses/${secret}/history`]) {
      assert.equal((await m.call('eve', 'GET', path)).status, 404, path);
    }
  });
});
