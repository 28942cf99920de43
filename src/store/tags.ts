// Hashtags as things a member acts on: a tag by name, its last week's use, the tags a member follows (tag_follows,
// migration 063: their public posts reach the member's home, timelines.ts followedTag) and the tags a member features
// on their profile (featured_tags: at most FEATURED_TAGS_LIMIT, Mastodon's FeaturedTag::LIMIT).
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';
import { tagKey } from './status-rows.js';

export interface Tag {
  readonly id: string;
  /** As first written (Mastodon's display_name). */
  readonly name: string;
}

/** One day of a tag's use (Mastodon's Trends::History): all strings, as Mastodon sends them. */
export interface TagDay {
  /** The UTC day's start, in unix seconds. */
  readonly day: string;
  readonly uses: string;
  readonly accounts: string;
}

export interface FeaturedTag {
  readonly id: string;
  readonly tagId: string;
  /** As the member wrote it. */
  readonly name: string;
  /** The member's public and unlisted posts with the tag. */
  readonly statusesCount: number;
  readonly lastStatusAt: Date | null;
}

export const FEATURED_TAGS_LIMIT = 10;

const DAY_MS = 86_400_000;
export const HISTORY_DAYS = 7;

/** The UTC day starts (ms) of the last HISTORY_DAYS days from `now`, newest first. */
function historyDays(now: Date): number[] {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return Array.from({ length: HISTORY_DAYS }, (_, i) => today - i * DAY_MS);
}

/** A week without uses: the history of a tag nobody has used yet. */
export function quietWeek(now: Date): TagDay[] {
  return historyDays(now).map((ms) => ({ day: String(ms / 1000), uses: '0', accounts: '0' }));
}

/** The first id a status created at `ms` may have (ids are time-ordered: store/paging.ts). */
function firstIdAt(ms: number): string {
  return (BigInt(ms) << 16n).toString();
}

/** FROM and WHERE of the public and unlisted posts of account `account` with tag `tag` (SQL expressions). */
function taggedPosts(account: string, tag: string): string {
  return `FROM status_tags fst JOIN statuses fs ON fs.id = fst.status_id
    WHERE fst.tag_id = ${tag} AND fs.account_id = ${account} AND fs.visibility <= 1 AND fs.deleted_at IS NULL
      AND fs.reblog_of_id IS NULL AND NOT fs.history`;
}

const FEATURED_COLUMNS = `ft.id::text AS id, ft.tag_id::text AS "tagId", ft.name, c.n AS "statusesCount", c.last AS "lastStatusAt"`;
const FEATURED_COUNTS = `LEFT JOIN LATERAL (SELECT count(*)::int AS n, max(fs.created_at) AS last ${taggedPosts('ft.account_id', 'ft.tag_id')}) c ON true`;

export class TagStore {
  constructor(private readonly db: Database) {}

  /** The tag named `name` (case-folded as statuses store it), if any status or member ever used it. */
  async byName(name: string): Promise<Tag | undefined> {
    return this.db.one<{ id: string; name: string }>('SELECT id::text AS id, name FROM tags WHERE key = $1', [tagKey(name)], 'prepared');
  }

  /** The tag named `name`, made if new (as statuses.ts links a status's tags); inside a transaction, in it. */
  async ensure(name: string): Promise<Tag> {
    return (await this.db.one<{ id: string; name: string }>(
      'INSERT INTO tags (name, key) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET name = tags.name RETURNING id::text AS id, name',
      [name, tagKey(name)],
    ))!;
  }

  /**
   * Each tag's last HISTORY_DAYS UTC days, newest first, from `now`: its public posts (not boosts, not remote history)
   * and how many accounts wrote them, as Mastodon's trends count a tag's uses.
   */
  async history(tagIds: readonly string[], now: Date): Promise<Map<string, TagDay[]>> {
    const days = historyDays(now);
    const start = days[days.length - 1]!;
    const rows = tagIds.length
      ? await this.db.rows<{ tag: string; day: string; uses: string; accounts: string }>(
          `SELECT stg.tag_id::text AS tag, (floor(extract(epoch FROM s.created_at) / 86400) * 86400)::bigint::text AS day,
             count(*)::text AS uses, count(DISTINCT s.account_id)::text AS accounts
           FROM status_tags stg JOIN statuses s ON s.id = stg.status_id
           WHERE stg.tag_id = ANY($1::bigint[]) AND stg.status_id >= $2 AND s.created_at >= $3
             AND s.deleted_at IS NULL AND s.visibility = 0 AND s.reblog_of_id IS NULL AND NOT s.history
           GROUP BY 1, 2`,
          [tagIds, firstIdAt(start), new Date(start)],
        )
      : [];
    const found = new Map(rows.map((r) => [`${r.tag} ${r.day}`, r]));
    const out = new Map<string, TagDay[]>();
    for (const id of tagIds) {
      out.set(
        id,
        days.map((ms) => {
          const day = String(ms / 1000);
          const r = found.get(`${id} ${day}`);
          return { day, uses: r?.uses ?? '0', accounts: r?.accounts ?? '0' };
        }),
      );
    }
    return out;
  }

  /** Which of `tagIds` the member follows and features. */
  async relations(accountId: string, tagIds: readonly string[]): Promise<{ following: ReadonlySet<string>; featuring: ReadonlySet<string> }> {
    if (tagIds.length === 0) return { following: new Set(), featuring: new Set() };
    const rows = await this.db.rows<{ k: string; tag: string }>(
      `SELECT 'follow' AS k, tag_id::text AS tag FROM tag_follows WHERE account_id = $1 AND tag_id = ANY($2::bigint[])
       UNION ALL SELECT 'feature', tag_id::text FROM featured_tags WHERE account_id = $1 AND tag_id = ANY($2::bigint[])`,
      [accountId, tagIds],
    );
    return {
      following: new Set(rows.filter((r) => r.k === 'follow').map((r) => r.tag)),
      featuring: new Set(rows.filter((r) => r.k === 'feature').map((r) => r.tag)),
    };
  }

  async follow(accountId: string, tagId: string): Promise<void> {
    await this.db.exec('INSERT INTO tag_follows (account_id, tag_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, tagId]);
  }

  async unfollow(accountId: string, tagId: string): Promise<void> {
    await this.db.exec('DELETE FROM tag_follows WHERE account_id = $1 AND tag_id = $2', [accountId, tagId]);
  }

  /** [follow row id (the page's cursor), tag] of the tags the member follows, newest follow first. */
  async followedPage(accountId: string, page: PageQuery): Promise<[string, Tag][]> {
    const values: unknown[] = [accountId];
    const p = pageSql(page, 'tf.id', values);
    const rows = await this.db.rows<{ cursor: string; id: string; name: string }>(
      `SELECT tf.id::text AS cursor, t.id::text AS id, t.name FROM tag_follows tf JOIN tags t ON t.id = tf.tag_id
       WHERE tf.account_id = $1${p.where}${p.orderLimit}`,
      values,
    );
    return p.newestFirst(rows.map((r): [string, Tag] => [r.cursor, { id: r.id, name: r.name }]));
  }

  /** The member's featured tags, most used first (Mastodon orders them by statuses_count). */
  async featured(accountId: string): Promise<FeaturedTag[]> {
    return this.db.rows<FeaturedTag & Record<string, unknown>>(
      `SELECT ${FEATURED_COLUMNS} FROM featured_tags ft ${FEATURED_COUNTS} WHERE ft.account_id = $1 ORDER BY c.n DESC, ft.id`,
      [accountId],
    );
  }

  /**
   * Features tag `name` (as written) on the member's profile: the row already there for the tag, a new one, or
   * 'limit' when the member has FEATURED_TAGS_LIMIT already. The account's row is locked so that two requests cannot
   * both pass the count.
   */
  async feature(accountId: string, name: string): Promise<{ featured: FeaturedTag; created: boolean } | 'limit'> {
    const made = await this.db.tx(async (q) => {
      await q.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const tag = await this.ensure(name);
      const old = await q.query<{ id: string }>('SELECT id::text AS id FROM featured_tags WHERE account_id = $1 AND tag_id = $2', [accountId, tag.id]);
      if (old.rows[0]) return { id: old.rows[0].id, created: false };
      const count = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM featured_tags WHERE account_id = $1', [accountId]);
      if (count.rows[0]!.n >= FEATURED_TAGS_LIMIT) return 'limit' as const;
      const row = await q.query<{ id: string }>('INSERT INTO featured_tags (account_id, tag_id, name) VALUES ($1, $2, $3) RETURNING id::text AS id', [
        accountId,
        tag.id,
        name,
      ]);
      return { id: row.rows[0]!.id, created: true };
    });
    if (made === 'limit') return made;
    return { featured: (await this.featuredById(accountId, made.id))!, created: made.created };
  }

  async featuredById(accountId: string, id: string): Promise<FeaturedTag | undefined> {
    return this.db.one<FeaturedTag & Record<string, unknown>>(
      `SELECT ${FEATURED_COLUMNS} FROM featured_tags ft ${FEATURED_COUNTS} WHERE ft.account_id = $1 AND ft.id = $2`,
      [accountId, id],
    );
  }

  /** Removes one of the member's featured tags by its id: the row removed, or undefined when there was none. */
  async unfeatureById(accountId: string, id: string): Promise<{ id: string; name: string } | undefined> {
    return this.db.one<{ id: string; name: string }>('DELETE FROM featured_tags WHERE account_id = $1 AND id = $2 RETURNING id::text AS id, name', [
      accountId,
      id,
    ]);
  }

  /** Removes the member's featured tag `tagId`: the row removed, or undefined when it was not featured. */
  async unfeatureTag(accountId: string, tagId: string): Promise<{ id: string; name: string } | undefined> {
    return this.db.one<{ id: string; name: string }>('DELETE FROM featured_tags WHERE account_id = $1 AND tag_id = $2 RETURNING id::text AS id, name', [
      accountId,
      tagId,
    ]);
  }

  /**
   * The tags the member used most in their last 1,000 statuses, not already featured (Mastodon's
   * Tag.suggestions_for_account: recently_used_by, not_featured_by).
   */
  async suggestions(accountId: string, limit: number): Promise<Tag[]> {
    return this.db.rows<{ id: string; name: string }>(
      `SELECT t.id::text AS id, t.name FROM (SELECT s.id FROM statuses s WHERE s.account_id = $1 AND s.deleted_at IS NULL ORDER BY s.id DESC LIMIT 1000) r
       JOIN status_tags st ON st.status_id = r.id JOIN tags t ON t.id = st.tag_id
       WHERE NOT EXISTS (SELECT 1 FROM featured_tags ft WHERE ft.account_id = $1 AND ft.tag_id = t.id)
       GROUP BY t.id, t.name ORDER BY count(*) DESC, max(r.id) DESC LIMIT $2`,
      [accountId, limit],
    );
  }
}
