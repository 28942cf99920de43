// What the community service checks before a member posts, comments or votes in a community (services/community-service.ts):
// whether the community lets only its moderators post, whether a post is locked, and the member's vote as it
// stands; and the one write the status store has no form for: a post edited in its title or link alone (its status's
// text unchanged) is dated as edited all the same, so the Update's `updated` is later than what receivers hold.
import type { Database } from './db.js';

export class CommunityRulesStore {
  constructor(private readonly db: Database) {}

  /** Whether `accountId` may start a post in the community: not when only moderators may and it is not one. */
  async mayPost(communityId: number, accountId: string): Promise<boolean> {
    const row = await this.db.one<{ ok: boolean }>(
      `SELECT NOT c.posting_restricted_to_mods
              OR EXISTS (SELECT 1 FROM lemmy_community_moderators m WHERE m.community_id = c.id AND m.account_id = $2) AS ok
       FROM lemmy_communities c WHERE c.id = $1`,
      [communityId, accountId],
      'prepared',
    );
    return row?.ok ?? false;
  }

  /** A post's flags (undefined: no such post). */
  async postFlags(postId: number): Promise<{ readonly locked: boolean; readonly nsfw: boolean } | undefined> {
    return this.db.one<{ locked: boolean; nsfw: boolean }>('SELECT locked, nsfw FROM lemmy_posts WHERE id = $1', [postId], 'prepared');
  }

  /** The account's vote on a status (a post or a comment): its score and the activity id it was sent as. */
  async voteOf(statusId: string, accountId: string): Promise<{ readonly score: -1 | 1; readonly uri: string | null } | undefined> {
    return this.db.one<{ score: -1 | 1; uri: string | null }>(
      'SELECT score::int AS score, uri FROM lemmy_votes WHERE status_id = $1 AND account_id = $2',
      [statusId, accountId],
      'prepared',
    );
  }

  /** Dates a live status as edited at `at` (a community post whose title or link alone changed). */
  async markEdited(statusId: string, at: Date): Promise<void> {
    await this.db.exec('UPDATE statuses SET edited_at = $2 WHERE id = $1 AND deleted_at IS NULL', [statusId, at]);
  }
}
