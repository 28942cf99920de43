// Emoji reactions: who reacted to which status with which (Unicode) emoji, and the per-status summaries clients show.
import type { Database } from './db.js';

export interface ReactionSummary {
  readonly name: string;
  readonly count: number;
  readonly me: boolean;
  readonly accountIds: readonly string[];
}

/** How many different emoji one account may put on one status. */
export const MAX_REACTIONS_PER_ACCOUNT = 10;

export class ReactionStore {
  constructor(private readonly db: Database) {}

  /** Adds a reaction; false when it existed or the account already has MAX_REACTIONS_PER_ACCOUNT on the status. */
  async add(accountId: string, statusId: string, emoji: string, uri: string | null): Promise<boolean> {
    const n = await this.db.exec(
      `INSERT INTO status_reactions (account_id, status_id, emoji, uri)
       SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM status_reactions WHERE account_id = $1 AND status_id = $2) < $5
       ON CONFLICT DO NOTHING`,
      [accountId, statusId, emoji, uri, MAX_REACTIONS_PER_ACCOUNT],
    );
    return n > 0;
  }

  /** Removes a reaction; returns the id of the activity it was sent or received with, if any. */
  async remove(accountId: string, statusId: string, emoji: string): Promise<{ uri: string | null } | undefined> {
    return this.db.one<{ uri: string | null }>('DELETE FROM status_reactions WHERE account_id = $1 AND status_id = $2 AND emoji = $3 RETURNING uri', [accountId, statusId, emoji]);
  }

  async removeByUri(accountId: string, uri: string): Promise<{ status_id: string; emoji: string } | undefined> {
    return this.db.one<{ status_id: string; emoji: string }>('DELETE FROM status_reactions WHERE account_id = $1 AND uri = $2 RETURNING status_id, emoji', [accountId, uri]);
  }

  /** Per status: its reactions grouped by emoji, most used first. */
  async summaries(statusIds: readonly string[], viewerId: string | null): Promise<Map<string, ReactionSummary[]>> {
    const out = new Map<string, ReactionSummary[]>();
    if (statusIds.length === 0) return out;
    const rows = await this.db.rows<{ status_id: string; emoji: string; n: number; me: boolean; accounts: string[] }>(
      `SELECT status_id, emoji, count(*)::int AS n, coalesce(bool_or(account_id = $2), false) AS me,
         (array_agg(account_id::text ORDER BY id))[1:40] AS accounts
       FROM status_reactions WHERE status_id = ANY($1::bigint[]) GROUP BY status_id, emoji ORDER BY status_id, n DESC, min(id)`,
      [statusIds, viewerId],
    );
    for (const r of rows) {
      const list = out.get(r.status_id) ?? [];
      list.push({ name: r.emoji, count: r.n, me: r.me, accountIds: r.accounts });
      out.set(r.status_id, list);
    }
    return out;
  }
}

/** One Unicode emoji (with its modifiers, variation selectors and ZWJ sequences, or a flag); not custom :shortcode:. */
export function isEmoji(s: string): boolean {
  if (s.length === 0 || s.length > 32) return false;
  return /^(?:\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3|\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?(?:\u200D\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?)*)$/u.test(s);
}
