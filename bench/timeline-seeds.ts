// The data every timeline scenario of issue 19 reads, written in bulk SQL on top of seedHomeTimeline's 200,000
// statuses (the member follows 5,000 remote accounts): 50 local members with 200 public posts each (local and
// account timelines), a hashtag on one public post in ten (tag timeline), a list of 500 followed accounts, 3,100
// notifications of the four common kinds (favourites and boosts of the member's posts grouped per post and hour as
// the application groups them, follows, mentions) and a thread of 50 replies under one of the member's posts.
// Idempotent per database: a second call finds the list and only issues a new token.
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { seedHomeTimeline } from './seed.js';

export interface TimelineSeed {
  /** Read token of the member (the first user) whose home, list and notifications are read. */
  readonly token: string;
  readonly listId: string;
  readonly tag: string;
  /** A local member with 200 public posts: the account timeline. */
  readonly localAccountId: string;
  /** The root of the 50-reply thread: the context scenario. */
  readonly threadId: string;
}

const LIST_TITLE = 'bench-list';
export const BENCH_TAG = 'benchtag';

export async function seedTimelines(databaseUrl: string): Promise<TimelineSeed> {
  const token = await seedHomeTimeline(databaseUrl);
  const db = new Database(databaseUrl, 1, pino({ level: 'silent' }));
  try {
    const me = (await db.one<{ account_id: string }>('SELECT account_id FROM users ORDER BY id LIMIT 1'))!.account_id;
    if (!(await db.one('SELECT 1 FROM lists WHERE account_id = $1 AND title = $2', [me, LIST_TITLE]))) {
      await db.tx(async (q) => {
        // Local members (password hash unusable on purpose: nobody signs in as them) and their posts.
        await q.query(
          `WITH a AS (INSERT INTO accounts (username, domain) SELECT 'benchlocal' || i, NULL FROM generate_series(1, 50) i RETURNING id, username)
           INSERT INTO users (account_id, email, password_hash) SELECT id, username || '@bench.example', '!' FROM a`,
        );
        await q.query(
          `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
           SELECT timestamp_id(t), id, '<p>local bench status ' || k || '</p>', 0, true, t
           FROM (SELECT a.id, k, now() - random() * interval '30 days' AS t
                 FROM accounts a, generate_series(1, 200) k WHERE a.username LIKE 'benchlocal%' AND a.domain IS NULL) x`,
        );
        // The member's own posts (what the notifications are about), and the thread.
        await q.query(
          `INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
           SELECT timestamp_id(t), $1, '<p>my bench status ' || k || '</p>', 0, true, t
           FROM (SELECT k, now() - (k || ' hours')::interval AS t FROM generate_series(1, 100) k) x`,
          [me],
        );
        await q.query(`INSERT INTO tags (name, key) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [BENCH_TAG]);
        await q.query(
          `INSERT INTO status_tags (status_id, tag_id)
           SELECT s.id, (SELECT id FROM tags WHERE key = $1) FROM statuses s WHERE s.visibility = 0 AND s.reblog_of_id IS NULL AND s.id % 10 = 0`,
          [BENCH_TAG],
        );
        const list = await q.query<{ id: string }>('INSERT INTO lists (account_id, title) VALUES ($1, $2) RETURNING id', [me, LIST_TITLE]);
        await q.query(
          `INSERT INTO list_accounts (list_id, account_id)
           SELECT $1, target_account_id FROM follows WHERE account_id = $2 ORDER BY target_account_id LIMIT 500`,
          [list.rows[0]!.id, me],
        );
        // Favourites (20 per post) and boosts (5 per post) of the member's 100 posts by followed accounts, with the
        // favourite rows behind them; group keys as NotificationStore.notify makes them: <type>-<status>-<hour>.
        const followed = `(SELECT id, uri, row_number() OVER (ORDER BY id) AS n FROM accounts WHERE domain = 'bench-followed.example')`;
        const mine = `(SELECT id, created_at, row_number() OVER (ORDER BY id) AS n FROM statuses WHERE account_id = $1)`;
        await q.query(
          `INSERT INTO favourites (account_id, status_id, created_at)
           SELECT f.id, s.id, s.created_at + (f.n || ' minutes')::interval FROM ${mine} s JOIN ${followed} f ON f.n BETWEEN (s.n * 20) AND (s.n * 20 + 19)`,
          [me],
        );
        for (const [type, per, offset] of [
          ['favourite', 20, 0],
          ['reblog', 5, 3000],
        ] as const) {
          await q.query(
            `INSERT INTO notifications (id, account_id, from_account_id, type, status_id, created_at, group_key)
             SELECT timestamp_id(t), $1, fid, $2, sid, t, $2 || '-' || sid || '-' || floor(extract(epoch FROM t) / 3600)::bigint
             FROM (SELECT f.id AS fid, s.id AS sid, s.created_at + (f.n || ' seconds')::interval AS t
                   FROM ${mine} s JOIN ${followed} f ON f.n BETWEEN (s.n * $3::int + $4::int) AND (s.n * $3::int + $4::int + $3::int - 1)) x`,
            [me, type, per, offset],
          );
        }
        // 300 follows (grouped per hour, as the application groups them) and 300 mentions in public posts.
        await q.query(
          `INSERT INTO notifications (id, account_id, from_account_id, type, created_at, group_key)
           SELECT timestamp_id(t), $1, id, 'follow', t, 'follow-' || floor(extract(epoch FROM t) / 3600)::bigint
           FROM (SELECT id, now() - random() * interval '30 days' AS t FROM accounts WHERE domain = 'bench-other.example' ORDER BY id LIMIT 300) x`,
          [me],
        );
        await q.query(
          `WITH m AS (
             INSERT INTO statuses (id, account_id, uri, content, visibility, local, created_at)
             SELECT timestamp_id(t), id, uri || '/statuses/mention', '<p>@owner hello</p>', 0, false, t
             FROM (SELECT id, uri, now() - random() * interval '30 days' AS t FROM ${followed} f WHERE f.n BETWEEN 4001 AND 4300) x
             RETURNING id, account_id, created_at),
           sm AS (INSERT INTO status_mentions (status_id, account_id) SELECT id, $1 FROM m)
           INSERT INTO notifications (id, account_id, from_account_id, type, status_id, created_at)
           SELECT timestamp_id(created_at), $1, account_id, 'mention', id, created_at FROM m`,
          [me],
        );
        // A thread: the member's post, 30 replies to it from followed accounts, 20 replies to those replies.
        await q.query(
          `WITH root AS (
             INSERT INTO statuses (id, account_id, content, visibility, local, created_at)
             VALUES (timestamp_id(now() - interval '2 hours'), $1, '<p>bench thread</p>', 0, true, now() - interval '2 hours') RETURNING id),
           direct AS (
             INSERT INTO statuses (id, account_id, uri, content, visibility, local, created_at, in_reply_to_id, in_reply_to_account_id)
             SELECT timestamp_id(t), f.id, f.uri || '/statuses/reply', '<p>reply ' || f.n || '</p>', 0, false, t, root.id, $1
             FROM root, (SELECT a.id, a.uri, a.n, now() - interval '100 minutes' + (a.n || ' seconds')::interval AS t
                         FROM (SELECT id, uri, row_number() OVER (ORDER BY id) AS n FROM accounts WHERE domain = 'bench-followed.example') a
                         WHERE a.n BETWEEN 4501 AND 4530) f
             RETURNING id, account_id)
           INSERT INTO statuses (id, account_id, uri, content, visibility, local, created_at, in_reply_to_id, in_reply_to_account_id)
           SELECT timestamp_id(t), f.id, f.uri || '/statuses/reply2', '<p>nested reply</p>', 0, false, t, d.id, d.account_id
           FROM (SELECT id, account_id, row_number() OVER (ORDER BY id) AS n FROM direct) d
           JOIN (SELECT a.id, a.uri, a.n - 4600 AS n, now() - interval '30 minutes' + (a.n || ' seconds')::interval AS t
                 FROM (SELECT id, uri, row_number() OVER (ORDER BY id) AS n FROM accounts WHERE domain = 'bench-followed.example') a
                 WHERE a.n BETWEEN 4601 AND 4620) f ON f.n = d.n`,
          [me],
        );
      });
      await db.exec('VACUUM ANALYZE');
    }
    const ids = (await db.one<{ list: string; local: string; thread: string }>(
      `SELECT (SELECT id FROM lists WHERE account_id = $1 AND title = $2) AS list,
              (SELECT id FROM accounts WHERE username = 'benchlocal1' AND domain IS NULL) AS local,
              (SELECT id FROM statuses WHERE account_id = $1 AND content = '<p>bench thread</p>') AS thread`,
      [me, LIST_TITLE],
    ))!;
    return { token, listId: ids.list, tag: BENCH_TAG, localAccountId: ids.local, threadId: ids.thread };
  } finally {
    await db.close();
  }
}
