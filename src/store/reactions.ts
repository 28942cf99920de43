// Emoji reactions: who reacted to which status with which emoji (Unicode, or a remote server's custom emoji), and the
// per-status summaries clients show.
import type { Database } from './db.js';
import { notSilenced } from './visibility.js';

/** A reaction's emoji: a Unicode emoji (no url), or a custom one named `shortcode@host` with its image. */
export interface ReactionEmoji {
  readonly name: string;
  readonly url: string | null;
}

export interface ReactionSummary {
  readonly name: string;
  /** The custom emoji's image; null for a Unicode emoji. */
  readonly url: string | null;
  readonly count: number;
  readonly me: boolean;
  readonly accountIds: readonly string[];
}

/** How many different emoji one account may put on one status. */
export const MAX_REACTIONS_PER_ACCOUNT = 10;

export class ReactionStore {
  constructor(private readonly db: Database) {}

  /** Adds a reaction; false when it existed or the account already has MAX_REACTIONS_PER_ACCOUNT on the status. */
  async add(accountId: string, statusId: string, emoji: ReactionEmoji, uri: string | null): Promise<boolean> {
    const n = await this.db.exec(
      `INSERT INTO status_reactions (account_id, status_id, emoji, emoji_url, uri)
       SELECT $1, $2, $3, $4, $5 WHERE (SELECT count(*) FROM status_reactions WHERE account_id = $1 AND status_id = $2) < $6
       ON CONFLICT DO NOTHING`,
      [accountId, statusId, emoji.name, emoji.url, uri, MAX_REACTIONS_PER_ACCOUNT],
    );
    return n > 0;
  }

  /** Removes a reaction; returns the id of the activity it was sent or received with (if any) and its emoji. */
  async remove(accountId: string, statusId: string, name: string): Promise<{ uri: string | null; emoji: ReactionEmoji } | undefined> {
    const r = await this.db.one<{ uri: string | null; emoji_url: string | null }>(
      'DELETE FROM status_reactions WHERE account_id = $1 AND status_id = $2 AND emoji = $3 RETURNING uri, emoji_url',
      [accountId, statusId, name],
    );
    return r && { uri: r.uri, emoji: { name, url: r.emoji_url } };
  }

  /** The image of a custom emoji someone has already reacted with on the status (so a member can react with it too). */
  async customEmoji(statusId: string, name: string): Promise<ReactionEmoji | undefined> {
    const r = await this.db.one<{ emoji_url: string }>(
      'SELECT emoji_url FROM status_reactions WHERE status_id = $1 AND emoji = $2 AND emoji_url IS NOT NULL ORDER BY id LIMIT 1',
      [statusId, name],
    );
    return r && { name, url: r.emoji_url };
  }

  async removeByUri(accountId: string, uri: string): Promise<{ status_id: string; emoji: string } | undefined> {
    return this.db.one<{ status_id: string; emoji: string }>('DELETE FROM status_reactions WHERE account_id = $1 AND uri = $2 RETURNING status_id, emoji', [
      accountId,
      uri,
    ]);
  }

  /**
   * Per status: its reactions grouped by emoji, most used first; for a viewer, without the accounts they block or
   * mute or who block them (as Pleroma's filter_allowed_users), so counts and names agree with what they may see.
   */
  async summaries(statusIds: readonly string[], viewerId: string | null): Promise<Map<string, ReactionSummary[]>> {
    const out = new Map<string, ReactionSummary[]>();
    if (statusIds.length === 0) return out;
    const query = (filtered: boolean) =>
      this.db.rows<{ status_id: string; emoji: string; url: string | null; n: number; me: boolean; accounts: string[] }>(
        `SELECT status_id, emoji, min(emoji_url) AS url, count(*)::int AS n, coalesce(bool_or(account_id = $2), false) AS me,
         (array_agg(account_id::text ORDER BY id))[1:40] AS accounts
       FROM status_reactions r WHERE r.status_id = ANY($1::bigint[])${filtered ? ` AND ${notSilenced('$2::bigint', 'r.account_id')}` : ''}
       GROUP BY status_id, emoji ORDER BY status_id, n DESC, min(id)`,
        [statusIds, viewerId],
      );
    // Most pages have no reactions: the filtered query (dearer to plan) runs only for a viewer when there are some.
    let rows = await query(false);
    if (rows.length > 0 && viewerId !== null) rows = await query(true);
    for (const r of rows) {
      const list = out.get(r.status_id) ?? [];
      list.push({ name: r.emoji, url: r.url, count: r.n, me: r.me, accountIds: r.accounts });
      out.set(r.status_id, list);
    }
    return out;
  }
}

/** A custom emoji's name as Akkoma shows it: its shortcode and the host its image is served from. */
export function customEmojiName(shortcode: string, imageUrl: string): string {
  return `${shortcode}@${new URL(imageUrl).host.toLowerCase()}`;
}

/** The shortcode of a custom emoji's name (`blobcat@host` → `blobcat`). */
export function shortcodeOf(name: string): string {
  return name.slice(0, name.indexOf('@'));
}

/** A custom emoji shortcode as Mastodon, Misskey and Akkoma allow them. */
export const SHORTCODE = /^[A-Za-z0-9_+-]{1,64}$/;

/** One Unicode emoji (with its modifiers, variation selectors and ZWJ sequences, or a flag); not custom :shortcode:. */
export function isEmoji(s: string): boolean {
  if (s.length === 0 || s.length > 32) return false;
  return /^(?:\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3|\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?(?:\u200D\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})?)*)$/u.test(
    s,
  );
}
