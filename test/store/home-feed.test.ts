// The materialised home feed (migration 054, issue 19): filled by triggers in the writing transaction, read by
// TimelineStore.home, and never different from the pull query (homePulled), which stays the truth.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import type { PageQuery } from '../../src/store/paging.js';
import { TimelineStore } from '../../src/store/timelines.js';
import { freshDatabaseUrl } from '../support/db.js';
import { feedFixtures, seeded, walkPages } from '../support/feed-fixtures.js';

const silent = pino({ level: 'silent' });

let db: Database;
let timelines: TimelineStore;
let account: ReturnType<typeof feedFixtures>['account'];
let post: ReturnType<typeof feedFixtures>['post'];

before(async () => {
  db = new Database(await freshDatabaseUrl(), 2, silent);
  timelines = new TimelineStore(db);
  ({ account, post } = feedFixtures(db));
});
after(() => db.close());

const mention = (status: string, who: string) => db.exec('INSERT INTO status_mentions (status_id, account_id) VALUES ($1, $2)', [status, who]);
const follow = (who: string, target: string) =>
  db.exec('INSERT INTO follows (account_id, target_account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [who, target]);
const feedRows = async (who: string) =>
  (await db.rows<{ id: string }>('SELECT status_id::text AS id FROM home_feeds WHERE account_id = $1 ORDER BY status_id DESC', [who])).map((r) => r.id);
const ids = (ss: readonly { id: string }[]) => ss.map((s) => s.id);

describe('home feed', () => {
  it('backfills a followed account and answers from the feed', async () => {
    const [m, r] = [await account(true), await account(false)];
    const posts = [await post(r), await post(r, { visibility: 1 }), await post(r, { visibility: 2 })];
    await post(r, { visibility: 3 }); // direct, not mentioning m: no candidate
    assert.deepEqual(await feedRows(m), []);
    await follow(m, r);
    assert.deepEqual(await feedRows(m), [...posts].reverse());
    assert.deepEqual(ids((await timelines.homeFromFeed(m, { limit: 20 })) ?? []), [...posts].reverse());
  });

  it('puts a new post in its local followers’ feeds and its author’s, not in a remote follower’s', async () => {
    const [author, f1, f2, remote] = [await account(true), await account(true), await account(true), await account(false)];
    for (const f of [f1, f2, remote]) await follow(f, author);
    const s = await post(author, { visibility: 1 });
    for (const who of [author, f1, f2]) {
      assert.deepEqual(await feedRows(who), [s]);
      assert.deepEqual(ids((await timelines.homeFromFeed(who, { limit: 20 }))!), [s]);
    }
    assert.deepEqual(await feedRows(remote), []);
  });

  it('puts a direct post in its local mentioned accounts’ feeds once mentioned, not in followers’', async () => {
    const [author, mentioned, follower] = [await account(false), await account(true), await account(true)];
    await follow(follower, author);
    const s = await post(author, { visibility: 3 });
    assert.deepEqual(await feedRows(mentioned), []);
    await mention(s, mentioned);
    assert.deepEqual(await feedRows(mentioned), [s]);
    assert.deepEqual(ids((await timelines.home(mentioned, { limit: 20 }))!), [s]);
    assert.deepEqual(await feedRows(follower), []);
  });

  it('adds a remote history post only when a delivery promotes it', async () => {
    const [author, follower] = [await account(false), await account(true)];
    await follow(follower, author);
    const s = await post(author, { history: true });
    assert.deepEqual(await feedRows(follower), []);
    await db.exec('UPDATE statuses SET history = false WHERE id = $1', [s]);
    assert.deepEqual(await feedRows(follower), [s]);
    assert.deepEqual(ids((await timelines.homeFromFeed(follower, { limit: 20 }))!), [s]);
  });

  it('keeps 800 rows of a big account, and pages below them fall back to the pull query', async () => {
    const [m, big] = [await account(true), await account(false)];
    await db.exec(
      `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
       SELECT timestamp_id(t), $1, '', 0, false, t FROM (SELECT now() - g * interval '1 minute' AS t FROM generate_series(1, 1000) g) x`,
      [big],
    );
    await follow(m, big);
    const feed = await feedRows(m);
    assert.equal(feed.length, 800);
    const horizon = (await db.one<{ h: string }>('SELECT horizon::text AS h FROM home_feed_horizons WHERE account_id = $1', [m]))!.h;
    assert.equal(horizon, feed[799]);
    // Just above the horizon the feed answers; a page crossing it or below it is pulled, and nothing is missing.
    assert.equal((await timelines.homeFromFeed(m, { limit: 40, maxId: feed[700]! }))?.length, 40);
    assert.equal(await timelines.homeFromFeed(m, { limit: 40, maxId: feed[790]! }), null);
    assert.equal(await timelines.homeFromFeed(m, { limit: 40, maxId: horizon }), null);
    const deep = await timelines.home(m, { limit: 40, maxId: feed[790]! });
    assert.equal(deep.length, 40);
    assert.deepEqual(ids(deep), ids(await timelines.homePulled(m, { limit: 40, maxId: feed[790]! })));
  });

  it('gives exactly the pull query’s pages over random follows, boosts, mutes, blocks, lists, directs and deletes', async () => {
    const { rnd, pick } = seeded(19);
    const members = [await account(true), await account(true), await account(true), await account(true)];
    const remotes = [await account(false), await account(false), await account(false), await account(false), await account(false)];
    const everyone = [...members, ...remotes];
    const statuses: { id: string; author: string; visibility: number }[] = [];
    const boosted = new Set<string>();
    const lists = new Map<string, string>();
    // A big account whose older posts fall below a member's horizon once followed.
    await db.exec(
      `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
       SELECT timestamp_id(t), $1, '', 0, false, t FROM (SELECT now() - interval '1 day' - g * interval '1 minute' AS t FROM generate_series(1, 900) g) x`,
      [remotes[4]],
    );
    let vouched = 0;
    let pulled = 0;
    const compare = async (m: string, page: PageQuery) => {
      const fromFeed = await timelines.homeFromFeed(m, page);
      const truth = ids(await timelines.homePulled(m, page));
      if (fromFeed) {
        vouched++;
        assert.deepEqual(ids(fromFeed), truth, `member ${m} page ${JSON.stringify(page)}`);
      } else pulled++;
      assert.deepEqual(ids(await timelines.home(m, page)), truth);
      return truth;
    };
    const checkAll = async () => {
      for (const m of members) await walkPages((page) => compare(m, page), pick([10, 40]));
    };
    for (let step = 0; step < 400; step++) {
      const r = rnd();
      const m = pick(members);
      if (r < 0.45) {
        const author = pick(everyone);
        const visibility = pick([0, 0, 1, 2, 3]);
        const target = statuses.length && rnd() < 0.35 ? pick(statuses.filter((s) => s.visibility <= 1)) : undefined;
        const reblogOf = target && !boosted.has(`${author}/${target.id}`) ? target.id : undefined;
        if (reblogOf) boosted.add(`${author}/${reblogOf}`);
        const old = rnd() < 0.1 ? new Date(Date.now() - 2 * 86_400_000 * rnd()) : undefined;
        const history = rnd() < 0.1;
        const id = await post(author, {
          visibility: reblogOf ? 0 : visibility,
          reblogOf,
          history,
          language: pick([null, 'en', 'de']),
          ...(old ? { at: old } : {}),
        });
        if (!reblogOf && visibility === 3) for (const who of everyone) if (rnd() < 0.3) await mention(id, who);
        statuses.push({ id, author, visibility: reblogOf ? 0 : visibility });
        if (history && rnd() < 0.5) await db.exec('UPDATE statuses SET history = false WHERE id = $1', [id]);
      } else if (r < 0.62) await follow(m, pick(everyone.filter((a) => a !== m)));
      else if (r < 0.68) await db.exec('DELETE FROM follows WHERE account_id = $1 AND target_account_id = $2', [m, pick(everyone)]);
      else if (r < 0.72)
        await db.exec(
          'UPDATE follows SET show_reblogs = NOT show_reblogs WHERE id = (SELECT id FROM follows WHERE account_id = $1 ORDER BY random() LIMIT 1)',
          [m],
        );
      else if (r < 0.75)
        await db.exec(`UPDATE follows SET languages = '{en}' WHERE id = (SELECT id FROM follows WHERE account_id = $1 ORDER BY random() LIMIT 1)`, [m]);
      else if (r < 0.79) {
        const t = pick(everyone.filter((a) => a !== m));
        await db.exec(
          'INSERT INTO mutes (account_id, target_account_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM mutes WHERE account_id = $1 AND target_account_id = $2)',
          [m, t],
        );
      } else if (r < 0.82) {
        const t = pick(everyone.filter((a) => a !== m));
        await db.exec(
          'INSERT INTO blocks (account_id, target_account_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE account_id = $1 AND target_account_id = $2)',
          [m, t],
        );
      } else if (r < 0.84) await db.exec('DELETE FROM blocks WHERE account_id = $1', [m]);
      else if (r < 0.87) {
        let list = lists.get(m);
        if (!list) {
          list = (await db.one<{ id: string }>(`INSERT INTO lists (account_id, title, exclusive) VALUES ($1, 'l', true) RETURNING id::text`, [m]))!.id;
          lists.set(m, list);
        }
        await db.exec('INSERT INTO list_accounts (list_id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [list, pick(everyone)]);
      } else if (r < 0.93 && statuses.length) await db.exec('UPDATE statuses SET deleted_at = now() WHERE id = $1', [pick(statuses).id]);
      else if (r < 0.95) await db.exec('UPDATE accounts SET suspended_at = CASE WHEN suspended_at IS NULL THEN now() END WHERE id = $1', [pick(remotes)]);
      else if (r < 0.97) await follow(m, remotes[4]!);
      else await db.exec('SELECT home_feed_trim($1)', [m]);
      if (step % 200 === 199) await checkAll();
    }
    await checkAll();
    assert.ok(vouched > 50, `the feed answered ${vouched} pages`);
    assert.ok(pulled > 0, `the pull query answered ${pulled} pages`);
  });

  // Followed hashtags (migration 063): a tag linked to a post, a tag followed or unfollowed, a promoted history post
  // and a tag with more posts than a feed keeps, among the follows, mutes, blocks, silences and deletes above.
  it('gives exactly the pull query’s pages over random followed tags', async () => {
    const { rnd, pick } = seeded(63);
    const members = [await account(true), await account(true), await account(true)];
    const remotes = [await account(false), await account(false), await account(false), await account(false)];
    const everyone = [...members, ...remotes];
    const tags: string[] = [];
    for (const name of ['t63a', 't63b', 't63c', 't63big'])
      tags.push((await db.one<{ id: string }>('INSERT INTO tags (name, key) VALUES ($1, $1) RETURNING id::text', [name]))!.id);
    const big = tags[3]!;
    const tag = (status: string, t: string) => db.exec('INSERT INTO status_tags (status_id, tag_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [status, t]);
    // A busy tag: 900 older public posts, so that following it raises the member's horizon.
    await db.exec(
      `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
       SELECT timestamp_id(t), $1, '', 0, false, t FROM (SELECT now() - interval '1 day' - g * interval '1 minute' AS t FROM generate_series(1, 900) g) x`,
      [remotes[3]],
    );
    await db.exec(`INSERT INTO status_tags (status_id, tag_id) SELECT id, $2 FROM statuses WHERE account_id = $1`, [remotes[3], big]);
    const statuses: { id: string; visibility: number }[] = [];
    const boosted = new Set<string>();
    let vouched = 0;
    const compare = async (m: string, page: PageQuery) => {
      const fromFeed = await timelines.homeFromFeed(m, page);
      const truth = ids(await timelines.homePulled(m, page));
      if (fromFeed) {
        vouched++;
        assert.deepEqual(ids(fromFeed), truth, `member ${m} page ${JSON.stringify(page)}`);
      }
      return truth;
    };
    let shownByTag = 0;
    const checkAll = async () => {
      for (const m of members) {
        await walkPages((page) => compare(m, page), pick([10, 40]));
        // Posts in m's home only through a followed tag: the case this test is about must occur.
        const r = await db.one<{ n: number }>(
          `SELECT count(*)::int AS n FROM home_feeds hf JOIN statuses s ON s.id = hf.status_id
           WHERE hf.account_id = $1 AND s.account_id <> $1 AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = $1 AND f.target_account_id = s.account_id)`,
          [m],
        );
        shownByTag += r!.n;
      }
    };
    for (let step = 0; step < 300; step++) {
      const r = rnd();
      const m = pick(members);
      if (r < 0.45) {
        const author = pick(everyone);
        const candidate = statuses.length && rnd() < 0.2 ? pick(statuses.filter((x) => x.visibility === 0)) : undefined;
        const target = candidate && !boosted.has(`${author}/${candidate.id}`) ? candidate : undefined;
        if (target) boosted.add(`${author}/${target.id}`);
        const visibility = target ? 0 : pick([0, 0, 0, 1, 2, 3]);
        const history = rnd() < 0.1;
        const id = await post(author, { visibility, history, reblogOf: target?.id, ...(rnd() < 0.1 ? { at: new Date(Date.now() - 86_400_000 * rnd()) } : {}) });
        // A boost carries no tags of its own; tagging one anyway must not put it in a tag follower's home.
        for (const t of tags) if (rnd() < 0.3) await tag(id, t);
        statuses.push({ id, visibility });
        if (history && rnd() < 0.5) await db.exec('UPDATE statuses SET history = false WHERE id = $1', [id]);
      } else if (r < 0.55 && statuses.length)
        await tag(pick(statuses).id, pick(tags)); // an edit adds a tag
      else if (r < 0.68)
        await db.exec('INSERT INTO tag_follows (account_id, tag_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [m, rnd() < 0.15 ? big : pick(tags.slice(0, 3))]);
      else if (r < 0.74) await db.exec('DELETE FROM tag_follows WHERE account_id = $1 AND tag_id = $2', [m, pick(tags)]);
      else if (r < 0.78) await follow(m, pick(everyone.filter((a) => a !== m)));
      else if (r < 0.82)
        await db.exec(
          'INSERT INTO mutes (account_id, target_account_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM mutes WHERE account_id = $1 AND target_account_id = $2)',
          [m, pick(everyone.filter((a) => a !== m))],
        );
      else if (r < 0.85)
        await db.exec(
          'INSERT INTO blocks (account_id, target_account_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE account_id = $1 AND target_account_id = $2)',
          [m, pick(everyone.filter((a) => a !== m))],
        );
      else if (r < 0.88) await db.exec('DELETE FROM blocks WHERE account_id = $1', [m]);
      else if (r < 0.92) await db.exec('UPDATE accounts SET silenced_at = CASE WHEN silenced_at IS NULL THEN now() END WHERE id = $1', [pick(remotes)]);
      else if (r < 0.96 && statuses.length) await db.exec('UPDATE statuses SET deleted_at = now() WHERE id = $1', [pick(statuses).id]);
      else await db.exec('SELECT home_feed_trim($1)', [m]);
      if (step % 150 === 149) await checkAll();
    }
    await checkAll();
    assert.ok(vouched > 30, `the feed answered ${vouched} pages`);
    assert.ok(shownByTag > 0, 'some posts came by a followed tag alone');
  });
});
