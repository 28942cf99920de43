// What /api/v1/instance/peers, /api/v1/peers/search and /api/v1/instance/activity show: the servers we know (Mastodon's
// Instance.searchable: every domain we have an account of, less the ones the operator blocked) and twelve weeks of
// local activity. Mastodon counts activity in Redis as it happens; here it is counted from the tables: statuses
// posted here (by their time-ordered ids, deleted ones included, as a counter would have them), registrations (users
// created) and logins (members who signed in or used a token that week, as far as the last sign-in and each token's
// last use still tell).
import type { Database } from './db.js';
import { domainCovers } from './visibility.js';

export interface ActivityWeek {
  /** Monday 00:00 UTC starting the week. */
  readonly week: Date;
  readonly statuses: number;
  readonly logins: number;
  readonly registrations: number;
}

export class InstanceActivityStore {
  constructor(private readonly db: Database) {}

  /**
   * The known domains, by a skip scan of the accounts_domain index (one probe a domain, not a read of every account:
   * anyone may ask), less the blocked ones.
   */
  async peers(): Promise<string[]> {
    const rows = await this.db.rows<{ domain: string }>(
      `WITH RECURSIVE d AS (
         (SELECT lower(a.domain) AS domain FROM accounts a WHERE lower(a.domain) IS NOT NULL ORDER BY lower(a.domain) LIMIT 1)
         UNION ALL
         SELECT (SELECT lower(a.domain) FROM accounts a WHERE lower(a.domain) > d.domain ORDER BY lower(a.domain) LIMIT 1)
           FROM d WHERE d.domain IS NOT NULL)
       SELECT d.domain FROM d
        WHERE d.domain IS NOT NULL AND NOT EXISTS (SELECT 1 FROM domain_blocks b WHERE ${domainCovers('d.domain', 'b.domain')})
        ORDER BY 1`,
    );
    return rows.map((r) => r.domain);
  }

  /**
   * Up to `limit` of the peers whose domain starts with `prefix` (lower case), those we know most accounts of first
   * (Mastodon's peers search: Instance.searchable.domain_starts_with, ranked by accounts_count where it has a search index).
   */
  async searchPeers(prefix: string, limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ domain: string }>(
      `SELECT lower(a.domain) AS domain FROM accounts a
        WHERE a.domain IS NOT NULL AND starts_with(lower(a.domain), $1)
          AND NOT EXISTS (SELECT 1 FROM domain_blocks b WHERE ${domainCovers('a.domain', 'b.domain')})
        GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT $2`,
      [prefix, limit],
    );
    return rows.map((r) => r.domain);
  }

  /** The last twelve weeks, this one first. */
  async weeks(now: Date): Promise<ActivityWeek[]> {
    const rows = await this.db.rows<{ week: Date; statuses: number; logins: number; registrations: number }>(
      `WITH w AS (
         SELECT date_trunc('week', $1::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(weeks => i) AS start
           FROM generate_series(0, 11) i
       )
       SELECT w.start AS week,
              (SELECT count(*)::int FROM statuses s WHERE s.local
                  AND s.id >= (floor(extract(epoch FROM w.start) * 1000)::bigint << 16)
                  AND s.id < (floor(extract(epoch FROM w.start + interval '1 week') * 1000)::bigint << 16)) AS statuses,
              (SELECT count(DISTINCT u.id)::int FROM users u
                WHERE u.last_sign_in_at >= w.start AND u.last_sign_in_at < w.start + interval '1 week'
                   OR EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.user_id = u.id
                                 AND t.last_used_at >= w.start AND t.last_used_at < w.start + interval '1 week')) AS logins,
              (SELECT count(*)::int FROM users u WHERE u.created_at >= w.start AND u.created_at < w.start + interval '1 week') AS registrations
         FROM w ORDER BY w.start DESC`,
      [now],
    );
    return rows.map((r) => ({ week: r.week, statuses: r.statuses, logins: r.logins, registrations: r.registrations }));
  }
}
