// Favourites, bookmarks and pins of statuses, and what a page of statuses needs to show them: counts per status and
// the viewer's own flags, each in one query per page. Boosts are status rows (store/statuses.ts).
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';
import { notSilenced, visibleTo } from './visibility.js';

export interface ViewerFlags {
  readonly favourited: ReadonlySet<string>;
  readonly reblogged: ReadonlySet<string>;
  readonly bookmarked: ReadonlySet<string>;
  readonly pinned: ReadonlySet<string>;
  /** Statuses in a thread the viewer muted. */
  readonly muted: ReadonlySet<string>;
}

export interface Counts {
  readonly favourites: ReadonlyMap<string, number>;
  readonly reblogs: ReadonlyMap<string, number>;
  /** Public and unlisted replies and quotes still there (Mastodon's replies_count and quotes_count). */
  readonly replies: ReadonlyMap<string, number>;
  readonly quotes: ReadonlyMap<string, number>;
}

export const MAX_PINS = 5;

export class InteractionStore {
  constructor(private readonly db: Database) {}

  /** Returns whether a favourite was added (false: it already existed). */
  async favourite(accountId: string, statusId: string, uri: string | null = null): Promise<boolean> {
    return (
      (await this.db.exec('INSERT INTO favourites (account_id, status_id, uri) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [accountId, statusId, uri])) > 0
    );
  }

  /** Removes a favourite; returns it (with the Like id it was sent or received with), if there was one. */
  async unfavourite(accountId: string, statusId: string): Promise<{ uri: string | null } | undefined> {
    return this.db.one<{ uri: string | null }>('DELETE FROM favourites WHERE account_id = $1 AND status_id = $2 RETURNING uri', [accountId, statusId]);
  }

  /** Removes the favourite a remote Like created (Undo Like), if it was the account's; returns its status id. */
  async unfavouriteByUri(accountId: string, uri: string): Promise<string | undefined> {
    return (await this.db.one<{ status_id: string }>('DELETE FROM favourites WHERE account_id = $1 AND uri = $2 RETURNING status_id', [accountId, uri]))
      ?.status_id;
  }

  async bookmark(accountId: string, statusId: string): Promise<void> {
    await this.db.exec('INSERT INTO bookmarks (account_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, statusId]);
  }

  async unbookmark(accountId: string, statusId: string): Promise<void> {
    await this.db.exec('DELETE FROM bookmarks WHERE account_id = $1 AND status_id = $2', [accountId, statusId]);
  }

  /** Mutes the thread a status is in (Mastodon's conversation mute): no more notifications about any of it. */
  async muteThread(accountId: string, statusId: string): Promise<void> {
    await this.db.exec('INSERT INTO thread_mutes (account_id, root_status_id) VALUES ($1, thread_root($2)) ON CONFLICT DO NOTHING', [accountId, statusId]);
  }

  async unmuteThread(accountId: string, statusId: string): Promise<void> {
    await this.db.exec('DELETE FROM thread_mutes WHERE account_id = $1 AND root_status_id = thread_root($2)', [accountId, statusId]);
  }

  /** Pins a status; false when the member already has MAX_PINS pinned (a deleted status's pin does not count). */
  async pin(accountId: string, statusId: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const n = await q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pins p JOIN statuses s ON s.id = p.status_id
         WHERE p.account_id = $1 AND p.status_id <> $2 AND s.deleted_at IS NULL`,
        [accountId, statusId],
      );
      if (n.rows[0]!.n >= MAX_PINS) return false;
      await q.query('INSERT INTO pins (account_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, statusId]);
      return true;
    });
  }

  async unpin(accountId: string, statusId: string): Promise<void> {
    await this.db.exec('DELETE FROM pins WHERE account_id = $1 AND status_id = $2', [accountId, statusId]);
  }

  async counts(ids: readonly string[]): Promise<Counts> {
    if (ids.length === 0) return { favourites: new Map(), reblogs: new Map(), replies: new Map(), quotes: new Map() };
    // One query for the page's four counts (each an index lookup per status: favourites, and the reblog, reply and
    // quote indexes of statuses).
    const rows = await this.db.rows<{ id: string; favourites: number; reblogs: number; replies: number; quotes: number }>(
      `SELECT t.id::text AS id,
         (SELECT count(*)::int FROM favourites f WHERE f.status_id = t.id) AS favourites,
         (SELECT count(*)::int FROM statuses r WHERE r.reblog_of_id = t.id AND r.deleted_at IS NULL) AS reblogs,
         (SELECT count(*)::int FROM statuses r WHERE r.in_reply_to_id = t.id AND r.deleted_at IS NULL AND r.visibility <= 1) AS replies,
         (SELECT count(*)::int FROM statuses r WHERE r.quote_of_id = t.id AND r.deleted_at IS NULL AND r.visibility <= 1) AS quotes
       FROM unnest($1::bigint[]) AS t(id)`,
      [ids],
    );
    const of = (k: 'favourites' | 'reblogs' | 'replies' | 'quotes') => new Map(rows.map((r) => [r.id, r[k]]));
    return { favourites: of('favourites'), reblogs: of('reblogs'), replies: of('replies'), quotes: of('quotes') };
  }

  async flags(viewerId: string, ids: readonly string[]): Promise<ViewerFlags> {
    if (ids.length === 0) return { favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set(), muted: new Set() };
    const rows = await this.db.rows<{ kind: string; id: string }>(
      `SELECT 'f' AS kind, status_id::text AS id FROM favourites WHERE account_id = $1 AND status_id = ANY($2::bigint[])
       UNION ALL SELECT 'r', reblog_of_id::text FROM statuses WHERE account_id = $1 AND reblog_of_id = ANY($2::bigint[]) AND deleted_at IS NULL
       UNION ALL SELECT 'b', status_id::text FROM bookmarks WHERE account_id = $1 AND status_id = ANY($2::bigint[])
       UNION ALL SELECT 'p', status_id::text FROM pins WHERE account_id = $1 AND status_id = ANY($2::bigint[])
       UNION ALL SELECT 't', '' WHERE EXISTS (SELECT 1 FROM thread_mutes WHERE account_id = $1)`,
      [viewerId, ids],
    );
    const of = (k: string) => new Set(rows.filter((r) => r.kind === k).map((r) => r.id));
    // Which statuses are in a muted thread is asked only of a viewer who muted some (planning it costs every page).
    const muted = rows.some((r) => r.kind === 't')
      ? new Set(
          (
            await this.db.rows<{ id: string }>(
              'SELECT x::text AS id FROM unnest($2::bigint[]) x WHERE thread_root(x) IN (SELECT root_status_id FROM thread_mutes WHERE account_id = $1)',
              [viewerId, ids],
            )
          ).map((r) => r.id),
        )
      : new Set<string>();
    return { favourited: of('f'), reblogged: of('r'), bookmarked: of('b'), pinned: of('p'), muted };
  }

  /**
   * Who favourited a status: [favourite row id, account id], newest first. Accounts that are gone are left out, and
   * for a viewer those they block or mute or who block them (as Mastodon's not_excluded_by_account).
   */
  async favouritedBy(statusId: string, viewerId: string | null, page: PageQuery): Promise<[string, string][]> {
    return this.whoPage('favourites', '', statusId, viewerId, page);
  }

  /** Who boosted a status (publicly): [boost row id, account id], newest first, filtered as favouritedBy. */
  async rebloggedBy(statusId: string, viewerId: string | null, page: PageQuery): Promise<[string, string][]> {
    return this.whoPage('statuses', ' AND x.deleted_at IS NULL AND x.visibility <= 1', statusId, viewerId, page);
  }

  /** The member's favourites that they may still read: [favourite row id, status id], newest first. */
  async favouritesOf(accountId: string, page: PageQuery): Promise<[string, string][]> {
    return this.mine('favourites', accountId, page);
  }

  /** The member's bookmarks that they may still read: [bookmark row id, status id], newest first. */
  async bookmarksOf(accountId: string, page: PageQuery): Promise<[string, string][]> {
    return this.mine('bookmarks', accountId, page);
  }

  // Lists keyed by the hidden row id (Mastodon pages favourites, bookmarks, boosts by that id). Every filter is in the
  // query, so a page holds exactly what is shown: never an empty page before more rows, nor a short one.
  private async mine(table: 'favourites' | 'bookmarks', accountId: string, page: PageQuery): Promise<[string, string][]> {
    const values: unknown[] = [accountId];
    const p = pageSql(page, 'x.id', values);
    const rows = await this.db.rows<{ id: string; other: string }>(
      `SELECT x.id, x.status_id AS other FROM ${table} x JOIN statuses s ON s.id = x.status_id
       WHERE x.account_id = $1 AND ${visibleTo('$1')}${p.where}${p.orderLimit}`,
      values,
    );
    return p.newestFirst(rows.map((r): [string, string] => [r.id, r.other]));
  }

  private async whoPage(
    table: 'favourites' | 'statuses',
    more: string,
    statusId: string,
    viewerId: string | null,
    page: PageQuery,
  ): Promise<[string, string][]> {
    const values: unknown[] = [statusId];
    const column = table === 'favourites' ? 'x.status_id' : 'x.reblog_of_id';
    let where = `${column} = $1${more} AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = x.account_id AND a.deleted_at IS NULL)`;
    if (viewerId !== null) where += ` AND ${notSilenced(`$${values.push(viewerId)}`, 'x.account_id')}`;
    const p = pageSql(page, 'x.id', values);
    const rows = await this.db.rows<{ id: string; other: string }>(
      `SELECT x.id, x.account_id AS other FROM ${table} x WHERE ${where}${p.where}${p.orderLimit}`,
      values,
    );
    return p.newestFirst(rows.map((r): [string, string] => [r.id, r.other]));
  }
}
