// The status_counts migration (049) counts what was there before it: replies, boosts, favourites and quotes of
// statuses written under the earlier schema, as the pages used to count them (live boosts; live public and unlisted
// replies and quotes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseBefore } from '../support/before-migration.js';

describe('status_counts migration', () => {
  it('backfills the counts of existing statuses', async () => {
    const { db, migrateRest } = await databaseBefore('_status_counts');
    try {
      const [a, b] = (
        await db.rows<{ id: string }>(
          "INSERT INTO accounts (username, domain, uri) VALUES ('a', 'x.example', 'https://x.example/a'), ('b', 'x.example', 'https://x.example/b') RETURNING id::text",
        )
      ).map((r) => r.id);
      const status = async (fields: Record<string, unknown>) =>
        (
          await db.one<{ id: string }>(
            `INSERT INTO statuses (account_id, content, visibility, local, in_reply_to_id, reblog_of_id, quote_of_id, deleted_at)
             VALUES ($1, '', $2, false, $3, $4, $5, $6) RETURNING id::text`,
            [
              fields['by'] ?? b,
              fields['visibility'] ?? 0,
              fields['reply'] ?? null,
              fields['boost'] ?? null,
              fields['quote'] ?? null,
              fields['deleted'] ?? null,
            ],
          )
        )?.id;
      const post = (await status({ by: a }))!;
      await status({ reply: post });
      await status({ reply: post, visibility: 1 });
      await status({ reply: post, visibility: 2 }); // followers-only: not counted
      await status({ reply: post, deleted: new Date() }); // deleted: not counted
      await status({ boost: post });
      await status({ boost: post, deleted: new Date() });
      await status({ quote: post });
      await db.exec('INSERT INTO favourites (account_id, status_id) VALUES ($1, $3), ($2, $3)', [a, b, post]);
      await migrateRest();
      const row = await db.one('SELECT replies, reblogs, favourites, quotes FROM status_counts WHERE status_id = $1', [post]);
      assert.deepEqual(row, { replies: 2, reblogs: 1, favourites: 2, quotes: 1 });
    } finally {
      await db.close();
    }
  });
});
