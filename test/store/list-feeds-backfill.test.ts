// The list_feeds migration (057) fills each list's feed from what was there before it: its members' newest 800
// candidates (visibility ≤ 2, not remote history, not deleted), with the 800th as the horizon of a list that has that
// many, so that the feed then answers exactly as the pull query does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimelineStore } from '../../src/store/timelines.js';
import { databaseBefore } from '../support/before-migration.js';

describe('list_feeds migration', () => {
  it('fills the feeds of existing lists', async () => {
    const { db, migrateRest } = await databaseBefore('_list_feeds');
    try {
      const [owner, a, big, other] = (
        await db.rows<{ id: string }>(
          `INSERT INTO accounts (username, domain, uri) VALUES ('owner', NULL, NULL), ('a', 'x.example', 'https://x.example/a'),
             ('big', 'x.example', 'https://x.example/big'), ('other', 'x.example', 'https://x.example/other') RETURNING id::text`,
        )
      ).map((r) => r.id);
      await db.exec(`INSERT INTO users (account_id, email, password_hash) VALUES ($1, 'owner@local.example', '!')`, [owner]);
      const small = (await db.one<{ id: string }>(`INSERT INTO lists (account_id, title) VALUES ($1, 'small') RETURNING id::text`, [owner]))!.id;
      const large = (await db.one<{ id: string }>(`INSERT INTO lists (account_id, title) VALUES ($1, 'large') RETURNING id::text`, [owner]))!.id;
      await db.exec('INSERT INTO list_accounts (list_id, account_id) VALUES ($1, $2), ($3, $4), ($3, $2)', [small, a, large, big]);
      await db.exec(
        `INSERT INTO statuses (id, account_id, content, visibility, local, history, deleted_at, created_at)
         SELECT timestamp_id(t), acc, '', vis, false, hist, del, t FROM (VALUES
           ($1::bigint, 0, false, NULL::timestamptz, now() - interval '5 minutes'), ($1, 1, false, NULL, now() - interval '4 minutes'),
           ($1, 3, false, NULL, now() - interval '3 minutes'), ($1, 0, true, NULL, now() - interval '2 minutes'),
           ($1, 0, false, now(), now() - interval '1 minute'), ($2, 0, false, NULL, now())) v(acc, vis, hist, del, t)`,
        [a, other],
      );
      await db.exec(
        `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
         SELECT timestamp_id(t), $1, '', 0, false, t FROM (SELECT now() - interval '1 day' - g * interval '1 minute' AS t FROM generate_series(1, 900) g) x`,
        [big],
      );
      await migrateRest();
      const rows = async (list: string) =>
        (await db.rows<{ id: string }>('SELECT status_id::text AS id FROM list_feeds WHERE list_id = $1 ORDER BY status_id DESC', [list])).map((r) => r.id);
      const aPosts = (
        await db.rows<{ id: string }>(
          'SELECT id::text FROM statuses WHERE account_id = $1 AND visibility <= 2 AND NOT history AND deleted_at IS NULL ORDER BY id DESC',
          [a],
        )
      ).map((r) => r.id);
      assert.equal(aPosts.length, 2, 'the public and the unlisted post: not the direct, the history or the deleted one');
      assert.deepEqual(await rows(small), aPosts);
      const largeRows = await rows(large);
      assert.equal(largeRows.length, 800);
      const horizons = await db.rows<{ list: string; horizon: string }>('SELECT list_id::text AS list, horizon::text FROM list_feed_horizons');
      assert.deepEqual(horizons, [{ list: large, horizon: largeRows[799]! }]);
      const timelines = new TimelineStore(db);
      for (const page of [{ limit: 20 }, { limit: 40, maxId: largeRows[700]! }, { limit: 40, maxId: largeRows[790]! }]) {
        for (const list of [small, large]) {
          const pulled = (await timelines.listPulled(list, owner!, page))!.map((s) => s.id);
          assert.deepEqual(
            (await timelines.listTimeline(list, owner!, page))!.map((s) => s.id),
            pulled,
          );
        }
      }
      assert.notEqual(await timelines.listFromFeed(large, owner!, { limit: 40, maxId: largeRows[700]! }), null, 'the feed answers above its horizon');
    } finally {
      await db.close();
    }
  });
});
