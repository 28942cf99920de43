// Replies, boosts, favourites and quotes are kept in status_counts in the transaction of the act (issue 19), not
// counted per page: right under concurrent favourites and boosts, after undoing them, after deleting replies, quotes
// and boosts, and for replies that do not count (followers-only). Each check compares the API's figures, the table,
// and a count made afresh from the rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const FANS = ['f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8'];

describe('status counts', () => {
  let s: TestServer;
  let m: LocalMembers;
  let postId: string;

  const call = async (who: string, method: string, path: string, body?: unknown) => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body as Json;
  };
  const counts = async () => {
    const b = await call('author', 'GET', `/api/v1/statuses/${postId}`);
    return { replies: b.replies_count, reblogs: b.reblogs_count, favourites: b.favourites_count, quotes: b.quotes_count };
  };
  /** Statuses whose kept counts differ from a count of the rows, as the pages used to count them. */
  const drifted = () =>
    s.app.db.rows(
      `SELECT t.id::text, c.replies, c.reblogs, c.favourites, c.quotes, x.* FROM statuses t
       LEFT JOIN status_counts c ON c.status_id = t.id
       CROSS JOIN LATERAL (SELECT
         (SELECT count(*)::int FROM statuses r WHERE r.in_reply_to_id = t.id AND r.deleted_at IS NULL AND r.visibility <= 1) AS true_replies,
         (SELECT count(*)::int FROM statuses r WHERE r.reblog_of_id = t.id AND r.deleted_at IS NULL) AS true_reblogs,
         (SELECT count(*)::int FROM favourites f WHERE f.status_id = t.id) AS true_favourites,
         (SELECT count(*)::int FROM statuses r WHERE r.quote_of_id = t.id AND r.deleted_at IS NULL AND r.visibility <= 1) AS true_quotes) x
       WHERE (coalesce(c.replies, 0), coalesce(c.reblogs, 0), coalesce(c.favourites, 0), coalesce(c.quotes, 0))
         <> (x.true_replies, x.true_reblogs, x.true_favourites, x.true_quotes)`,
    );

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['author', ...FANS]);
    postId = (await call('author', 'POST', '/api/v1/statuses', { status: 'count me', visibility: 'public' })).id;
  });
  after(() => s?.stop());

  it('counts concurrent favourites and boosts, and their undoing', async () => {
    await Promise.all(FANS.map((f) => call(f, 'POST', `/api/v1/statuses/${postId}/favourite`)));
    await Promise.all(FANS.slice(0, 5).map((f) => call(f, 'POST', `/api/v1/statuses/${postId}/reblog`)));
    assert.deepEqual(await counts(), { replies: 0, reblogs: 5, favourites: 8, quotes: 0 });
    await Promise.all(FANS.slice(0, 3).map((f) => call(f, 'POST', `/api/v1/statuses/${postId}/unfavourite`)));
    await Promise.all(FANS.slice(0, 2).map((f) => call(f, 'POST', `/api/v1/statuses/${postId}/unreblog`)));
    assert.deepEqual(await counts(), { replies: 0, reblogs: 3, favourites: 5, quotes: 0 });
    assert.deepEqual(await drifted(), []);
  });

  it('counts replies and quotes, and forgets them when deleted', async () => {
    const replies = await Promise.all(
      FANS.slice(0, 4).map(
        async (f) => (await call(f, 'POST', '/api/v1/statuses', { status: '@author yes', in_reply_to_id: postId, visibility: 'public' })).id,
      ),
    );
    // A followers-only reply is not counted, as Mastodon counts only what anyone may see.
    await call('f5', 'POST', '/api/v1/statuses', { status: '@author quietly', in_reply_to_id: postId, visibility: 'private' });
    const quotes = await Promise.all(
      FANS.slice(4, 7).map(async (f) => (await call(f, 'POST', '/api/v1/statuses', { status: 'look', quoted_status_id: postId, visibility: 'public' })).id),
    );
    assert.deepEqual(await counts(), { replies: 4, reblogs: 3, favourites: 5, quotes: 3 });
    await call('f1', 'DELETE', `/api/v1/statuses/${replies[0]}`);
    await call('f5', 'DELETE', `/api/v1/statuses/${quotes[0]}`);
    // A booster deleting their boost (a status row) takes it off the count as unreblog does.
    const boosts = await s.app.db.rows<{ id: string }>('SELECT id::text FROM statuses WHERE reblog_of_id = $1 AND deleted_at IS NULL AND account_id = $2', [
      postId,
      m.id['f3'],
    ]);
    await call('f3', 'DELETE', `/api/v1/statuses/${boosts[0]!.id}`);
    assert.deepEqual(await counts(), { replies: 3, reblogs: 2, favourites: 5, quotes: 2 });
    assert.deepEqual(await drifted(), []);
  });

  it('reads the counts from the table, not from the rows, on every page', async () => {
    await s.app.db.exec('UPDATE status_counts SET favourites = favourites + 100 WHERE status_id = $1', [postId]);
    try {
      assert.equal((await counts()).favourites, 105);
      const page = (await call('author', 'GET', `/api/v1/accounts/${m.id['author']}/statuses`)) as Json[];
      assert.equal(page.find((x) => x.id === postId)?.favourites_count, 105);
    } finally {
      await s.app.db.exec('UPDATE status_counts SET favourites = favourites - 100 WHERE status_id = $1', [postId]);
    }
  });
});
