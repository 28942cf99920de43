// The link aggregator's records (migrations 070 and 073) against a real PostgreSQL: posts and comments filed once per
// status, Lemmy's comment paths and counts, votes counted exactly (a model test), Lemmy's hot rank, its decay by
// refreshRanks, and the Hot listing's plan over the 070 indexes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { type CommentRecord, LinkAggregatorStore } from '../../src/store/link-aggregator.js';
import { freshDatabaseUrl } from '../support/db.js';
import { feedFixtures } from '../support/feed-fixtures.js';

const silent = pino({ level: 'silent' });
const HOUR = 3_600_000;

let db: Database;
let dbUrl: string;
let links: LinkAggregatorStore;
let fx: ReturnType<typeof feedFixtures>;
let community: number;

before(async () => {
  dbUrl = await freshDatabaseUrl();
  db = new Database(dbUrl, 2, silent);
  links = new LinkAggregatorStore(db);
  fx = feedFixtures(db);
  const group = await fx.account(false);
  await db.exec(`UPDATE accounts SET actor_type = 'Group' WHERE id = $1`, [group]);
  community = await links.communityId(group);
});
after(() => db.close());

/** Lemmy 0.19's r.hot_rank, in TypeScript: log10(max(2, score + 2)) / (hours + 2)^1.8 while 0 < hours < 168. */
function lemmyHotRank(score: number, hours: number): number {
  return hours > 0 && hours < 168 ? Math.log10(Math.max(2, score + 2)) / (hours + 2) ** 1.8 : 0;
}

/** Ranks written a moment ago, compared with the formula now: relative tolerance (distinct scores differ by far more). */
const close = (actual: number, expected: number, rel: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= rel * Math.max(Math.abs(expected), 1e-300), `${what}: ${actual} is not ${expected}`);

async function newPost(publishedAt = new Date(Date.now() - HOUR)) {
  const author = await fx.account(false);
  const statusId = await fx.post(author, { at: publishedAt });
  return links.recordPost({ statusId, communityId: community, name: 'a title', url: null, body: '', nsfw: false, published: publishedAt });
}

async function newComment(postId: number, parent: CommentRecord | null, at = new Date(Date.now() - HOUR)) {
  const statusId = await fx.post(await fx.account(false), { at });
  return links.recordComment(statusId, postId, parent, 'a comment', at);
}

type Counts = { upvotes: number; downvotes: number; score: number; hot_rank: number };
const postRow = async (id: number) =>
  (await db.one<Counts & { comments: number; newest: Date; necro: Date; hot_rank_active: number; hours: number; active_hours: number }>(
    `SELECT upvotes, downvotes, score, comments, newest_comment_time AS newest, newest_comment_time_necro AS necro, hot_rank, hot_rank_active,
            extract(epoch FROM now() - published)::float8 / 3600 AS hours, extract(epoch FROM now() - newest_comment_time_necro)::float8 / 3600 AS active_hours
     FROM lemmy_posts WHERE id = $1`,
    [id],
  ))!;
const commentRow = async (id: number) =>
  (await db.one<Counts & { child_count: number; hours: number }>(
    `SELECT upvotes, downvotes, score, child_count, hot_rank, extract(epoch FROM now() - published)::float8 / 3600 AS hours FROM lemmy_comments WHERE id = $1`,
    [id],
  ))!;

describe('link aggregator records', () => {
  it('files a post and a comment once per status', async () => {
    const p = await newPost();
    const author = await fx.account(false);
    const again = await links.recordPost({
      statusId: p.statusId,
      communityId: community,
      name: 'other',
      url: 'https://x.example/',
      body: 'b',
      nsfw: true,
      published: new Date(),
    });
    assert.deepEqual(again, p);
    assert.deepEqual(await links.postById(p.id), p);
    const status = await fx.post(author);
    const c = await links.recordComment(status, p.id, null, 'hi', new Date());
    assert.deepEqual(await links.recordComment(status, p.id, null, 'hi again', new Date()), c);
    assert.deepEqual(await links.commentById(c.id), c);
    assert.equal((await postRow(p.id)).comments, 1, 'the second filing does not count again');
    assert.equal((await db.one<{ n: number }>('SELECT count(*)::int AS n FROM lemmy_posts WHERE status_id = $1', [p.statusId]))!.n, 1);
  });

  it("places comments by Lemmy's path and counts each ancestor's children and the post's comments", async () => {
    const p = await newPost(new Date(Date.now() - 10 * HOUR));
    const t0 = Date.now() - 5 * HOUR;
    const a = await newComment(p.id, null, new Date(t0));
    const b = await newComment(p.id, a, new Date(t0 + HOUR));
    const c = await newComment(p.id, b, new Date(t0 + 3 * HOUR));
    const d = await newComment(p.id, a, new Date(t0 + 2 * HOUR)); // older than c: the newest comment time stays c's
    const top = await newComment(p.id, null, new Date(t0 - HOUR));
    assert.equal(a.path, `0.${a.id}`);
    assert.equal(b.path, `0.${a.id}.${b.id}`);
    assert.equal(c.path, `0.${a.id}.${b.id}.${c.id}`);
    assert.equal(d.path, `0.${a.id}.${d.id}`);
    assert.equal(top.path, `0.${top.id}`);
    // A parent from another post is no parent: the comment goes to the top of its own post.
    const other = await newPost();
    const stray = await newComment(other.id, b);
    assert.equal(stray.path, `0.${stray.id}`);
    const children = async (x: CommentRecord) => (await commentRow(x.id)).child_count;
    assert.deepEqual([await children(a), await children(b), await children(c), await children(d), await children(top)], [3, 1, 0, 0, 0]);
    const row = await postRow(p.id);
    assert.equal(row.comments, 5);
    assert.equal(row.newest.getTime(), t0 + 3 * HOUR);
    assert.equal(row.necro.getTime(), t0 + 3 * HOUR);
    close(row.hot_rank_active, lemmyHotRank(0, row.active_hours), 1e-3, 'the Active rank follows the newest comment');
    assert.equal((await postRow(other.id)).comments, 1);
    // A comment's deletion (its status gone) takes it out of every count.
    await db.exec('DELETE FROM statuses WHERE id = $1', [c.statusId]);
    assert.deepEqual([await children(a), await children(b)], [2, 0]);
    assert.equal((await postRow(p.id)).comments, 4);
  });

  it('keeps paths, child counts and the post count true through any tree of replies and deletions (model)', async () => {
    const command = fc.oneof(
      fc.record({ op: fc.constant('reply' as const), parent: fc.option(fc.nat(30), { nil: null }) }),
      fc.record({ op: fc.constant('delete' as const), pick: fc.nat(30) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 25 }), async (cmds) => {
        const p = await newPost();
        // The model: the comments that exist, with their parents' records as the store gave them.
        const live: CommentRecord[] = [];
        for (const c of cmds) {
          if (c.op === 'reply') {
            const parent = c.parent === null || live.length === 0 ? null : live[c.parent % live.length]!;
            const made = await newComment(p.id, parent);
            assert.equal(made.path, `${parent ? parent.path : '0'}.${made.id}`);
            live.push(made);
          } else if (live.length > 0) {
            const [gone] = live.splice(c.pick % live.length, 1);
            await db.exec('DELETE FROM statuses WHERE id = $1', [gone!.statusId]);
          }
        }
        const rows = await db.rows<{ id: number; path: string; child_count: number }>(
          'SELECT id::int AS id, path, child_count FROM lemmy_comments WHERE post_id = $1 ORDER BY id',
          [p.id],
        );
        assert.deepEqual(
          rows,
          [...live]
            .sort((a, b) => a.id - b.id)
            .map((a) => ({ id: a.id, path: a.path, child_count: live.filter((b) => b.path.startsWith(`${a.path}.`)).length })),
        );
        assert.equal((await postRow(p.id)).comments, live.length);
      }),
      { seed: 370, numRuns: 15 },
    );
  });

  it("bumps the Active rank as Lemmy does: not by the post's author, not more than 2 days after the post", async () => {
    const published = Date.now() - 80 * HOUR;
    const p = await newPost(new Date(published));
    const author = (await db.one<{ a: string }>('SELECT account_id::text AS a FROM statuses WHERE id = $1', [p.statusId]))!.a;
    const comment = async (who: string, at: number) => links.recordComment(await fx.post(who, { at: new Date(at) }), p.id, null, 'c', new Date(at));
    await comment(await fx.account(false), published + 10 * HOUR);
    await comment(author, published + 20 * HOUR); // the author's own: no bump
    await comment(await fx.account(false), published + 60 * HOUR); // past 2 days: no bump
    const row = await postRow(p.id);
    assert.equal(row.comments, 3);
    assert.equal(row.newest.getTime(), published + 60 * HOUR, 'NewComments still sees every comment');
    assert.equal(row.necro.getTime(), published + 10 * HOUR);
    close(row.hot_rank_active, lemmyHotRank(0, 70), 1e-3, 'Active from the last bump, 70 hours ago');
    await links.refreshRanks();
    close((await postRow(p.id)).hot_rank_active, lemmyHotRank(0, 70), 1e-3, 'and so after a refresh');
  });

  it('keeps upvotes, downvotes and score exact through any votes, changes, removals and undos (model)', async () => {
    // Ages of a day or more: the ranks move by less than 1e-3 in a minute, so the test may compare them to now's.
    const posts = [await newPost(new Date(Date.now() - 30 * HOUR)), await newPost(new Date(Date.now() - 60 * HOUR))];
    const comments = [
      await newComment(posts[0]!.id, null, new Date(Date.now() - 25 * HOUR)),
      await newComment(posts[1]!.id, null, new Date(Date.now() - 50 * HOUR)),
    ];
    const targets = [
      ...posts.map((p) => ({ kind: 'post' as const, id: p.id, statusId: p.statusId })),
      ...comments.map((c) => ({ kind: 'comment' as const, id: c.id, statusId: c.statusId })),
    ];
    const voters = [await fx.account(false), await fx.account(false), await fx.account(true), await fx.account(false)];
    let uriSerial = 0;
    const command = fc.oneof(
      fc.record({
        op: fc.constant('vote' as const),
        target: fc.nat(targets.length - 1),
        voter: fc.nat(voters.length - 1),
        score: fc.constantFrom(-1, 0, 1),
        withUri: fc.boolean(),
      }),
      fc.record({ op: fc.constant('undo' as const), uriPick: fc.nat(50), voter: fc.nat(voters.length - 1) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40 }), async (cmds) => {
        await db.exec('DELETE FROM lemmy_votes WHERE status_id = ANY($1::bigint[])', [targets.map((t) => t.statusId)]);
        // The model: per target, each voter's vote and its uri.
        const model = targets.map(() => new Map<string, { score: 1 | -1; uri: string | null }>());
        const uris: string[] = [];
        for (const c of cmds) {
          if (c.op === 'vote') {
            const t = targets[c.target]!;
            const who = voters[c.voter]!;
            const uri = c.withUri && c.score !== 0 ? `https://votes.example/${++uriSerial}` : null;
            if (uri) uris.push(uri);
            const before = model[c.target]!.get(who);
            const got = await links.vote(t.statusId, who, c.score as -1 | 0 | 1, uri);
            assert.deepEqual(got, { previous: before?.score ?? 0, previousUri: before?.uri ?? null });
            if (c.score === 0) model[c.target]!.delete(who);
            else model[c.target]!.set(who, { score: c.score as 1 | -1, uri });
          } else {
            if (uris.length === 0) continue;
            const uri = uris[c.uriPick % uris.length]!;
            const who = voters[c.voter]!;
            let expected = false;
            for (const m of model) {
              const v = m.get(who);
              if (v?.uri === uri) {
                m.delete(who);
                expected = true;
              }
            }
            assert.equal(await links.unvoteByUri(uri, who), expected, `undo of ${uri} by voter ${c.voter}`);
          }
        }
        for (const [i, t] of targets.entries()) {
          const votes = [...model[i]!.values()];
          const up = votes.filter((v) => v.score === 1).length;
          const down = votes.length - up;
          const row = t.kind === 'post' ? await postRow(t.id) : await commentRow(t.id);
          assert.deepEqual([row.upvotes, row.downvotes, row.score], [up, down, up - down], `${t.kind} ${t.id}`);
          close(row.hot_rank, lemmyHotRank(up - down, row.hours), 1e-3, `${t.kind} ${t.id}'s rank after the votes`);
        }
      }),
      { seed: 37, numRuns: 40 },
    );
  });

  it('undoes a vote by its uri only for the account that cast it', async () => {
    const p = await newPost();
    const [voter, other] = [await fx.account(false), await fx.account(false)];
    await links.vote(p.statusId, voter, 1, 'https://votes.example/only-mine');
    assert.equal(await links.unvoteByUri('https://votes.example/only-mine', other), false);
    assert.equal((await postRow(p.id)).score, 1);
    assert.equal(await links.unvoteByUri('https://votes.example/only-mine', voter), true);
    assert.equal(await links.unvoteByUri('https://votes.example/only-mine', voter), false);
    assert.deepEqual(Object.values(await postRow(p.id)).slice(0, 3), [0, 0, 0]);
  });
});

describe("Lemmy's hot rank", () => {
  const rankAt = async (score: number, hours: number) =>
    (await db.one<{ r: number }>(`SELECT lemmy_hot_rank($1, now() - make_interval(secs => $2::float8 * 3600)) AS r`, [score, hours]))!.r;

  it("equals Lemmy 0.19's formula within the week", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -10_000, max: 1_000_000 }), fc.double({ min: 0.001, max: 167.99, noNaN: true }), async (score, hours) => {
        close(await rankAt(score, hours), lemmyHotRank(score, hours), 1e-9, `score ${score}, ${hours} h`);
      }),
      { seed: 1937, numRuns: 200 },
    );
  });

  it('is 0 from 168 hours on, at the moment of publication and in the future (Lemmy: no gaming by date)', async () => {
    assert.equal(await rankAt(10, 168), 0);
    assert.equal(await rankAt(10, 500), 0);
    assert.equal(await rankAt(10, 0), 0);
    assert.equal(await rankAt(10, -1), 0);
    assert.ok((await rankAt(10, 167.99)) > 0);
    close(await rankAt(-50, 1), Math.log10(2) / 3 ** 1.8, 1e-9, 'a negative score still ranks as 0 votes');
  });
});

describe('rank refresh', () => {
  const age = (table: 'lemmy_posts' | 'lemmy_comments', id: number, hours: number) =>
    db.exec(
      table === 'lemmy_posts'
        ? `UPDATE lemmy_posts SET published = now() - make_interval(secs => $2::float8 * 3600), newest_comment_time = now() - make_interval(secs => $2::float8 * 3600),
             newest_comment_time_necro = now() - make_interval(secs => $2::float8 * 3600) WHERE id = $1`
        : `UPDATE lemmy_comments SET published = now() - make_interval(secs => $2::float8 * 3600) WHERE id = $1`,
      [id, hours],
    );

  it('decays ranks as rows age, drops them after a week, and ranks a future-dated post once its date has come', async () => {
    const p = await newPost(new Date(Date.now() - HOUR));
    const voters = [await fx.account(false), await fx.account(false), await fx.account(false)];
    for (const v of voters) await links.vote(p.statusId, v, 1, null);
    const c = await newComment(p.id, null, new Date(Date.now() - HOUR));
    await links.vote(c.statusId, voters[0]!, -1, null);
    const fresh = await postRow(p.id);
    close(fresh.hot_rank, lemmyHotRank(3, fresh.hours), 1e-3, 'after the votes');

    await age('lemmy_posts', p.id, 100);
    await age('lemmy_comments', c.id, 50);
    assert.ok((await links.refreshRanks()) >= 1);
    const aged = await postRow(p.id);
    close(aged.hot_rank, lemmyHotRank(3, aged.hours), 1e-3, 'a 100-hour-old post');
    close(aged.hot_rank_active, lemmyHotRank(3, aged.active_hours), 1e-3, 'its Active rank');
    assert.ok(aged.hot_rank < fresh.hot_rank);
    const comment = await commentRow(c.id);
    close(comment.hot_rank, lemmyHotRank(-1, comment.hours), 1e-3, 'a 50-hour-old comment');

    await age('lemmy_posts', p.id, 200);
    await age('lemmy_comments', c.id, 170);
    await links.refreshRanks();
    assert.deepEqual([(await postRow(p.id)).hot_rank, (await postRow(p.id)).hot_rank_active, (await commentRow(c.id)).hot_rank], [0, 0, 0]);

    // Dated an hour ahead: 0 (a future date cannot pin a post on top), and walked until its date comes.
    const ahead = await newPost(new Date(Date.now() + HOUR));
    assert.equal((await postRow(ahead.id)).hot_rank, 0);
    await links.refreshRanks();
    assert.equal((await postRow(ahead.id)).hot_rank, 0);
    await age('lemmy_posts', ahead.id, 2); // as if three hours had passed
    await links.refreshRanks();
    const due = await postRow(ahead.id);
    close(due.hot_rank, lemmyHotRank(0, due.hours), 1e-3, 'the future-dated post once due');
  });

  it('skips a row a vote holds, without waiting for it, and takes it at the next refresh', async () => {
    const p = await newPost(new Date(Date.now() - 2 * HOUR));
    const q = await newPost(new Date(Date.now() - 2 * HOUR));
    await db.exec('UPDATE lemmy_posts SET hot_rank = 1 WHERE id = ANY($1::bigint[])', [[p.id, q.id]]);
    const holder = new pg.Client({ connectionString: dbUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM lemmy_posts WHERE id = $1 FOR UPDATE', [p.id]);
      await links.refreshRanks();
      assert.equal((await postRow(p.id)).hot_rank, 1, 'the held row was skipped');
      const other = await postRow(q.id);
      close(other.hot_rank, lemmyHotRank(0, other.hours), 1e-3, 'the free row was refreshed');
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    await links.refreshRanks();
    const taken = await postRow(p.id);
    close(taken.hot_rank, lemmyHotRank(0, taken.hours), 1e-3, 'taken at the next refresh');
  });

  it('refreshes every row of the week in batches, and the Hot listing reads the indexes, not a sort of the table', async () => {
    const N = 12_000;
    const COMMUNITIES = 20;
    await db.tx(async (q) => {
      await q.query(
        `INSERT INTO accounts (username, domain, uri, actor_type)
         SELECT 'bench_c' || i, 'groups.example', 'https://groups.example/c/' || i, 'Group' FROM generate_series(1, $1) i`,
        [COMMUNITIES],
      );
      await q.query(`INSERT INTO lemmy_communities (account_id) SELECT id FROM accounts WHERE domain = 'groups.example'`);
      await q.query(
        `WITH s AS (
           INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
           SELECT timestamp_id(t), a, '', 0, false, t FROM (
             SELECT (SELECT id FROM accounts WHERE domain = 'groups.example' ORDER BY id OFFSET i % $2 LIMIT 1) AS a,
                    now() - (i % 240) * interval '1 hour' - random() * interval '1 hour' AS t
             FROM generate_series(1, $1) i) x
           RETURNING id, account_id, created_at)
         INSERT INTO lemmy_posts (status_id, community_id, name, published, newest_comment_time, score, upvotes)
         SELECT s.id, c.id, 'post', s.created_at, s.created_at, (s.id % 97)::int, (s.id % 97)::int
         FROM s JOIN lemmy_communities c ON c.account_id = s.account_id`,
        [N, COMMUNITIES],
      );
    });
    // Stale ranks everywhere, as if no refresh had run for hours.
    await db.exec('UPDATE lemmy_posts SET hot_rank = 1, hot_rank_active = 1');
    const touched = await links.refreshRanks();
    const inWeek = (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM lemmy_posts WHERE newest_comment_time > now() - interval '7 days'`))!.n;
    assert.ok(inWeek > 2 * 1000, 'more than two batches');
    assert.equal(touched, (await db.one<{ n: number }>('SELECT count(*)::int AS n FROM lemmy_posts'))!.n, 'the week in batches, then the rest aged out');
    // Compared with now(), seconds after the refresh: 1 % (a stale rank was 1, or a rank of another score).
    const wrong = await db.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM lemmy_posts
       WHERE abs(hot_rank - lemmy_hot_rank(score, published)) > 1e-2 * lemmy_hot_rank(score, published) + 1e-12
          OR abs(hot_rank_active - lemmy_hot_rank(score, newest_comment_time_necro)) > 1e-2 * lemmy_hot_rank(score, newest_comment_time_necro) + 1e-12`,
    );
    assert.equal(wrong!.n, 0);
    await db.exec('ANALYZE lemmy_posts');
    // The aged-out rows still ranked are found by the partial index, not by reading the week's.
    const agedOut = JSON.stringify(
      (await db.one<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (FORMAT JSON) SELECT id FROM lemmy_posts WHERE (hot_rank > 0 OR hot_rank_active > 0) AND newest_comment_time <= now() - interval '7 days'`,
      ))!['QUERY PLAN'],
    );
    assert.match(agedOut, /"Index Name":"lemmy_posts_ranked"/, agedOut);
    assert.match(agedOut, /"Index Cond":"\(newest_comment_time <=/, agedOut);

    const plan = async (where: string, params: unknown[]) =>
      JSON.stringify(
        (await db.one<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (FORMAT JSON) SELECT id FROM lemmy_posts ${where} ORDER BY hot_rank DESC, published DESC, id DESC LIMIT 20`,
          params,
        ))!['QUERY PLAN'],
      );
    const all = await plan('', []);
    assert.match(all, /"Index Name":"lemmy_posts_hot"/, all);
    assert.doesNotMatch(all, /"Node Type":"Sort"/, all);
    // A community of 600 posts (a sort of a handful of rows would rightly win).
    const one = (await db.one<{ id: number }>('SELECT community_id::int AS id FROM lemmy_posts GROUP BY 1 ORDER BY count(*) DESC LIMIT 1'))!.id;
    const inCommunity = await plan('WHERE community_id = $1', [one]);
    assert.match(inCommunity, /"Index Name":"lemmy_posts_community_hot"/, inCommunity);
    assert.doesNotMatch(inCommunity, /"Node Type":"Sort"/, inCommunity);
  });
});
