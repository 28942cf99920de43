// Who among the members connected to this node is shown a streamed status: one set-based query per event for all
// of them, built from the feeds' own rules (timelines.ts homeRule, listRule, PUBLIC_RULE, TAG_RULE; visibility.ts
// quiet), so a stream shows exactly what the REST timeline would.
import type { Database } from './db.js';
import { HAS_MEDIA, homeRule, listRule, PUBLIC_RULE, TAG_RULE } from './timelines.js';
import { inChosenLanguage, listable, quiet } from './visibility.js';

/** Who is listening on this node, by kind of stream. */
export interface StreamTargets {
  /** Accounts with a `user` stream (home). */
  readonly home: readonly string[];
  /** Lists with a `list` stream. */
  readonly lists: readonly string[];
  /** Accounts with a public or hashtag stream. */
  readonly public: readonly string[];
}

export interface StatusAudience {
  /** Accounts whose home shows the status. */
  readonly home: ReadonlySet<string>;
  /** Lists that show it. */
  readonly lists: ReadonlySet<string>;
  /** Of `public`: those neither blocking, blocked by nor muting its author (or the boosted author), reading its language. */
  readonly quietFor: ReadonlySet<string>;
  /** The public feeds' rule holds (public, not a boost, not a reply to another account, author not silenced). */
  readonly publicFeeds: boolean;
  /** The hashtag feeds' rule holds (as public, replies included). */
  readonly tagFeeds: boolean;
  readonly hasMedia: boolean;
  /** Viewers' own relations to the status shown (the boosted one for a boost). */
  readonly favourited: ReadonlySet<string>;
  readonly reblogged: ReadonlySet<string>;
  readonly bookmarked: ReadonlySet<string>;
}

const none: ReadonlySet<string> = new Set();

export class StreamAudienceStore {
  constructor(private readonly db: Database) {}

  /** Status `statusId` (shown as `shownId`: the boosted status for a boost), for the targets connected now. */
  async ofStatus(statusId: string, shownId: string, t: StreamTargets): Promise<StatusAudience> {
    const viewers = [...new Set([...t.home, ...t.public])];
    // Each part names its columns (the first part's names are the union's). Only the parts someone here listens for: planning the whole union (the home rule above all) cost more than
    // running it (~4–12 ms against ~1.5), and it is prepared, so each shape is planned once per connection.
    const values: unknown[] = [statusId];
    const $ = (v: unknown) => `$${values.push(v)}`;
    const parts: string[] = [];
    if (t.home.length) {
      parts.push(
        `SELECT 'home' AS k, v.id::text AS a FROM unnest(${$(t.home)}::bigint[]) v(id), statuses s WHERE s.id = $1 AND ${listable()} AND ${homeRule('v.id')}`,
      );
    }
    if (t.lists.length) {
      parts.push(`SELECT 'list' AS k, l.id::text AS a FROM lists l, statuses s WHERE s.id = $1 AND l.id = ANY(${$(t.lists)}::bigint[]) AND ${listable()}
         AND ${listRule('l.id', 'l.account_id', 'l.replies_policy')}`);
    }
    if (t.public.length) {
      parts.push(
        `SELECT 'quiet' AS k, v.id::text AS a FROM unnest(${$(t.public)}::bigint[]) v(id), statuses s WHERE s.id = $1 AND ${quiet('v.id')} AND ${inChosenLanguage('v.id')}`,
        `SELECT 'public' AS k, '' AS a FROM statuses s WHERE s.id = $1 AND ${listable()} AND ${PUBLIC_RULE}`,
        `SELECT 'tag' AS k, '' AS a FROM statuses s WHERE s.id = $1 AND ${listable()} AND ${TAG_RULE}`,
        `SELECT 'media' AS k, '' AS a FROM statuses s WHERE s.id = $1${HAS_MEDIA}`,
      );
    }
    if (viewers.length) {
      const shown = $(shownId);
      const among = $(viewers);
      parts.push(
        `SELECT 'fav' AS k, account_id::text AS a FROM favourites WHERE status_id = ${shown} AND account_id = ANY(${among}::bigint[])`,
        `SELECT 'boost' AS k, account_id::text AS a FROM statuses WHERE reblog_of_id = ${shown} AND deleted_at IS NULL AND account_id = ANY(${among}::bigint[])`,
        `SELECT 'bookmark' AS k, account_id::text AS a FROM bookmarks WHERE status_id = ${shown} AND account_id = ANY(${among}::bigint[])`,
      );
    }
    const rows = parts.length ? await this.db.rows<{ k: string; a: string }>(parts.join('\n       UNION ALL '), values, 'prepared') : [];
    const of = (k: string) => {
      const set = new Set<string>();
      for (const r of rows) if (r.k === k) set.add(r.a);
      return set.size ? set : none;
    };
    const has = (k: string) => rows.some((r) => r.k === k);
    return {
      home: of('home'),
      lists: of('list'),
      quietFor: of('quiet'),
      publicFeeds: has('public'),
      tagFeeds: has('tag'),
      hasMedia: has('media'),
      favourited: of('fav'),
      reblogged: of('boost'),
      bookmarked: of('bookmark'),
    };
  }

  /**
   * Who is told of a deletion: whoever could have been shown the status (its author, their followers unless it
   * was direct, the accounts it mentions, its tags' followers if it was public; lists holding its author unless it
   * was direct), read from what the trigger named, since the row no longer counts as readable.
   */
  async ofDelete(statusId: string, authorId: string, visibility: number, t: StreamTargets): Promise<{ home: ReadonlySet<string>; lists: ReadonlySet<string> }> {
    const rows = await this.db.rows<{ k: string; a: string }>(
      `SELECT 'home' AS k, v.id::text AS a FROM unnest($2::bigint[]) v(id) WHERE v.id = $3
         OR ($4 <= 2 AND EXISTS (SELECT 1 FROM follows f WHERE f.account_id = v.id AND f.target_account_id = $3))
         OR EXISTS (SELECT 1 FROM status_mentions m WHERE m.status_id = $1 AND m.account_id = v.id)
         OR ($4 = 0 AND EXISTS (SELECT 1 FROM status_tags st JOIN tag_follows tf ON tf.tag_id = st.tag_id WHERE st.status_id = $1 AND tf.account_id = v.id))
       UNION ALL SELECT 'list', l.id::text FROM lists l WHERE l.id = ANY($5::bigint[]) AND $4 <= 2
         AND EXISTS (SELECT 1 FROM list_accounts la WHERE la.list_id = l.id AND la.account_id = $3)`,
      [statusId, t.home, authorId, visibility, t.lists],
    );
    return {
      home: new Set(rows.filter((r) => r.k === 'home').map((r) => r.a)),
      lists: new Set(rows.filter((r) => r.k === 'list').map((r) => r.a)),
    };
  }

  /** The live boosts of a status: told of its deletion as deletions of their own, as Mastodon removes them with it. */
  async boostsOf(statusId: string): Promise<{ id: string; accountId: string; visibility: number }[]> {
    return this.db.rows<{ id: string; accountId: string; visibility: number }>(
      `SELECT id::text AS id, account_id::text AS "accountId", visibility FROM statuses WHERE reblog_of_id = $1 AND deleted_at IS NULL`,
      [statusId],
    );
  }

  /** The list if it exists and belongs to the member (a list stream is refused otherwise). */
  async listOwned(listId: string, accountId: string): Promise<boolean> {
    if (!/^\d{1,20}$/.test(listId)) return false;
    return (await this.db.one('SELECT 1 FROM lists WHERE id = $1 AND account_id = $2', [listId, accountId])) !== undefined;
  }
}
