// The account_counts migration (053) counts what was there before it: follows on both sides, live statuses that are
// not direct (boosts included) and the newest of them, as the pages used to count them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseBefore } from '../support/before-migration.js';

describe('account_counts migration', () => {
  it('backfills the counts of existing accounts', async () => {
    const { db, migrateRest } = await databaseBefore('_account_counts');
    try {
      const [a, b, c] = (
        await db.rows<{ id: string }>(
          `INSERT INTO accounts (username, domain, uri) VALUES ('a', 'x.example', 'https://x.example/a'), ('b', 'x.example', 'https://x.example/b'),
             ('c', 'x.example', 'https://x.example/c') RETURNING id::text`,
        )
      ).map((r) => r.id);
      await db.exec('INSERT INTO follows (account_id, target_account_id) VALUES ($1, $2), ($3, $2), ($2, $1)', [a, b, c]);
      const status = async (visibility: number, createdAt: string, deleted = false) =>
        (await db.one<{ id: string }>(
          `INSERT INTO statuses (account_id, content, visibility, local, created_at, deleted_at) VALUES ($1, '', $2, false, $3, $4) RETURNING id::text`,
          [b, visibility, createdAt, deleted ? new Date() : null],
        ))!.id;
      const post = await status(0, '2024-01-01T00:00:00Z');
      await status(2, '2024-01-02T00:00:00Z');
      await status(3, '2024-01-05T00:00:00Z'); // direct: not counted
      await status(0, '2024-01-06T00:00:00Z', true); // deleted: not counted
      await db.exec(
        `INSERT INTO statuses (account_id, content, visibility, local, reblog_of_id, created_at) VALUES ($1, '', 0, false, $2, '2024-01-03T00:00:00Z')`,
        [b, post],
      );
      await migrateRest();
      const rows = await db.rows(
        'SELECT account_id::text AS id, followers, following, statuses, last_status_at FROM account_counts WHERE account_id = ANY($1::bigint[]) ORDER BY account_id',
        [[a, b, c]],
      );
      assert.deepEqual(rows, [
        { id: a, followers: 1, following: 1, statuses: 0, last_status_at: null },
        { id: b, followers: 2, following: 1, statuses: 3, last_status_at: new Date('2024-01-03T00:00:00Z') },
        { id: c, followers: 0, following: 1, statuses: 0, last_status_at: null },
      ]);
    } finally {
      await db.close();
    }
  });
});
