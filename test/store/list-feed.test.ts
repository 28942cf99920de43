// The materialised list feeds (migration 057, issue 19): filled by triggers in the writing transaction, read by
// TimelineStore.listTimeline, and never different from the pull query (listPulled), which stays the truth.
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

const newList = async (owner: string, policy = 'list') =>
  (await db.one<{ id: string }>(`INSERT INTO lists (account_id, title, replies_policy) VALUES ($1, 'l', $2) RETURNING id::text`, [owner, policy]))!.id;
const add = (list: string, who: string) => db.exec('INSERT INTO list_accounts (list_id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [list, who]);
const feedRows = async (list: string) =>
  (await db.rows<{ id: string }>('SELECT status_id::text AS id FROM list_feeds WHERE list_id = $1 ORDER BY status_id DESC', [list])).map((r) => r.id);
const ids = (ss: readonly { id: string }[] | undefined | null) => (ss ?? []).map((s) => s.id);

describe('list feed', () => {
  it('backfills a member, takes new posts, drops a member’s posts when they leave, and answers from the feed', async () => {
    const [owner, a, b] = [await account(true), await account(false), await account(false)];
    const old = [await post(a), await post(a, { visibility: 2 })];
    await post(a, { visibility: 3 }); // direct: never on a list
    const list = await newList(owner);
    await add(list, a);
    assert.deepEqual(await feedRows(list), [...old].reverse());
    await add(list, b);
    const fresh = [await post(b, { visibility: 1 }), await post(a)];
    assert.deepEqual(await feedRows(list), [...old, ...fresh].reverse());
    // The private post is a candidate but the owner does not follow its author: the rule leaves it out.
    assert.deepEqual(ids(await timelines.listFromFeed(list, owner, { limit: 20 })), [fresh[1], fresh[0], old[0]]);
    await db.exec('DELETE FROM list_accounts WHERE list_id = $1 AND account_id = $2', [list, a]);
    assert.deepEqual(await feedRows(list), [fresh[0]]);
    assert.deepEqual(ids(await timelines.listTimeline(list, owner, { limit: 20 })), [fresh[0]]);
  });

  it('adds a remote history post only when a delivery promotes it, and goes with its list', async () => {
    const [owner, a] = [await account(true), await account(false)];
    const list = await newList(owner);
    await add(list, a);
    const s = await post(a, { history: true });
    assert.deepEqual(await feedRows(list), []);
    await db.exec('UPDATE statuses SET history = false WHERE id = $1', [s]);
    assert.deepEqual(await feedRows(list), [s]);
    await db.exec('DELETE FROM lists WHERE id = $1', [list]);
    assert.equal((await db.one<{ n: number }>('SELECT count(*)::int AS n FROM list_feeds WHERE list_id = $1', [list]))!.n, 0);
    assert.equal(await timelines.listTimeline(list, owner, { limit: 20 }), undefined);
  });

  it('is nobody else’s: another member asking for the list gets nothing', async () => {
    const [owner, other, a] = [await account(true), await account(true), await account(false)];
    const list = await newList(owner);
    await add(list, a);
    await post(a);
    assert.equal(await timelines.listFromFeed(list, other, { limit: 20 }), undefined);
    assert.equal(await timelines.listTimeline(list, other, { limit: 20 }), undefined);
  });

  it('keeps 800 rows of a big member, and pages below them fall back to the pull query', async () => {
    const [owner, big] = [await account(true), await account(false)];
    await db.exec(
      `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
       SELECT timestamp_id(t), $1, '', 0, false, t FROM (SELECT now() - g * interval '1 minute' AS t FROM generate_series(1, 1000) g) x`,
      [big],
    );
    const list = await newList(owner);
    await add(list, big);
    const feed = await feedRows(list);
    assert.equal(feed.length, 800);
    const horizon = (await db.one<{ h: string }>('SELECT horizon::text AS h FROM list_feed_horizons WHERE list_id = $1', [list]))!.h;
    assert.equal(horizon, feed[799]);
    assert.equal((await timelines.listFromFeed(list, owner, { limit: 40, maxId: feed[700]! }))?.length, 40);
    assert.equal(await timelines.listFromFeed(list, owner, { limit: 40, maxId: feed[790]! }), null);
    const deep = await timelines.listTimeline(list, owner, { limit: 40, maxId: feed[790]! });
    assert.equal(deep?.length, 40);
    assert.deepEqual(ids(deep), ids(await timelines.listPulled(list, owner, { limit: 40, maxId: feed[790]! })));
  });

  it('gives exactly the pull query’s pages over random members, replies, policies, mutes, blocks and deletes', async () => {
    const { rnd, pick } = seeded(57);
    const owners = [await account(true), await account(true)];
    const others = [await account(true), await account(false), await account(false), await account(false), await account(false), await account(false)];
    const everyone = [...owners, ...others];
    const lists: { id: string; owner: string }[] = [];
    for (const o of owners) for (const policy of ['list', 'followed', 'none']) lists.push({ id: await newList(o, policy), owner: o });
    const statuses: { id: string; author: string; visibility: number }[] = [];
    const boosted = new Set<string>();
    // A big account whose older posts fall below a list's horizon once added.
    await db.exec(
      `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
       SELECT timestamp_id(t), $1, '', 0, false, t FROM (SELECT now() - interval '1 day' - g * interval '1 minute' AS t FROM generate_series(1, 900) g) x`,
      [others[5]],
    );
    let vouched = 0;
    let pulled = 0;
    const compare = async (l: { id: string; owner: string }, page: PageQuery) => {
      const fromFeed = await timelines.listFromFeed(l.id, l.owner, page);
      const truth = ids(await timelines.listPulled(l.id, l.owner, page));
      if (fromFeed) {
        vouched++;
        assert.deepEqual(ids(fromFeed), truth, `list ${l.id} page ${JSON.stringify(page)}`);
      } else pulled++;
      assert.deepEqual(ids(await timelines.listTimeline(l.id, l.owner, page)), truth);
      return truth;
    };
    const checkAll = async () => {
      for (const l of lists) await walkPages((page) => compare(l, page), pick([4, 15]));
    };
    for (let step = 0; step < 400; step++) {
      const r = rnd();
      const l = pick(lists);
      if (r < 0.5) {
        const author = pick(everyone);
        const visibility = pick([0, 0, 1, 2, 3]);
        const target = statuses.length && rnd() < 0.25 ? pick(statuses.filter((s) => s.visibility <= 1)) : undefined;
        const reblogOf = target && !boosted.has(`${author}/${target.id}`) ? target.id : undefined;
        if (reblogOf) boosted.add(`${author}/${reblogOf}`);
        const parent = !reblogOf && statuses.length && rnd() < 0.4 ? pick(statuses) : undefined;
        const old = rnd() < 0.1 ? new Date(Date.now() - 2 * 86_400_000 * rnd()) : undefined;
        const history = rnd() < 0.1;
        const id = await post(author, {
          visibility: reblogOf ? 0 : visibility,
          reblogOf,
          history,
          ...(parent ? { replyTo: { id: parent.id, author: parent.author } } : {}),
          ...(old ? { at: old } : {}),
        });
        statuses.push({ id, author, visibility: reblogOf ? 0 : visibility });
        if (history && rnd() < 0.5) await db.exec('UPDATE statuses SET history = false WHERE id = $1', [id]);
      } else if (r < 0.66) await add(l.id, pick(everyone.filter((a) => a !== l.owner)));
      else if (r < 0.71) await db.exec('DELETE FROM list_accounts WHERE list_id = $1 AND account_id = $2', [l.id, pick(everyone)]);
      else if (r < 0.74)
        await db.exec('INSERT INTO follows (account_id, target_account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          l.owner,
          pick(everyone.filter((a) => a !== l.owner)),
        ]);
      else if (r < 0.77) await db.exec('UPDATE lists SET replies_policy = $2 WHERE id = $1', [l.id, pick(['list', 'followed', 'none'])]);
      else if (r < 0.8) {
        const t = pick(everyone.filter((a) => a !== l.owner));
        await db.exec(
          'INSERT INTO mutes (account_id, target_account_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM mutes WHERE account_id = $1 AND target_account_id = $2)',
          [l.owner, t],
        );
      } else if (r < 0.83) {
        const t = pick(everyone.filter((a) => a !== l.owner));
        await db.exec(
          'INSERT INTO blocks (account_id, target_account_id) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE account_id = $1 AND target_account_id = $2)',
          [l.owner, t],
        );
      } else if (r < 0.85) await db.exec('DELETE FROM blocks WHERE account_id = $1', [l.owner]);
      else if (r < 0.91 && statuses.length) await db.exec('UPDATE statuses SET deleted_at = now() WHERE id = $1', [pick(statuses).id]);
      else if (step === 300) await add(lists[0]!.id, others[5]!);
      else if (r < 0.93) await db.exec('SELECT list_feed_trim($1)', [l.id]);
      if (step % 200 === 199) await checkAll();
    }
    await checkAll();
    assert.ok(vouched > 50, `the feed answered ${vouched} pages, pulled ${pulled}`);
    assert.ok(pulled > 0, `the pull query answered ${pulled} pages`);
  });
});
