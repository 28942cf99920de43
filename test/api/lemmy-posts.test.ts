// /api/v3 posts driven by lemmy-js-client 0.19.9 against a real server: every post/list sort against an order
// computed here (Hot and Active by Lemmy's formula), paging by page and by cursor, the listing types, the house's
// visibility rules (blocks, mutes, domain blocks, suspension, deletion, remote history), GET post with its community,
// moderators and cross posts, a member's writes (through a test double of the community service: another part's
// work), Lemmy's error codes, batched rendering, and a property over random query strings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { LemmyHttp, type PostView, type SortType } from 'lemmy-js-client';
import { DomainBlockStore } from '../../src/store/domain-blocks.js';
import { LinkPageStore } from '../../src/store/link-pages.js';
import { LinkRowStore } from '../../src/store/link-rows.js';
import { LocalUris } from '../../src/urls/local-uris.js';
import { PostViews } from '../../src/views/lemmy/post-views.js';
import { CommunityActionsDouble } from '../support/community-actions-double.js';
import { seeded } from '../support/feed-fixtures.js';
import { HOUR, lemmySeed } from '../support/lemmy-seed.js';
import { assertLemmyShape } from '../support/lemmy-shapes.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let m: LocalMembers;
let seed: ReturnType<typeof lemmySeed>;
const double = new CommunityActionsDouble();

const client = (token?: string): LemmyHttp => {
  const c = new LemmyHttp(s.url, { fetchFunction: fetch });
  if (token) c.setHeaders({ Authorization: `Bearer ${token}` });
  return c;
};
const raw = async (method: string, path: string, body?: unknown, token?: string) => {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers['authorization'] = `Bearer ${token}`;
  const r = await fetch(`${s.url}/api/v3/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};
const ids = (posts: readonly PostView[]) => posts.map((p) => p.post.id);

/** Lemmy 0.19's hot rank: log10(max(2, score + 2)) / (hours + 2)^1.8 within a week, else 0. */
const hotRank = (score: number, hours: number) => (hours > 0 && hours < 168 ? Math.log10(Math.max(2, score + 2)) / (hours + 2) ** 1.8 : 0);

/** What the test knows of each post it seeded, to order them itself. */
interface Known {
  id: number;
  published: number;
  score: number;
  comments: number;
  newest: number;
  /** Lemmy's newest_comment_time_necro: the newest comment by someone else within two days of the post. */
  necro: number;
}

before(async () => {
  s = await startTestServer({}, undefined, { communityActions: double });
  double.attach(s.app.db);
  seed = lemmySeed(s.app.db);
  m = await createMembers(s, ['alice', 'bob', 'carol'], { carol: 'admin' });
});
after(() => s.stop());

describe('post/list sorts', () => {
  let community: number;
  const known: Known[] = [];

  before(async () => {
    community = (await seed.community('sorts')).id;
    const { rnd } = seeded(37);
    const now = Date.now();
    // Ages from an hour to past a year, so each Top window holds a different set; none near a window's edge.
    const ages = [1.5, 3, 5, 8, 13, 20, 30, 50, 80, 120, 170, 400, 800, 2000, 6000, 9000];
    for (const age of ages) {
      const author = await seed.author(`sorter${age}`);
      const published = now - age * HOUR;
      const score = Math.floor(rnd() * 16) - 3;
      const p = await seed.post(author, community, { at: new Date(published), score });
      const n = Math.floor(rnd() * 4);
      let newest = published;
      let necro = published;
      for (let i = 0; i < n; i++) {
        const at = published + (age * HOUR * (i + 1)) / (n + 1.5);
        // Every other comment is the author's own, which Lemmy's Active does not count.
        const own = i % 2 === 1;
        await seed.comment(own ? author : await seed.author(`commenter${age}-${i}`), p, null, new Date(at));
        newest = Math.max(newest, at);
        if (!own && at - published < 48 * HOUR) necro = Math.max(necro, at);
      }
      known.push({ id: p.id, published, score, comments: n, newest, necro });
    }
    // Every rank computed at one moment (Lemmy's periodic refresh), as the formula below is.
    await seed.links.refreshRanks();
  });

  const byKeys =
    (...keys: ((k: Known) => number)[]) =>
    (a: Known, b: Known) => {
      for (const key of keys) if (key(a) !== key(b)) return key(b) - key(a);
      return b.id - a.id;
    };
  const expected = (sort: SortType): number[] => {
    const now = Date.now();
    const hours = (t: number) => (now - t) / HOUR;
    const within = (h: number) => known.filter((k) => hours(k.published) < h);
    const top = (ks: Known[]) =>
      ks.sort(
        byKeys(
          (k) => k.score,
          (k) => k.published,
        ),
      );
    const order: Record<string, () => Known[]> = {
      New: () => [...known].sort(byKeys((k) => k.published)),
      Old: () => [...known].sort(byKeys((k) => k.published)).reverse(),
      Hot: () =>
        [...known].sort(
          byKeys(
            (k) => hotRank(k.score, hours(k.published)),
            (k) => k.published,
          ),
        ),
      Active: () =>
        [...known].sort(
          byKeys(
            (k) => hotRank(k.score, hours(k.necro)),
            (k) => k.published,
          ),
        ),
      TopDay: () => top(within(24)),
      TopWeek: () => top(within(168)),
      TopMonth: () => top(within(28 * 24)),
      TopYear: () => top(within(365 * 24)),
      TopAll: () => top([...known]),
      MostComments: () =>
        [...known].sort(
          byKeys(
            (k) => k.comments,
            (k) => k.published,
          ),
        ),
      NewComments: () => [...known].sort(byKeys((k) => k.newest)),
    };
    return order[sort]!().map((k) => k.id);
  };

  for (const sort of ['New', 'Old', 'Hot', 'Active', 'TopDay', 'TopWeek', 'TopMonth', 'TopYear', 'TopAll', 'MostComments', 'NewComments'] as const) {
    it(`${sort}: the order computed here`, async () => {
      const got = await client().getPosts({ community_id: community, sort, limit: 50 });
      const want = expected(sort);
      assert.ok(want.length >= 3, `${sort} covers ${want.length} posts`);
      assert.deepEqual(ids(got.posts), want);
    });
  }

  it('the Top windows each hold their own set of posts', async () => {
    const sizes = await Promise.all(
      (['TopDay', 'TopWeek', 'TopMonth', 'TopYear', 'TopAll'] as const).map(
        async (sort) => (await client().getPosts({ community_id: community, sort, limit: 50 })).posts.length,
      ),
    );
    assert.deepEqual(sizes, [6, 10, 12, 15, 16]);
  });

  it('counts are the votes and comments seeded', async () => {
    const got = await client().getPosts({ community_id: community, sort: 'New', limit: 50 });
    assertLemmyShape('GetPostsResponse', got);
    assertLemmyShape('GetPostsResponse', await client(m.token['alice']).getPosts({ community_id: community, sort: 'Hot', limit: 3 }));
    for (const v of got.posts) {
      const k = known.find((x) => x.id === v.post.id)!;
      assert.equal(v.counts.score, k.score);
      assert.equal(v.counts.upvotes - v.counts.downvotes, k.score);
      assert.equal(v.counts.comments, k.comments);
      assert.equal(v.counts.post_id, v.post.id);
      assert.equal(Date.parse(v.post.published), k.published);
      assert.match(v.post.published, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    }
  });

  it('paging by page: the pages together are the whole listing, without repeats or gaps', async () => {
    for (const sort of ['New', 'Hot', 'TopAll'] as const) {
      const whole = ids((await client().getPosts({ community_id: community, sort, limit: 50 })).posts);
      const pages: number[] = [];
      for (let page = 1; page <= 7; page++) pages.push(...ids((await client().getPosts({ community_id: community, sort, limit: 3, page })).posts));
      assert.deepEqual(pages, whole, sort);
    }
  });

  it('paging by cursor: next_page walks the listing once, and posts arriving meanwhile shift nothing', async () => {
    let late: number | undefined;
    for (const sort of ['New', 'Old', 'Hot', 'Active', 'MostComments', 'NewComments', 'TopAll'] as const) {
      const whole = ids((await client().getPosts({ community_id: community, sort, limit: 50 })).posts);
      const walked: number[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const got = await client().getPosts({ community_id: community, sort, limit: 4, ...(cursor ? { page_cursor: cursor } : {}) });
        walked.push(...ids(got.posts));
        cursor = got.next_page;
        pages++;
        if (pages === 1 && sort === 'New') {
          // A new post at the top after the first page: the walk goes on where it was.
          late = (await seed.post(await seed.author('late'), community, { at: new Date() })).id;
        }
      } while (cursor && pages < 10);
      assert.deepEqual(walked, whole, sort);
      assert.equal(new Set(walked).size, walked.length);
    }
    assert.ok(late !== undefined);
    // The other tests of this community count its posts: the late one goes again.
    await s.app.db.exec('DELETE FROM lemmy_posts WHERE id = $1', [late]);
  });

  it('a cursor whose keys do not cast is a 400, never a 422 (property)', async () => {
    const sorts = ['Hot', 'Active', 'New', 'Old', 'TopDay', 'TopAll', 'Scaled', 'Controversial', 'MostComments', 'NewComments'] as const;
    // Real cursors, one per sort: each property run spoils one of its keys.
    const real: Record<string, string[]> = {};
    for (const sort of sorts) {
      const next = (await client().getPosts({ sort, limit: 1 })).next_page;
      if (next) real[sort] = JSON.parse(Buffer.from(next, 'base64url').toString('utf8'));
    }
    assert.ok(Object.keys(real).length >= 5, JSON.stringify(real));
    const bad = fc.oneof(
      fc.constantFrom('1e999', '-1e999', '2026-02-30 00:00:00+00', '0000-01-01 00:00:00+00', '2026-13-01 00:00:00+00'),
      fc.constantFrom('2026-01-01 25:00:00+00', '2026-01-01 00:00:00+16', '2026-01-01 00:61:00+00', '99999999999999999999', '1e308'),
      fc.string({ maxLength: 30 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(real)), fc.nat(), bad, async (sort, at, key) => {
        const keys = [...real[sort]!];
        keys[1 + (at % (keys.length - 1))] = key;
        const cursor = Buffer.from(JSON.stringify(keys)).toString('base64url');
        const r = await raw('GET', `post/list?sort=${sort}&page_cursor=${cursor}`);
        assert.ok(r.status === 200 || r.status === 400, `${JSON.stringify(keys)}: ${r.status} ${JSON.stringify(r.body)}`);
      }),
      { seed: 37, numRuns: 150 },
    );
  });

  it('a cursor is bound to its sort; a forged one is a 400', async () => {
    const first = await client().getPosts({ community_id: community, sort: 'New', limit: 2 });
    assert.ok(first.next_page);
    const other = await raw('GET', `post/list?community_id=${community}&sort=Hot&page_cursor=${first.next_page}`);
    assert.deepEqual(other, { status: 400, body: { error: 'invalid_query' } });
    const forged = Buffer.from(JSON.stringify(['New', 'yesterday', '1'])).toString('base64url');
    assert.deepEqual(await raw('GET', `post/list?sort=New&page_cursor=${forged}`), { status: 400, body: { error: 'invalid_query' } });
    assert.deepEqual(await raw('GET', 'post/list?page_cursor=%%%'), { status: 400, body: { error: 'invalid_query' } });
  });

  it('an unknown sort or listing type is a 400, as Lemmy refuses them', async () => {
    assert.deepEqual(await raw('GET', 'post/list?sort=Newest'), { status: 400, body: { error: 'invalid_query' } });
    assert.deepEqual(await raw('GET', 'post/list?type_=Everything'), { status: 400, body: { error: 'invalid_query' } });
    assert.deepEqual(await raw('GET', 'post/list?limit=51'), { status: 400, body: { error: 'invalid_query' } });
    assert.deepEqual(await raw('GET', 'post/list?community_name=a%00b'), { status: 400, body: { error: 'invalid_query' } });
    assert.equal((await client().getPosts({ community_id: community })).posts.length, 10, "Lemmy's default limit");
  });

  it('community_name names the community as name@host or name', async () => {
    const byId = ids((await client().getPosts({ community_id: community, sort: 'New' })).posts);
    assert.deepEqual(ids((await client().getPosts({ community_name: 'sorts@lemmy.test', sort: 'New' })).posts), byId);
    assert.deepEqual(ids((await client().getPosts({ community_name: 'SORTS', sort: 'New' })).posts), byId);
    await assert.rejects(client().getPosts({ community_name: 'sorts@elsewhere.test' }), { message: 'couldnt_find_community' });
    assert.deepEqual(await raw('GET', 'post/list?community_id=999999'), { status: 404, body: { error: 'couldnt_find_community' } });
  });

  it('renders every post of a page in a fixed number of statements, however many (no N+1)', async () => {
    const views = new PostViews(new LinkRowStore(s.app.db), { config: s.app.config, uris: new LocalUris(s.app.config) });
    const pages = new LinkPageStore(s.app.db);
    const all = known.map((k) => k.id);
    await views.render(all, m.id['alice']!); // people and instances made once
    const few = await s.app.db.tally(() => views.render(all.slice(0, 2), m.id['alice']!));
    const many = await s.app.db.tally(() => views.render(all, m.id['alice']!));
    assert.equal(many.value.length, all.length);
    assert.equal(many.queries, few.queries);
    assert.ok(many.queries <= 3, `${many.queries} statements`);
    const page = await s.app.db.tally(() =>
      pages.posts({
        viewer: m.id['alice']!,
        listing: 'All',
        communityId: null,
        sort: 'Hot',
        savedOnly: false,
        likedOnly: false,
        dislikedOnly: false,
        showNsfw: false,
        limit: 20,
        offset: 0,
        after: null,
      }),
    );
    assert.equal(page.queries, 1);
  });
});

describe('post/list listings and visibility', () => {
  let shown: number;
  let hidden: Record<string, number>;
  let followed: number;
  let other: number;

  before(async () => {
    const c = await seed.community('visible', 'lemmy.test');
    const at = new Date(Date.now() - 2 * HOUR);
    const normal = await seed.author('normal');
    shown = (await seed.post(normal, c.id, { at })).id;
    const blocked = await seed.author('blockedone');
    const muted = await seed.author('mutedone');
    const elsewhere = await seed.author('someone', 'blocked.test');
    const suspended = await seed.author('suspendedone');
    await s.app.db.exec('UPDATE accounts SET suspended_at = now() WHERE id = $1', [suspended]);
    hidden = {
      blocked: (await seed.post(blocked, c.id, { at })).id,
      muted: (await seed.post(muted, c.id, { at })).id,
      domain: (await seed.post(elsewhere, c.id, { at })).id,
      suspended: (await seed.post(suspended, c.id, { at })).id,
      history: (await seed.post(normal, c.id, { at, history: true })).id,
      deleted: (await seed.post(normal, c.id, { at })).id,
      private: (await seed.post(normal, c.id, { at, visibility: 2 })).id,
      nsfw: (await seed.post(normal, c.id, { at, nsfw: true })).id,
    };
    await s.app.db.exec('UPDATE statuses SET deleted_at = now() WHERE id = (SELECT status_id FROM lemmy_posts WHERE id = $1)', [hidden['deleted']]);
    const alice = m.id['alice']!;
    await s.app.db.exec('INSERT INTO blocks (account_id, target_account_id) VALUES ($1, $2)', [alice, blocked]);
    await s.app.db.exec('INSERT INTO mutes (account_id, target_account_id) VALUES ($1, $2)', [alice, muted]);
    await s.app.db.exec(`INSERT INTO account_domain_blocks (account_id, domain) VALUES ($1, 'blocked.test')`, [alice]);

    const f = await seed.community('followed', 'other.test');
    followed = (await seed.post(normal, f.id, { at })).id;
    const o = await seed.community('unfollowed', 'other.test');
    other = (await seed.post(normal, o.id, { at })).id;
    await s.app.db.exec('INSERT INTO follows (account_id, target_account_id) VALUES ($1, $2)', [alice, f.accountId]);
  });

  const listed = async (token: string | undefined, extra: Record<string, unknown> = {}) =>
    ids((await client(token).getPosts({ community_name: 'visible@lemmy.test', sort: 'New', limit: 50, ...extra })).posts);

  it('hides what the member blocked, muted and domain-blocked; and from everyone: suspended, deleted, private, remote history', async () => {
    assert.deepEqual(await listed(m.token['alice']), [shown]);
    // Someone else sees what alice silenced (the rules are hers), never the rest.
    const forBob = await listed(m.token['bob']);
    assert.deepEqual(new Set(forBob), new Set([shown, hidden['blocked'], hidden['muted'], hidden['domain']]));
    assert.deepEqual(new Set(await listed(undefined)), new Set(forBob));
  });

  it("the operator's domain blocks: a silenced domain's posts only in the follower's Subscribed, a suspended one's nowhere", async () => {
    const f = (await client(m.token['alice']).getPosts({ type_: 'Subscribed', limit: 1 })).posts[0]!.community.id;
    const quiet = await seed.post(await seed.author('quiet', 'silenced.test'), f);
    const banned = await seed.post(await seed.author('banned', 'gone.test'), f);
    const blocks = new DomainBlockStore(s.app.db);
    const block = { rejectMedia: false, rejectReports: false, privateComment: null, publicComment: null, obfuscate: false };
    await blocks.create({ ...block, domain: 'silenced.test', severity: 'silence' });
    await blocks.create({ ...block, domain: 'gone.test', severity: 'suspend' });
    const subscribed = ids((await client(m.token['alice']).getPosts({ type_: 'Subscribed', sort: 'New', limit: 50 })).posts);
    assert.ok(subscribed.includes(quiet.id) && !subscribed.includes(banned.id));
    for (const token of [m.token['alice'], m.token['bob'], undefined]) {
      const all = ids((await client(token).getPosts({ community_id: f, sort: 'New', limit: 50 })).posts);
      assert.ok(all.includes(followed) && !all.includes(quiet.id) && !all.includes(banned.id));
    }
    await assert.rejects(client().getPost({ id: banned.id }), { message: 'couldnt_find_post' });
    await s.app.db.exec(`DELETE FROM lemmy_posts WHERE id = ANY($1::int[])`, [[quiet.id, banned.id]]);
  });

  it('an unlisted post is in no feed but the follower’s Subscribed', async () => {
    const f = (await client(m.token['alice']).getPosts({ type_: 'Subscribed', limit: 1 })).posts[0]!.community.id;
    const unlisted = await seed.post(await seed.author('unlistedone'), f, { visibility: 1 });
    try {
      for (const token of [m.token['alice'], m.token['bob'], undefined]) {
        assert.ok(!ids((await client(token).getPosts({ type_: 'All', sort: 'New', limit: 50 })).posts).includes(unlisted.id));
      }
      assert.ok(ids((await client(m.token['alice']).getPosts({ type_: 'Subscribed', sort: 'New', limit: 50 })).posts).includes(unlisted.id));
    } finally {
      await s.app.db.exec('DELETE FROM lemmy_posts WHERE id = $1', [unlisted.id]);
    }
  });

  it('nsfw posts only with show_nsfw', async () => {
    assert.ok(!(await listed(m.token['bob'])).includes(hidden['nsfw']!));
    assert.ok((await listed(m.token['bob'], { show_nsfw: true })).includes(hidden['nsfw']!));
  });

  it('GET post refuses what the viewer may not see, as Lemmy: couldnt_find_post', async () => {
    for (const key of ['blocked', 'deleted', 'private', 'suspended']) {
      await assert.rejects(client(m.token['alice']).getPost({ id: hidden[key]! }), { message: 'couldnt_find_post' }, key);
    }
    assert.equal((await client(m.token['bob']).getPost({ id: hidden['blocked']! })).post_view.post.id, hidden['blocked']);
    assert.deepEqual(await raw('GET', 'post?id=987654'), { status: 404, body: { error: 'couldnt_find_post' } });
    assert.deepEqual(await raw('GET', 'post'), { status: 404, body: { error: 'couldnt_find_post' } });
  });

  it('Subscribed lists only the communities the member follows; anonymous: not_logged_in', async () => {
    const got = ids((await client(m.token['alice']).getPosts({ type_: 'Subscribed', sort: 'New', limit: 50 })).posts);
    assert.deepEqual(got, [followed]);
    assert.ok((await client(m.token['alice']).getPosts({ type_: 'All', sort: 'New', limit: 50 })).posts.some((p) => p.post.id === other));
    assert.deepEqual(ids((await client(m.token['bob']).getPosts({ type_: 'Subscribed' })).posts), []);
    assert.deepEqual(await raw('GET', 'post/list?type_=Subscribed'), { status: 401, body: { error: 'not_logged_in' } });
    const view = (await client(m.token['alice']).getPosts({ type_: 'Subscribed' })).posts[0]!;
    assert.equal(view.subscribed, 'Subscribed');
  });
});

describe('GET post', () => {
  it('answers the post view, its community view, the moderators and the cross posts', async () => {
    const c = await seed.community('news', 'lemmy.test');
    const d = await seed.community('morenews', 'other.test');
    const mod = await seed.author('moddy');
    await seed.links.setModerators(c.id, [mod]);
    const url = 'https://example.com/article';
    const p = await seed.post(mod, c.id, { url, name: 'An article', body: 'Some *markdown*' });
    const cross = await seed.post(await seed.author('crosser'), d.id, { url });
    await seed.post(await seed.author('unrelated'), d.id, { url: 'https://example.com/other' });
    const commentAuthor = await seed.author('commenter');
    const comment = await seed.comment(commentAuthor, p, null, new Date());

    const got = await client(m.token['carol']).getPost({ id: p.id });
    assertLemmyShape('GetPostResponse', got);
    assert.equal(got.post_view.post.name, 'An article');
    assert.equal(got.post_view.post.url, url);
    assert.equal(got.post_view.post.body, 'Some *markdown*');
    assert.equal(got.post_view.post.ap_id.startsWith('https://remote.test/s/'), true);
    assert.equal(got.post_view.post.local, false);
    assert.equal(got.post_view.creator.name, 'moddy');
    assert.equal(got.post_view.creator.actor_id, 'https://lemmy.test/u/moddy');
    assert.equal(got.post_view.creator_is_moderator, true);
    assert.equal(got.post_view.community.name, 'news');
    assert.equal(got.post_view.community.title, 'news shown');
    assert.equal(got.post_view.subscribed, 'NotSubscribed');
    assert.equal(got.post_view.my_vote, undefined);
    assert.equal(got.community_view.community.id, c.id);
    assert.equal(got.community_view.counts.posts, 1);
    assert.equal(got.community_view.counts.comments, 1);
    assert.deepEqual(
      got.moderators.map((x) => [x.community.id, x.moderator.name]),
      [[c.id, 'moddy']],
    );
    assert.deepEqual(ids(got.cross_posts), [cross.id]);
    assert.ok(Number.isSafeInteger(got.post_view.creator.id) && Number.isSafeInteger(got.post_view.community.instance_id));
    // The same post by one of its comments.
    assert.equal((await client().getPost({ comment_id: comment.id })).post_view.post.id, p.id);
    await assert.rejects(client().getPost({ comment_id: 999999 }), { message: 'couldnt_find_post' });
    // Ids are stable: the same person, the same id, on every read.
    assert.equal((await client().getPost({ id: p.id })).post_view.creator.id, got.post_view.creator.id);
  });
});

describe("a member's posts, votes and saves", () => {
  let community: number;

  before(async () => {
    community = (await seed.community('writers')).id;
  });

  it('posts, edits, votes, saves and deletes through the community service, answering PostViews', async () => {
    const alice = client(m.token['alice']);
    const made = await alice.createPost({ name: '  A title  ', community_id: community, url: 'https://example.org/x', body: 'hello', nsfw: false });
    assertLemmyShape('PostResponse', made);
    const id = made.post_view.post.id;
    assert.equal(made.post_view.post.name, 'A title');
    assert.equal(made.post_view.post.url, 'https://example.org/x');
    assert.equal(made.post_view.creator.name, 'alice');
    assert.equal(made.post_view.creator.local, true);
    assert.equal(made.post_view.post.local, true);
    assert.match(made.post_view.post.ap_id, /\/users\/alice\/statuses\/\d+$/);
    assert.equal(made.post_view.my_vote, undefined);
    assert.equal(made.post_view.creator_is_admin, false);

    const up = await alice.likePost({ post_id: id, score: 1 });
    assertLemmyShape('PostResponse', up);
    assert.equal(up.post_view.my_vote, 1);
    assert.deepEqual([up.post_view.counts.upvotes, up.post_view.counts.downvotes, up.post_view.counts.score], [1, 0, 1]);
    const down = await alice.likePost({ post_id: id, score: -1 });
    assert.equal(down.post_view.my_vote, -1);
    assert.deepEqual([down.post_view.counts.upvotes, down.post_view.counts.downvotes, down.post_view.counts.score], [0, 1, -1]);
    const none = await alice.likePost({ post_id: id, score: 0 });
    assert.equal(none.post_view.my_vote, undefined);
    assert.equal(none.post_view.counts.score, 0);
    // Bob sees his own vote, not alice's.
    await client(m.token['bob']).likePost({ post_id: id, score: 1 });
    assert.equal((await alice.getPost({ id })).post_view.my_vote, undefined);
    assert.equal((await client(m.token['bob']).getPost({ id })).post_view.my_vote, 1);

    assert.equal((await alice.savePost({ post_id: id, save: true })).post_view.saved, true);
    assert.deepEqual(ids((await alice.getPosts({ saved_only: true })).posts), [id]);
    assert.deepEqual(ids((await client(m.token['bob']).getPosts({ saved_only: true })).posts), []);
    assert.equal((await alice.getPost({ id })).post_view.saved, true);
    assert.equal((await alice.savePost({ post_id: id, save: false })).post_view.saved, false);

    assert.deepEqual(ids((await alice.getPosts({ type_: 'Local', sort: 'New' })).posts), [id], 'Local: posts by local authors');

    const edited = await alice.editPost({ post_id: id, name: 'A better title', body: 'hello again' });
    assert.equal(edited.post_view.post.name, 'A better title');
    assert.equal(edited.post_view.post.body, 'hello again');
    assert.equal(edited.post_view.post.url, 'https://example.org/x');
    assert.ok(edited.post_view.post.updated);
    await assert.rejects(client(m.token['bob']).editPost({ post_id: id, name: 'mine now' }), { message: 'no_post_edit_allowed' });

    const gone = await alice.deletePost({ post_id: id, deleted: true });
    assertLemmyShape('PostResponse', gone);
    assert.equal(gone.post_view.post.deleted, true);
    assert.equal(gone.post_view.post.name, 'A better title');
    assert.equal(gone.post_view.post.url, undefined);
    assert.equal(gone.post_view.post.body, undefined);
    assert.ok(!ids((await alice.getPosts({ community_id: community, sort: 'New' })).posts).includes(id));
    await assert.rejects(alice.getPost({ id }), { message: 'couldnt_find_post' });
    assert.deepEqual(
      double.calls.filter((c) => !c.startsWith('follow')),
      ['createPost:A title', 'vote:1', 'vote:-1', 'vote:0', 'vote:1', 'save:true', 'save:false', 'editPost:' + id, 'editPost:' + id, 'deletePost:' + id],
    );
  });

  it("answers Lemmy's error codes, and nothing reaches the service", async () => {
    const before = double.calls.length;
    const anyPost = (await client(m.token['alice']).getPosts({ sort: 'New', limit: 1 })).posts[0]!.post.id;
    assert.deepEqual(await raw('POST', 'post', { name: 'x', community_id: community }), { status: 401, body: { error: 'not_logged_in' } });
    assert.deepEqual(await raw('POST', 'post/like', { post_id: anyPost, score: 1 }), { status: 401, body: { error: 'not_logged_in' } });
    assert.deepEqual(await raw('PUT', 'post/save', { post_id: anyPost, save: true }), { status: 401, body: { error: 'not_logged_in' } });
    const alice = m.token['alice'];
    assert.deepEqual(await raw('POST', 'post/like', { post_id: anyPost, score: 2 }, alice), { status: 400, body: { error: 'invalid_vote_value' } });
    assert.deepEqual(await raw('POST', 'post/like', { post_id: 999999, score: 1 }, alice), { status: 404, body: { error: 'couldnt_find_post' } });
    assert.deepEqual(await raw('POST', 'post', { name: '   ', community_id: community }, alice), { status: 400, body: { error: 'invalid_post_title' } });
    assert.deepEqual(await raw('POST', 'post', { name: 'x'.repeat(201), community_id: community }, alice), {
      status: 400,
      body: { error: 'invalid_post_title' },
    });
    assert.deepEqual(await raw('POST', 'post', { name: 'ok', community_id: community, url: 'ftp://x.example/' }, alice), {
      status: 400,
      body: { error: 'invalid_url_scheme' },
    });
    assert.deepEqual(await raw('POST', 'post', { name: 'ok', community_id: 999999 }, alice), { status: 404, body: { error: 'couldnt_find_community' } });
    assert.deepEqual(await raw('POST', 'post', { community_id: 'one' }, alice), { status: 400, body: { error: 'invalid_body_field' } });
    assert.deepEqual(await raw('PUT', 'post/save', { post_id: anyPost }, alice), { status: 400, body: { error: 'invalid_body_field' } });
    assert.deepEqual(await raw('POST', 'post', { name: 'ok', community_id: community, body: 'a\u0000b' }, alice), {
      status: 400,
      body: { error: 'invalid_body_field' },
    });
    assert.deepEqual(await raw('POST', 'post', { name: 'o\u0000k', community_id: community }, alice), { status: 400, body: { error: 'invalid_post_title' } });
    // A token without `write` is refused by the route's rule before anything runs.
    const readOnly = await m.tokenFor('alice', ['read']);
    assert.equal((await raw('POST', 'post/like', { post_id: anyPost, score: 1 }, readOnly)).status, 403);
    assert.equal(double.calls.length, before);
  });

  it('a downvote the community service refuses is its error, as Lemmy sends it', async () => {
    const made = (await client(m.token['carol']).createPost({ name: 'vote on me', community_id: community })).post_view;
    assert.equal(made.creator_is_admin, true, 'carol is an administrator');
    const p = made.post.id;
    double.enableDownvotes = false;
    try {
      await assert.rejects(client(m.token['carol']).likePost({ post_id: p, score: -1 }), { message: 'downvotes_are_disabled' });
    } finally {
      double.enableDownvotes = true;
    }
  });
});

describe('post/list and post under random query strings', () => {
  it('answer 200, or a 4xx with an error code: never a 5xx', async () => {
    const keys = ['type_', 'sort', 'page', 'limit', 'community_id', 'community_name', 'saved_only', 'show_nsfw', 'page_cursor', 'liked_only', 'id', 'x'];
    const values = fc.oneof(
      fc.constantFrom('All', 'Local', 'Subscribed', 'Hot', 'New', 'TopDay', 'true', 'false', '0', '-1', '1', '50', '51', '1e3', '', 'NaN', '9007199254740993'),
      fc.string({ maxLength: 12, unit: 'binary' }),
      fc.integer({ min: -5, max: 100_000 }).map(String),
    );
    const query = fc.array(fc.tuple(fc.constantFrom(...keys), values), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(query, fc.constantFrom('post/list', 'post'), fc.boolean(), async (pairs, path, signed) => {
        const qs = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        const r = await raw('GET', `${path}?${qs}`, undefined, signed ? m.token['bob'] : undefined);
        assert.ok(r.status === 200 || (r.status >= 400 && r.status < 500 && typeof r.body['error'] === 'string'), `${path}?${qs}: ${r.status}`);
      }),
      { seed: 37, numRuns: 120 },
    );
  });
});

describe('the write routes under random bodies', () => {
  it('answer 200, or a 4xx with an error code: never a 5xx', async () => {
    const c = await seed.community('fuzzed');
    const alice = client(m.token['alice']);
    const post = (await alice.createPost({ name: 'fuzz me', community_id: c.id })).post_view.post.id;
    const comment = (await alice.createComment({ post_id: post, content: 'and me' })).comment_view.comment.id;
    const remote = (await seed.post(await seed.author('fuzzy'), c.id)).id;
    const routes = [
      ['POST', 'post'],
      ['PUT', 'post'],
      ['POST', 'post/delete'],
      ['POST', 'post/like'],
      ['PUT', 'post/save'],
      ['POST', 'comment'],
      ['PUT', 'comment'],
      ['POST', 'comment/delete'],
      ['POST', 'comment/like'],
      ['PUT', 'comment/save'],
    ] as const;
    const keys = ['name', 'community_id', 'url', 'body', 'nsfw', 'post_id', 'deleted', 'score', 'save', 'content', 'parent_id', 'comment_id', 'honeypot'];
    const value = fc.oneof(
      fc.constantFrom(c.id, post, comment, remote, 0, -1, 987654, 1.5, 2 ** 53, '1', null, true, false, {}, [], 'https://example.com/a', 'ftp://x', ''),
      fc.string({ maxLength: 20, unit: 'binary' }),
      fc.integer({ min: -3, max: 3 }),
    );
    const body = fc.oneof(
      fc.array(fc.tuple(fc.constantFrom(...keys), value), { maxLength: 6 }).map((pairs) => JSON.stringify(Object.fromEntries(pairs))),
      fc.string({ maxLength: 30, unit: 'binary' }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, fc.constantFrom('alice', 'bob', null), async ([method, path], text, who) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (who) headers['authorization'] = `Bearer ${m.token[who]}`;
        const r = await fetch(`${s.url}/api/v3/${path}`, { method, headers, body: text });
        const answer = (await r.json()) as Record<string, unknown>;
        assert.ok(r.status === 200 || (r.status >= 400 && r.status < 500 && typeof answer['error'] === 'string'), `${method} ${path} ${text}: ${r.status}`);
      }),
      { seed: 37, numRuns: 150 },
    );
  });
});
