// Home-feed fan-out as a job (migration 078, issue 39): past the threshold of local followers a post's followers' rows
// are written by batches of a leased job, and meanwhile the home feed never vouches for a page the job may still
// change: every page read from the feed equals the pull query's, pending jobs or not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { FollowStore } from '../../src/store/follows.js';
import { HomeFeedJobStore } from '../../src/store/home-feed-jobs.js';
import type { PageQuery } from '../../src/store/paging.js';
import { TimelineStore } from '../../src/store/timelines.js';
import { freshDatabaseUrl } from '../support/db.js';
import { feedFixtures, seeded, walkPages } from '../support/feed-fixtures.js';

const silent = pino({ level: 'silent' });
const LEASE_MS = 60_000;

let db: Database;
let jobs: HomeFeedJobStore;
let timelines: TimelineStore;
let account: ReturnType<typeof feedFixtures>['account'];
let post: ReturnType<typeof feedFixtures>['post'];

before(async () => {
  // Posts are written on connections whose threshold is 2 local followers, as HOME_FANOUT_THRESHOLD=2 would.
  db = new Database(await freshDatabaseUrl(), 3, silent, { home_fan_out_threshold: 2 });
  jobs = new HomeFeedJobStore(db);
  timelines = new TimelineStore(db);
  ({ account, post } = feedFixtures(db));
});
after(() => db.close());

const follow = (who: string, target: string) =>
  db.exec('INSERT INTO follows (account_id, target_account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [who, target]);
const feedRows = async (who: string) =>
  (await db.rows<{ id: string }>('SELECT status_id::text AS id FROM home_feeds WHERE account_id = $1 ORDER BY status_id DESC', [who])).map((r) => r.id);
/** The pending jobs of `author`'s posts, or of everyone's. */
const pending = async (author?: string) =>
  (
    await db.rows<{ id: string }>('SELECT status_id::text AS id FROM home_feed_jobs WHERE $1::bigint IS NULL OR author_id = $1 ORDER BY status_id', [
      author ?? null,
    ])
  ).map((r) => r.id);
const ids = (ss: readonly { id: string }[]) => ss.map((s) => s.id);

describe('home feed fan-out jobs', () => {
  it('queues a job for an author past the threshold, and its batches write the followers’ rows', async () => {
    const author = await account(true);
    const followers: string[] = [];
    for (let i = 0; i < 5; i++) followers.push(await account(true));
    for (const f of followers) await follow(f, author);
    await follow(await account(false), author); // a remote follower: counted by no one, given no row
    const s = await post(author, { visibility: 1 });
    assert.deepEqual(await pending(author), [s]);
    assert.deepEqual(await feedRows(author), [s], 'the author’s own row is written at once');
    for (const f of followers) {
      assert.deepEqual(await feedRows(f), []);
      assert.deepEqual(ids(await timelines.home(f, { limit: 20 })), [s], 'the pull query shows it meanwhile');
      assert.equal(await timelines.homeFromFeed(f, { limit: 20, sinceId: String(BigInt(s) - 1n) }), null, 'the feed does not vouch for it');
    }
    assert.equal(await jobs.claim('n1', LEASE_MS), s);
    assert.equal(await jobs.claim('n2', LEASE_MS), null, 'a held job is not taken twice');
    const outcomes = [];
    for (let o = 'more'; o === 'more'; ) outcomes.push((o = await jobs.batch(s, 'n1', 2, LEASE_MS)));
    assert.deepEqual(outcomes, ['more', 'more', 'more', 'done']);
    assert.deepEqual(await pending(author), []);
    for (const f of followers) {
      assert.deepEqual(await feedRows(f), [s]);
      assert.deepEqual(ids((await timelines.homeFromFeed(f, { limit: 20 }))!), [s]);
    }
  });

  it('leaves an author at the threshold to the posting transaction', async () => {
    const author = await account(true);
    const followers = [await account(true), await account(true)];
    for (const f of followers) await follow(f, author);
    const s = await post(author);
    assert.deepEqual(await pending(author), []);
    for (const f of followers) assert.deepEqual(await feedRows(f), [s]);
  });

  it('resumes a job from its last committed batch when its holder is gone, and the old holder writes no more', async () => {
    const author = await account(true);
    const followers: string[] = [];
    for (let i = 0; i < 6; i++) followers.push(await account(true));
    for (const f of followers) await follow(f, author);
    const s = await post(author);
    assert.equal(await jobs.claim('gone', LEASE_MS), s);
    assert.equal(await jobs.batch(s, 'gone', 2, LEASE_MS), 'more');
    const cursor = (await db.one<{ c: string }>('SELECT after_follow::text AS c FROM home_feed_jobs WHERE status_id = $1', [s]))!.c;
    assert.deepEqual(await Promise.all(followers.map(async (f) => (await feedRows(f)).length)), [1, 1, 0, 0, 0, 0]);
    // The node died: its lease is given back (leases.ts) and another node takes the job where it was.
    await db.exec(`UPDATE home_feed_jobs SET lease_owner = NULL, lease_until = NULL WHERE status_id = $1`, [s]);
    assert.equal(await jobs.claim('alive', LEASE_MS), s);
    assert.equal((await db.one<{ c: string }>('SELECT after_follow::text AS c FROM home_feed_jobs WHERE status_id = $1', [s]))!.c, cursor);
    assert.equal(await jobs.batch(s, 'gone', 2, LEASE_MS), 'lost', 'a batch of the old holder is refused');
    assert.equal(await jobs.batch(s, 'alive', 2, LEASE_MS), 'more');
    assert.equal(await jobs.batch(s, 'alive', 2, LEASE_MS), 'more');
    assert.equal(await jobs.batch(s, 'alive', 2, LEASE_MS), 'done');
    for (const f of followers) assert.deepEqual(await feedRows(f), [s]);
  });

  it('drops the job of a status deleted before its fan-out', async () => {
    const author = await account(true);
    for (let i = 0; i < 3; i++) await follow(await account(true), author);
    const s = await post(author);
    await db.exec('UPDATE statuses SET deleted_at = now() WHERE id = $1', [s]);
    assert.equal(await jobs.claim('n1', LEASE_MS), s);
    assert.equal(await jobs.batch(s, 'n1', 100, LEASE_MS), 'done');
    assert.deepEqual(await pending(author), []);
  });

  it('marks each follow by a remote account, for a post’s inboxes to be read from the remote follows only (migration 079)', async () => {
    const author = await account(true);
    const remotes = [await account(false), await account(false), await account(false)];
    await db.exec(`UPDATE accounts SET inbox_url = 'https://remote.example/' || username || '/inbox' WHERE id = ANY($1::bigint[])`, [remotes]);
    for (const r of remotes) await follow(r, author);
    const locals = [await account(true), await account(true)];
    for (const l of locals) await follow(l, author);
    const marked = async () =>
      (
        await db.rows<{ id: string }>('SELECT account_id::text AS id FROM follows WHERE target_account_id = $1 AND follower_remote ORDER BY account_id', [
          author,
        ])
      ).map((r) => r.id);
    assert.deepEqual(await marked(), [...remotes].sort());
    assert.equal((await new FollowStore(db).followerInboxes(author)).length, 3);
    // An account's domain does not change in practice; if it did, its follows would follow.
    await db.exec(`UPDATE accounts SET domain = 'moved.example' WHERE id = $1`, [locals[0]]);
    assert.deepEqual(await marked(), [...remotes, locals[0]!].sort());
  });

  it('gives exactly the pull query’s pages while jobs are pending, over random posts, follows, blocks, deletes and batches', async () => {
    const { rnd, pick } = seeded(39);
    const members: string[] = [];
    for (let i = 0; i < 6; i++) members.push(await account(true));
    const remotes = [await account(false), await account(false)];
    const everyone = [...members, ...remotes];
    // Two accounts most members follow: their posts are jobs (threshold 2), while the others' are written at once.
    for (const m of members.slice(0, 5)) for (const big of [members[5]!, remotes[0]!]) if (m !== big) await follow(m, big);
    const statuses: string[] = [];
    const held = new Map<string, string>();
    let vouched = 0;
    let whilePending = 0;
    const compare = async (m: string, page: PageQuery) => {
      const fromFeed = await timelines.homeFromFeed(m, page);
      const truth = ids(await timelines.homePulled(m, page));
      if (fromFeed) {
        vouched++;
        assert.deepEqual(ids(fromFeed), truth, `member ${m} page ${JSON.stringify(page)}`);
      }
      assert.deepEqual(ids(await timelines.home(m, page)), truth);
      return truth;
    };
    const checkAll = async () => {
      for (const m of members) {
        const waiting = await db.one<{ n: number }>(
          `SELECT count(*)::int AS n FROM home_feed_jobs j JOIN follows f ON f.target_account_id = j.author_id AND f.account_id = $1`,
          [m],
        );
        if (waiting!.n > 0) whilePending++;
        await walkPages((page) => compare(m, page), pick([5, 20]));
      }
    };
    const batch = async () => {
      const owner = pick(['n1', 'n2']);
      const job = held.get(owner) ?? (await jobs.claim(owner, LEASE_MS));
      if (!job) return;
      const outcome = await jobs.batch(job, owner, pick([1, 2, 3]), LEASE_MS);
      if (outcome === 'more') held.set(owner, job);
      else held.delete(owner);
    };
    for (let step = 0; step < 500; step++) {
      const r = rnd();
      const m = pick(members);
      if (r < 0.35) {
        const author = rnd() < 0.5 ? pick([members[5]!, remotes[0]!]) : pick(everyone);
        const old = rnd() < 0.1 ? new Date(Date.now() - 86_400_000 * rnd()) : undefined;
        statuses.push(await post(author, { visibility: pick([0, 0, 1, 2, 3]), language: pick([null, 'en']), ...(old ? { at: old } : {}) }));
      } else if (r < 0.5) await batch();
      else if (r < 0.6) await follow(m, pick(everyone.filter((a) => a !== m)));
      else if (r < 0.65) await db.exec('DELETE FROM follows WHERE account_id = $1 AND target_account_id = $2', [m, pick(everyone)]);
      else if (r < 0.7)
        await db.exec(
          'INSERT INTO blocks (account_id, target_account_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE account_id = $1 AND target_account_id = $2)',
          [m, pick(everyone.filter((a) => a !== m))],
        );
      else if (r < 0.73) await db.exec('DELETE FROM blocks WHERE account_id = $1', [m]);
      else if (r < 0.77)
        await db.exec(
          'INSERT INTO mutes (account_id, target_account_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM mutes WHERE account_id = $1 AND target_account_id = $2)',
          [m, pick(everyone.filter((a) => a !== m))],
        );
      else if (r < 0.83 && statuses.length) await db.exec('UPDATE statuses SET deleted_at = now() WHERE id = $1', [pick(statuses)]);
      else if (r < 0.86) {
        // A node died mid-job: its leases run out, and the other owner takes its jobs.
        await db.exec(`UPDATE home_feed_jobs SET lease_until = now() - interval '1 second'`);
        held.clear();
      } else if (r < 0.88) await db.exec('SELECT home_feed_trim($1)', [m]);
      if (step % 25 === 24) await checkAll();
    }
    await checkAll();
    assert.ok(whilePending > 10, `pages were compared with a job pending ${whilePending} times`);
    assert.ok(vouched > 50, `the feed answered ${vouched} pages`);
    // Every job finishes, and then the feed answers the newest page of every member.
    await db.exec(`UPDATE home_feed_jobs SET lease_until = NULL, lease_owner = NULL`);
    for (let job = await jobs.claim('n1', LEASE_MS); job; job = await jobs.claim('n1', LEASE_MS)) while ((await jobs.batch(job, 'n1', 2, LEASE_MS)) === 'more');
    assert.deepEqual(await pending(), []);
    await checkAll();
  });
});
