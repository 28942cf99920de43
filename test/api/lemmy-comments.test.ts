// /api/v3 comments driven by lemmy-js-client 0.19.9 against a real server: comment/list as Lemmy's tree (paths
// '0.a.b', parents before children, max_depth below the post or the parent), every comment sort against an order
// computed here, deleted comments kept as placeholders, blocked and muted authors hidden, a member's comments, edits,
// deletes, votes and saves (through a test double of the community service: another part's work), Lemmy's error
// codes, and a property over random query strings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type CommentView, LemmyHttp } from 'lemmy-js-client';
import type { CommentRecord, LinkPostRecord } from '../../src/store/link-aggregator.js';
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
const ids = (cs: readonly CommentView[]) => cs.map((c) => c.comment.id);
const depth = (path: string) => path.split('.').length - 1;
const parentPath = (path: string) => path.slice(0, path.lastIndexOf('.'));

/** What the test knows of each comment it seeded. */
interface Known {
  id: number;
  path: string;
  published: number;
  score: number;
  up: number;
  down: number;
}

before(async () => {
  s = await startTestServer({}, undefined, { communityActions: double });
  double.attach(s.app.db);
  seed = lemmySeed(s.app.db);
  m = await createMembers(s, ['alice', 'bob']);
});
after(() => s.stop());

describe('comment/list: the tree', () => {
  let post: LinkPostRecord;
  const known: Known[] = [];
  const records: CommentRecord[] = [];

  before(async () => {
    const c = await seed.community('threads');
    post = await seed.post(await seed.author('op'), c.id, { at: new Date(Date.now() - 30 * HOUR) });
    const { rnd } = seeded(7);
    // 24 comments, each under a random earlier one (or at the top), at distinct times; votes both ways.
    for (let i = 0; i < 24; i++) {
      const parent = i < 3 || rnd() < 0.25 ? null : records[Math.floor(rnd() * records.length)]!;
      const at = Date.now() - (29 - i) * HOUR + Math.floor(rnd() * 1000);
      const r = await seed.comment(await seed.author(`c${i}`), post, parent, new Date(at), `comment ${i}`);
      const up = Math.floor(rnd() * 5);
      const down = Math.floor(rnd() * 3);
      await seed.votes(r.statusId, up);
      // Downvoters distinct from the upvoters: seed.votes reuses voters from the first.
      for (let d = 0; d < down; d++) await seed.links.vote(r.statusId, await seed.author(`down${i}-${d}`, 'votes.test'), -1, null);
      records.push(r);
      known.push({ id: r.id, path: r.path, published: at, score: up - down, up, down });
    }
    await seed.links.refreshRanks();
  });

  /** Lemmy's tree order: by the parent's path (ltree order), then the sort among siblings. */
  const treeOrder = (ks: Known[], within: (a: Known, b: Known) => number) =>
    [...ks].sort((a, b) => {
      const pa = parentPath(a.path).split('.').map(Number);
      const pb = parentPath(b.path).split('.').map(Number);
      for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
        const x = String(pa[i]);
        const y = String(pb[i]);
        if (x !== y) return x < y ? -1 : 1;
      }
      if (pa.length !== pb.length) return pa.length - pb.length;
      return within(a, b);
    });
  const newFirst = (a: Known, b: Known) => b.published - a.published || b.id - a.id;
  const topFirst = (a: Known, b: Known) => b.score - a.score || b.id - a.id;
  const controversy = (k: Known) => (k.up <= 0 || k.down <= 0 ? 0 : (k.up + k.down) * (k.up > k.down ? k.down / k.up : k.up / k.down));

  it('paths are 0.<ancestors>.<own id>, and the whole tree comes back parents first', async () => {
    const answer = await client(m.token['alice']).getComments({ post_id: post.id, max_depth: 8, sort: 'New' });
    assertLemmyShape('GetCommentsResponse', answer);
    const got = answer.comments;
    assert.equal(got.length, known.length);
    const seen = new Set<string>();
    for (const c of got) {
      assert.ok(c.comment.path.endsWith(`.${c.comment.id}`));
      assert.ok(c.comment.path.startsWith('0.'));
      const parent = parentPath(c.comment.path);
      assert.ok(parent === '0' || seen.has(parent), `${c.comment.path} before its parent`);
      seen.add(c.comment.path);
    }
    assert.deepEqual(
      ids(got),
      treeOrder(known, newFirst).map((k) => k.id),
    );
  });

  it("child_count counts every descendant, and the post's counts every comment", async () => {
    const got = (await client().getComments({ post_id: post.id, max_depth: 8 })).comments;
    for (const c of got) {
      const under = known.filter((k) => k.path.startsWith(`${c.comment.path}.`)).length;
      assert.equal(c.counts.child_count, under, c.comment.path);
      assert.equal(c.counts.score, known.find((k) => k.id === c.comment.id)!.score);
    }
    assert.equal((await client().getPost({ id: post.id })).post_view.counts.comments, known.length);
  });

  it('max_depth limits the levels below the post, or below parent_id (which comes with its subtree)', async () => {
    const top = (await client().getComments({ post_id: post.id, max_depth: 1, sort: 'New' })).comments;
    assert.deepEqual(
      ids(top),
      treeOrder(
        known.filter((k) => depth(k.path) === 1),
        newFirst,
      ).map((k) => k.id),
    );
    const two = (await client().getComments({ post_id: post.id, max_depth: 2, sort: 'New' })).comments;
    assert.deepEqual(new Set(ids(two)), new Set(known.filter((k) => depth(k.path) <= 2).map((k) => k.id)));
    // A parent with grandchildren: it, its children only with max_depth 1; its whole subtree with 8.
    const parent = known.find((k) => known.some((x) => depth(x.path) === depth(k.path) + 2 && x.path.startsWith(`${k.path}.`)))!;
    assert.ok(parent, 'the seeded tree has a grandparent');
    const near = (await client().getComments({ parent_id: parent.id, max_depth: 1, sort: 'New' })).comments;
    assert.deepEqual(
      ids(near),
      treeOrder(
        known.filter((k) => k.id === parent.id || (k.path.startsWith(`${parent.path}.`) && depth(k.path) === depth(parent.path) + 1)),
        newFirst,
      ).map((k) => k.id),
    );
    const all = (await client().getComments({ parent_id: parent.id, max_depth: 8, sort: 'New' })).comments;
    assert.deepEqual(new Set(ids(all)), new Set(known.filter((k) => k.path === parent.path || k.path.startsWith(`${parent.path}.`)).map((k) => k.id)));
  });

  it('sorts siblings by Top, Old and Controversial within the tree; Hot by the rank, then score', async () => {
    const top = (await client().getComments({ post_id: post.id, max_depth: 8, sort: 'Top' })).comments;
    assert.deepEqual(
      ids(top),
      treeOrder(known, topFirst).map((k) => k.id),
    );
    const old = (await client().getComments({ post_id: post.id, max_depth: 8, sort: 'Old' })).comments;
    assert.deepEqual(
      ids(old),
      treeOrder(known, (a, b) => a.published - b.published || a.id - b.id).map((k) => k.id),
    );
    const controversial = (await client().getComments({ post_id: post.id, max_depth: 8, sort: 'Controversial' })).comments;
    assert.deepEqual(
      ids(controversial),
      treeOrder(known, (a, b) => controversy(b) - controversy(a) || b.id - a.id).map((k) => k.id),
    );
    const now = Date.now();
    const hot = (k: Known) => {
      const h = (now - k.published) / HOUR;
      return h > 0 && h < 168 ? Math.log10(Math.max(2, k.score + 2)) / (h + 2) ** 1.8 : 0;
    };
    const flat = (await client().getComments({ post_id: post.id, sort: 'Hot', limit: 50 })).comments;
    assert.deepEqual(
      ids(flat),
      [...known].sort((a, b) => hot(b) - hot(a) || b.score - a.score || b.id - a.id).map((k) => k.id),
    );
  });

  it("without max_depth: a flat page by the sort, Lemmy's default limit 10, paged without repeats or gaps", async () => {
    const whole = ids((await client().getComments({ post_id: post.id, sort: 'New', limit: 50 })).comments);
    assert.deepEqual(
      whole,
      [...known].sort(newFirst).map((k) => k.id),
    );
    assert.equal((await client().getComments({ post_id: post.id, sort: 'New' })).comments.length, 10);
    const paged: number[] = [];
    for (let page = 1; page <= 5; page++) paged.push(...ids((await client().getComments({ post_id: post.id, sort: 'New', limit: 7, page })).comments));
    assert.deepEqual(paged, whole);
  });

  it("keeps a silenced author's comments out of the list across posts, not out of the thread", async () => {
    const quiet = await seed.author('silencedone');
    await s.app.db.exec('UPDATE accounts SET silenced_at = now() WHERE id = $1', [quiet]);
    const r = await seed.comment(quiet, post, null, new Date(Date.now() - HOUR), 'silenced comment');
    try {
      const across = ids((await client(m.token['bob']).getComments({ type_: 'All', sort: 'New', limit: 50 })).comments);
      assert.ok(!across.includes(r.id));
      assert.ok(ids((await client().getComments({ sort: 'New', limit: 50 })).comments).every((id) => id !== r.id));
      assert.ok(ids((await client(m.token['bob']).getComments({ post_id: post.id, max_depth: 8 })).comments).includes(r.id));
    } finally {
      await s.app.db.exec('DELETE FROM lemmy_comments WHERE id = $1', [r.id]);
    }
  });

  it('a deleted comment stays in the tree, deleted and empty; its replies still hang from it', async () => {
    const parent = known.find((k) => known.some((x) => parentPath(x.path) === k.path))!;
    await s.app.db.exec('UPDATE statuses SET deleted_at = now() WHERE id = (SELECT status_id FROM lemmy_comments WHERE id = $1)', [parent.id]);
    try {
      const got = (await client().getComments({ post_id: post.id, max_depth: 8, sort: 'New' })).comments;
      assert.equal(got.length, known.length);
      const gone = got.find((c) => c.comment.id === parent.id)!;
      assert.equal(gone.comment.deleted, true);
      assert.equal(gone.comment.content, '');
      assert.ok(got.some((c) => parentPath(c.comment.path) === parent.path && !c.comment.deleted));
      const alive = got.find((c) => c.comment.id !== parent.id)!;
      assert.match(alive.comment.content, /^comment \d+$/);
      assert.equal(alive.comment.deleted, false);
    } finally {
      await s.app.db.exec('UPDATE statuses SET deleted_at = NULL WHERE id = (SELECT status_id FROM lemmy_comments WHERE id = $1)', [parent.id]);
    }
  });

  it('hides the comments of authors the viewer blocked or muted, and remote history; others still see them', async () => {
    const [blockedOne, mutedOne] = [records[5]!, records[9]!];
    const author = async (r: CommentRecord) => (await s.app.db.one<{ a: string }>('SELECT account_id::text AS a FROM statuses WHERE id = $1', [r.statusId]))!.a;
    await s.app.db.exec('INSERT INTO blocks (account_id, target_account_id) VALUES ($1, $2)', [m.id['bob'], await author(blockedOne)]);
    await s.app.db.exec('INSERT INTO mutes (account_id, target_account_id) VALUES ($1, $2)', [m.id['bob'], await author(mutedOne)]);
    const history = await seed.comment(await seed.author('old'), post, null, new Date(Date.now() - HOUR));
    await s.app.db.exec('UPDATE statuses SET history = true WHERE id = $1', [history.statusId]);
    const forBob = ids((await client(m.token['bob']).getComments({ post_id: post.id, max_depth: 8 })).comments);
    assert.ok(!forBob.includes(blockedOne.id) && !forBob.includes(mutedOne.id) && !forBob.includes(history.id));
    assert.equal(forBob.length, known.length - 2);
    const forAlice = ids((await client(m.token['alice']).getComments({ post_id: post.id, max_depth: 8 })).comments);
    assert.ok(forAlice.includes(blockedOne.id) && forAlice.includes(mutedOne.id) && !forAlice.includes(history.id));
    await s.app.db.exec('DELETE FROM blocks WHERE account_id = $1', [m.id['bob']]);
    await s.app.db.exec('DELETE FROM mutes WHERE account_id = $1', [m.id['bob']]);
  });

  it('unknown posts and parents are Lemmy 404s; malformed queries 400s', async () => {
    assert.deepEqual(await raw('GET', 'comment/list?post_id=987654'), { status: 404, body: { error: 'couldnt_find_post' } });
    assert.deepEqual(await raw('GET', 'comment/list?parent_id=987654'), { status: 404, body: { error: 'couldnt_find_comment' } });
    assert.deepEqual(await raw('GET', 'comment/list?sort=Best'), { status: 400, body: { error: 'invalid_query' } });
    assert.deepEqual(await raw('GET', 'comment/list?max_depth=x'), { status: 400, body: { error: 'invalid_query' } });
    assert.deepEqual(await raw('GET', 'comment/list?type_=Subscribed'), { status: 401, body: { error: 'not_logged_in' } });
  });
});

describe("a member's comments, votes and saves", () => {
  let post: number;

  before(async () => {
    const c = await seed.community('talk');
    post = (await seed.post(await seed.author('talker'), c.id)).id;
  });

  it('comments and replies, edits, votes, saves and deletes through the community service, answering CommentViews', async () => {
    const alice = client(m.token['alice']);
    const top = await alice.createComment({ post_id: post, content: 'first!' });
    assert.deepEqual(top.recipient_ids, []);
    assertLemmyShape('CommentResponse', top);
    const c = top.comment_view;
    assert.equal(c.comment.content, 'first!');
    assert.equal(c.comment.path, `0.${c.comment.id}`);
    assert.equal(c.comment.post_id, post);
    assert.equal(c.post.id, post);
    assert.equal(c.creator.name, 'alice');
    assert.equal(c.community.name, 'talk');
    assert.equal(c.comment.local, true);
    assert.equal(c.my_vote, undefined);

    const reply = (await client(m.token['bob']).createComment({ post_id: post, parent_id: c.comment.id, content: 'second' })).comment_view;
    assert.equal(reply.comment.path, `0.${c.comment.id}.${reply.comment.id}`);

    const liked = await client(m.token['bob']).likeComment({ comment_id: c.comment.id, score: 1 });
    assertLemmyShape('CommentResponse', liked);
    assert.equal(liked.comment_view.my_vote, 1);
    assert.equal(liked.comment_view.counts.upvotes, 1);
    const disliked = await alice.likeComment({ comment_id: reply.comment.id, score: -1 });
    assert.equal(disliked.comment_view.my_vote, -1);
    assert.equal(disliked.comment_view.counts.score, -1);

    const saved = await alice.saveComment({ comment_id: reply.comment.id, save: true });
    assert.equal(saved.comment_view.saved, true);
    assert.deepEqual(ids((await alice.getComments({ saved_only: true })).comments), [reply.comment.id]);

    const tree = (await alice.getComments({ post_id: post, max_depth: 8 })).comments;
    assert.deepEqual(ids(tree), [c.comment.id, reply.comment.id]);
    assert.equal(tree[0]!.counts.child_count, 1);
    assert.equal(tree[0]!.my_vote, undefined, "bob's vote is not alice's");
    assert.equal(tree[1]!.my_vote, -1);
    assert.equal(tree[1]!.saved, true);

    const edited = await alice.editComment({ comment_id: c.comment.id, content: 'first, edited' });
    assert.equal(edited.comment_view.comment.content, 'first, edited');
    assert.ok(edited.comment_view.comment.updated);
    await assert.rejects(client(m.token['bob']).editComment({ comment_id: c.comment.id, content: 'mine' }), { message: 'no_comment_edit_allowed' });

    const deleted = await alice.deleteComment({ comment_id: c.comment.id, deleted: true });
    assertLemmyShape('CommentResponse', deleted);
    assert.equal(deleted.comment_view.comment.deleted, true);
    assert.equal(deleted.comment_view.comment.content, '');
    const after = (await client().getComments({ post_id: post, max_depth: 8 })).comments;
    assert.deepEqual(
      after.map((x) => [x.comment.id, x.comment.deleted]),
      [
        [c.comment.id, true],
        [reply.comment.id, false],
      ],
    );
    // A deleted comment counts no more (as Lemmy 0.19's counts), in its post and in its ancestors.
    assert.equal((await client().getPost({ id: post })).post_view.counts.comments, 1);
    await client(m.token['bob']).deleteComment({ comment_id: reply.comment.id, deleted: true });
    assert.equal((await client().getPost({ id: post })).post_view.counts.comments, 0);
    const top2 = (await client().getComments({ post_id: post, max_depth: 8 })).comments.find((x) => x.comment.id === c.comment.id)!;
    assert.equal(top2.counts.child_count, 0);
  });

  it("answers Lemmy's error codes, and nothing reaches the service", async () => {
    const before = double.calls.length;
    const some = (await client(m.token['alice']).getComments({ post_id: post, limit: 1 })).comments[0]!.comment.id;
    assert.deepEqual(await raw('POST', 'comment', { post_id: post, content: 'hi' }), { status: 401, body: { error: 'not_logged_in' } });
    assert.deepEqual(await raw('POST', 'comment/like', { comment_id: some, score: 1 }), { status: 401, body: { error: 'not_logged_in' } });
    const alice = m.token['alice'];
    assert.deepEqual(await raw('POST', 'comment', { post_id: 987654, content: 'hi' }, alice), { status: 404, body: { error: 'couldnt_find_post' } });
    assert.deepEqual(await raw('POST', 'comment', { post_id: post, parent_id: 987654, content: 'hi' }, alice), {
      status: 404,
      body: { error: 'couldnt_find_comment' },
    });
    assert.deepEqual(await raw('POST', 'comment', { post_id: post, content: '  ' }, alice), { status: 400, body: { error: 'invalid_body_field' } });
    assert.deepEqual(await raw('POST', 'comment', { post_id: post, content: 'nul\u0000' }, alice), { status: 400, body: { error: 'invalid_body_field' } });
    assert.deepEqual(await raw('POST', 'comment/like', { comment_id: some, score: 5 }, alice), { status: 400, body: { error: 'invalid_vote_value' } });
    assert.deepEqual(await raw('POST', 'comment/like', { comment_id: 987654, score: 1 }, alice), { status: 404, body: { error: 'couldnt_find_comment' } });
    assert.deepEqual(await raw('PUT', 'comment/save', { comment_id: some, save: 'yes' }, alice), { status: 400, body: { error: 'invalid_body_field' } });
    // A token without `write` is refused by the route's rule before anything runs.
    const readOnly = await m.tokenFor('alice', ['read']);
    assert.equal((await raw('POST', 'comment', { post_id: post, content: 'hi' }, readOnly)).status, 403);
    assert.equal(double.calls.length, before);
  });
});

describe('comment/list under random query strings', () => {
  it('answers 200, or a 4xx with an error code: never a 5xx', async () => {
    const keys = ['type_', 'sort', 'max_depth', 'page', 'limit', 'community_id', 'community_name', 'post_id', 'parent_id', 'saved_only', 'liked_only'];
    const values = fc.oneof(
      fc.constantFrom('All', 'Local', 'Subscribed', 'Hot', 'Top', 'New', 'Old', 'true', 'false', '0', '-1', '1', '8', '50', '1001', '', '1.5'),
      fc.string({ maxLength: 12, unit: 'binary' }),
      fc.integer({ min: -5, max: 100_000 }).map(String),
    );
    const query = fc.array(fc.tuple(fc.constantFrom(...keys), values), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(query, fc.boolean(), async (pairs, signed) => {
        const qs = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        const r = await raw('GET', `comment/list?${qs}`, undefined, signed ? m.token['bob'] : undefined);
        assert.ok(r.status === 200 || (r.status >= 400 && r.status < 500 && typeof r.body['error'] === 'string'), `comment/list?${qs}: ${r.status}`);
      }),
      { seed: 37, numRuns: 120 },
    );
  });
});
