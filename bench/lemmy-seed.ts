// The link aggregator's data for issue 37's bench, in bulk SQL: 200 communities (remote Group accounts with their
// lemmy_communities rows) and 100,000 posts (statuses by 2,000 remote people, filed in lemmy_posts) spread over the
// last 10 days (so about a third has aged out of Hot), with heavy-tailed scores (a few in the thousands, most under
// ten, one in twenty below zero), comment counts, and 10,000 votes through the vote triggers (2,000 of them the
// signed-in member's, who also follows 20 of the communities). Then one refreshRanks over it all, timed: the work
// the rank refresher does every 10 minutes. Idempotent per database: a second call finds the communities.
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { LinkAggregatorStore } from '../src/store/link-aggregator.js';

export const COMMUNITIES = 200;
export const POSTS = 100_000;
const PEOPLE = 2_000;
const GROUPS = 'bench-lemmy.example';
const PEOPLE_HOST = 'bench-lemmy-people.example';

export interface LemmySeed {
  /** The Lemmy id of a community with about 500 posts. */
  readonly communityId: number;
  /** Milliseconds of one refreshRanks over the seeded posts (null: seeded before, not timed), and the posts it touched. */
  readonly refresh: { readonly ms: number; readonly posts: number } | null;
}

/** Seeds (once) and answers what the scenarios name; `member` is the signed-in reader's account. */
export async function seedLemmy(databaseUrl: string, member: string): Promise<LemmySeed> {
  const db = new Database(databaseUrl, 1, pino({ level: 'silent' }));
  try {
    let refresh: LemmySeed['refresh'] = null;
    const seeded = await db.one<{ n: number }>('SELECT count(*)::int AS n FROM accounts WHERE domain = $1', [GROUPS]);
    if (!seeded?.n) {
      await db.tx(async (q) => {
        await q.query(
          `INSERT INTO accounts (username, domain, uri, url, inbox_url, actor_type, display_name)
           SELECT 'community' || i, $1, 'https://' || $1 || '/c/community' || i, 'https://' || $1 || '/c/community' || i,
                  'https://' || $1 || '/c/community' || i || '/inbox', 'Group', 'Community ' || i
           FROM generate_series(1, $2) i`,
          [GROUPS, COMMUNITIES],
        );
        await q.query(`INSERT INTO lemmy_communities (account_id) SELECT id FROM accounts WHERE domain = $1 ORDER BY id`, [GROUPS]);
        await q.query(
          `INSERT INTO accounts (username, domain, uri, url, inbox_url)
           SELECT 'person' || i, $1, 'https://' || $1 || '/u/person' || i, 'https://' || $1 || '/u/person' || i,
                  'https://' || $1 || '/u/person' || i || '/inbox'
           FROM generate_series(1, $2) i`,
          [PEOPLE_HOST, PEOPLE],
        );
        // Each post's numbers drawn once (a temporary table), then its status and its lemmy_posts row from them.
        await q.query(
          `CREATE TEMP TABLE bench_posts ON COMMIT DROP AS
           SELECT i, timestamp_id(t) AS sid, t, u, CASE WHEN random() < 0.05 THEN u + 1 + floor(random() * 20)::int ELSE floor(random() * u * 0.3)::int END AS d,
                  floor(random() * 60)::int AS comments, least(now(), t + random() * interval '2 days') AS active
           FROM (SELECT i, now() - random() * interval '10 days' AS t, floor(exp(random() * 8))::int - 1 AS u FROM generate_series(1, $1) i) x`,
          [POSTS],
        );
        await q.query(
          `INSERT INTO statuses (id, account_id, uri, url, content, visibility, local, created_at)
           SELECT b.sid, a.id, a.uri || '/post/' || b.i, a.uri || '/post/' || b.i, '<p>bench post ' || b.i || '</p>', 0, false, b.t
           FROM bench_posts b JOIN (SELECT id, uri, row_number() OVER (ORDER BY id) - 1 AS n FROM accounts WHERE domain = $1) a ON a.n = b.i % $2`,
          [PEOPLE_HOST, PEOPLE],
        );
        await q.query(
          `INSERT INTO lemmy_posts (status_id, community_id, name, url, body, published, newest_comment_time, upvotes, downvotes, score, comments)
           SELECT b.sid, c.id, 'Bench post ' || b.i, CASE WHEN b.i % 2 = 0 THEN 'https://news.example/' || b.i END, 'Body of post ' || b.i,
                  b.t, b.active, b.u, b.d, b.u - b.d, b.comments
           FROM bench_posts b JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM lemmy_communities c
                                    WHERE account_id IN (SELECT id FROM accounts WHERE domain = $1)) c ON c.n = b.i % $2`,
          [GROUPS, COMMUNITIES],
        );
        // Votes through the triggers: the member's on 2,000 posts, people's on 8,000 more.
        await q.query(
          `INSERT INTO lemmy_votes (status_id, account_id, score)
           SELECT sid, $1, CASE WHEN i % 7 = 0 THEN -1 ELSE 1 END FROM bench_posts WHERE i % 50 = 0`,
          [member],
        );
        await q.query(
          `INSERT INTO lemmy_votes (status_id, account_id, score)
           SELECT b.sid, a.id, 1 FROM bench_posts b
           JOIN (SELECT id, row_number() OVER (ORDER BY id) AS n FROM accounts WHERE domain = $1) a ON a.n = b.i % 1000 + 1
           WHERE b.i % 50 <> 0 AND b.i % 12 = 1 AND b.i <= 96000`,
          [PEOPLE_HOST],
        );
        await q.query(
          `INSERT INTO follows (account_id, target_account_id) SELECT $1, id FROM accounts WHERE domain = $2 ORDER BY id LIMIT 20 ON CONFLICT DO NOTHING`,
          [member, GROUPS],
        );
      });
      // Statistics first: a table just filled in one transaction has none, and each batch would sort it all.
      await db.exec('ANALYZE');
      const started = performance.now();
      const posts = await new LinkAggregatorStore(db).refreshRanks();
      refresh = { ms: performance.now() - started, posts };
      await db.exec('VACUUM ANALYZE');
    }
    const community = await db.one<{ id: number }>(
      `SELECT c.id::int AS id FROM lemmy_communities c JOIN accounts a ON a.id = c.account_id WHERE a.domain = $1 ORDER BY c.id LIMIT 1`,
      [GROUPS],
    );
    return { communityId: community!.id, refresh };
  } finally {
    await db.close();
  }
}
