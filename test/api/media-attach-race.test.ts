// Two posts naming the same upload at the same instant: one is stored with it, the other refused with 422 and
// nothing of it stored. And the narrower window: an upload taken by another status after the post checked it but
// before it attached it (held open here with the row locked, so the order is certain) is refused the same way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { api } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startServerWithDataDir, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('two posts using one upload at once', () => {
  let s: TestServer & { readonly dataDir: string };
  let m: LocalMembers;

  before(async () => {
    s = await startServerWithDataDir();
    m = await createMembers(s, ['ann']);
  });
  after(() => s.stop());

  const post = (text: string, mediaIds: string[]) => api(s.url, m.token['ann'], 'POST', '/api/v1/statuses', { status: text, media_ids: mediaIds });
  const ownStatuses = async () => (await api(s.url, m.token['ann'], 'GET', `/api/v1/accounts/${m.id['ann']}/statuses?limit=40`)).body;

  it('two posts at once: the first is stored with it, the second is refused with 422 and stores nothing', async () => {
    const media = await upload(s.url, m.token['ann'], png(8, 8));
    assert.equal(media.status, 200);
    const before = (await ownStatuses()).length;
    const answers = await Promise.all([post('first', [media.body.id]), post('second', [media.body.id])]);
    const stored = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 422);
    assert.equal(stored.length, 1, JSON.stringify(answers.map((a) => [a.status, a.body])));
    assert.equal(refused.length, 1);
    assert.deepEqual(
      stored[0]!.body.media_attachments.map((a: { id: string }) => a.id),
      [media.body.id],
    );
    assert.match(refused[0]!.body.error, /media_ids must name your own uploads/);
    assert.equal((await ownStatuses()).length, before + 1, 'the refused post left nothing behind');
  });

  it('an upload taken between the check and the attach (by another status, committed meanwhile): 422, nothing stored', async () => {
    // One member's posts take turns at their insert, so two posts through the API never reach this window; a
    // status that takes the upload while the post waits on its row is what the attach must still refuse.
    const media = await upload(s.url, m.token['ann'], png(8, 8));
    const other = await post('the other status', []);
    assert.equal(other.status, 200);
    const before = (await ownStatuses()).length;
    const holder = new pg.Client({ connectionString: s.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM media_attachments WHERE id = $1 FOR UPDATE', [media.body.id]);
      const late = post('too late', [media.body.id]);
      // The post found the upload free (the taking is not committed) and now waits on its row to attach it.
      await eventually(async () => {
        // Inside a transaction PostgreSQL answers pg_stat_activity from one snapshot unless it is cleared.
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await holder.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE media_attachments m SET status_id%'",
        );
        assert.equal(rows[0]!.n, 1);
      });
      await holder.query('UPDATE media_attachments SET status_id = $2, position = 1 WHERE id = $1', [media.body.id, other.body.id]);
      await holder.query('COMMIT');
      const answer = await late;
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.match(answer.body.error, /media_ids must name your own uploads/);
    } finally {
      await holder.end();
    }
    const now = await ownStatuses();
    assert.equal(now.length, before, 'the refused post left nothing behind');
    assert.equal(now.find((x: { id: string }) => x.id === other.body.id).media_attachments[0].id, media.body.id);
  });
});
