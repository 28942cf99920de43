// Follow suggestions (Mastodon's AccountSuggestions): accounts staff feature, then accounts the member's follows
// follow (friends of friends), then local accounts that posted lately; never the member, nor anyone they follow,
// asked to follow, block, are blocked by, mute, whose domain they block, or dismissed. Staff feature accounts here
// too (suggestion_features), and a member's dismissals are kept (suggestion_dismissals).
import type { Database } from './db.js';
import { silencedBy } from './visibility.js';

/** Mastodon's source names (REST::SuggestionSerializer `sources`), in the order they rank. */
export type SuggestionSource = 'featured' | 'friends_of_friends' | 'most_interactions';

export interface Suggestion {
  readonly accountId: string;
  /** Every source that suggests the account, the one that ranks it first. */
  readonly sources: readonly SuggestionSource[];
}

// Accounts a member may be shown at all: not deleted, suspended or the instance actor; a local one is an approved,
// enabled member.
const LIVE = `a.deleted_at IS NULL AND a.suspended_at IS NULL AND NOT a.instance_actor
  AND (a.domain IS NOT NULL OR EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id AND u.approved AND NOT u.disabled))`;

// How many candidates each source offers before they are merged (the friends of friends and active accounts are
// ordered by their own measure; more than a page of each is never shown).
const PER_SOURCE = 200;

export class SuggestionStore {
  constructor(private readonly db: Database) {}

  /** Up to `limit` suggestions for member $1, best first, after the first `offset`. */
  async forMember(accountId: string, limit: number, offset = 0): Promise<Suggestion[]> {
    const rows = await this.db.rows<{ id: string; sources: SuggestionSource[] }>(
      `WITH excluded AS (
         SELECT $1::bigint AS id
         UNION ALL SELECT target_account_id FROM follows WHERE account_id = $1
         UNION ALL SELECT target_account_id FROM follow_requests WHERE account_id = $1
         UNION ALL SELECT target_account_id FROM suggestion_dismissals WHERE account_id = $1
         UNION ALL ${silencedBy('$1')}),
       candidates AS (
         SELECT f.account_id AS id, 'featured' AS source, 0 AS rank, extract(epoch FROM f.created_at)::float8 AS score FROM suggestion_features f
         UNION ALL (SELECT f2.target_account_id, 'friends_of_friends', 1, count(*)::float8 FROM follows f1
             JOIN follows f2 ON f2.account_id = f1.target_account_id
           WHERE f1.account_id = $1 GROUP BY f2.target_account_id ORDER BY count(*) DESC LIMIT ${PER_SOURCE})
         UNION ALL (SELECT c.account_id, 'most_interactions', 2, extract(epoch FROM c.last_status_at)::float8 FROM account_counts c
             JOIN accounts la ON la.id = c.account_id AND la.domain IS NULL
           WHERE c.last_status_at > now() - interval '30 days' ORDER BY c.last_status_at DESC LIMIT ${PER_SOURCE}))
       SELECT c.id::text AS id, array_agg(c.source ORDER BY c.rank) AS sources
       FROM candidates c JOIN accounts a ON a.id = c.id
       WHERE NOT (c.id IN (SELECT id FROM excluded)) AND ${LIVE}
         -- Only staff's choice overrides an account's own: the others suggest discoverable, unsilenced accounts only.
         AND (c.rank = 0 OR (a.discoverable AND a.silenced_at IS NULL))
       GROUP BY c.id
       ORDER BY min(c.rank), (array_agg(c.score ORDER BY c.rank, c.score DESC))[1] DESC, c.id DESC
       LIMIT $2 OFFSET $3`,
      [accountId, limit, offset],
    );
    return rows.map((r) => ({ accountId: r.id, sources: r.sources }));
  }

  /** The member no longer sees the account suggested (Mastodon's FollowRecommendationMute). */
  async dismiss(accountId: string, targetId: string): Promise<void> {
    await this.db.exec('INSERT INTO suggestion_dismissals (account_id, target_account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, targetId]);
  }

  /** Staff feature an account in everyone's suggestions (or stop). */
  async setFeatured(accountId: string, featured: boolean): Promise<void> {
    if (featured) await this.db.exec('INSERT INTO suggestion_features (account_id) VALUES ($1) ON CONFLICT DO NOTHING', [accountId]);
    else await this.db.exec('DELETE FROM suggestion_features WHERE account_id = $1', [accountId]);
  }

  async isFeatured(accountId: string): Promise<boolean> {
    return !!(await this.db.one('SELECT 1 FROM suggestion_features WHERE account_id = $1', [accountId]));
  }
}
