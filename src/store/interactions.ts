// Favourites, bookmarks and pins of statuses, and what a page of statuses needs to show them: counts per status and
// the viewer's own flags, each in one query per page. Boosts are status rows (store/statuses.ts).
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';

export interface ViewerFlags {
  readonly favourited: ReadonlySet<string>;
  readonly reblogged: ReadonlySet<string>;
  readonly bookmarked: ReadonlySet<string>;
  readonly pinned: ReadonlySet<string>;
}

export interface Counts {
  readonly favourites: ReadonlyMap<string, number>;
  readonly reblogs: ReadonlyMap<string, number>;
}


export const MAX_PINS = 5;

export class InteractionStore {
  constructor(private readonly db: Database) {}

  /** Returns whether a favourite was added (false: it already existed). */
  async favourite(accountId: string, statusId: string, uri: string | null = null): Promise<boolean> {
    return (await this.db.exec('INSERT INTO favourites (account_id, status_id, uri) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [accountId, statusId, uri])) > 0;
  }

  /** Removes a favourite; returns it (with the Like id it was sent or received with), if there was one. */
  async unfavourite(accountId: string, statusId: string): Promise<{ uri: string | null } | undefined> {
    return this.db.one<{ uri: string | null }>('DELETE FROM favourites WHERE account_id = $1 AND status_id = $2 RETURNING uri', [accountId, statusId]);
  }

  /** Removes the favourite a remote Like created (Undo Like), if it was the account's; returns its status id. */
  async unfavouriteByUri(accountId: string, uri: string): Promise<string | undefined> {
    return (await this.db.one<{ status_id: string }>('DELETE FROM favourites WHERE account_id = $1 AND uri = $2 RETURNING status_id', [accountId, uri]))?.status_id;
  }

  async bookmark(accountId: string, statusId: string): Promise<void> {
    await this.db.exec('INSERT INTO bookmarks (account_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, statusId]);
  }

  async unbookmark(accountId: string, statusId: string): Promise<void> {
    await this.db.exec('DELETE FROM bookmarks WHERE account_id = $1 AND status_id = $2', [accountId, statusId]);
  }

  /** Pins a status; false when the member already has MAX_PINS pinned. */
  async pin(accountId: string, statusId: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const n = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM pins WHERE account_id = $1 AND status_id <> $2', [accountId, statusId]);
      if (n.rows[0]!.n >= MAX_PINS) return false;
      await q.query('INSERT INTO pins (account_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [accountId, statusId]);
      return true;
    });
  }

  async unpin(accountId: string, statusId: string): Promise<void> {
    await this.db.exec('DELETE FROM pins WHERE account_id = $1 AND status_id = $2', [accountId, statusId]);
  }

  /** The member's pinned statuses' ids, newest pin first. */
  async pinned(accountId: string): Promise<string[]> {
    const rows = await this.db.rows<{ status_id: string }>('SELECT status_id FROM pins WHERE account_id = $1 ORDER BY id DESC', [accountId]);
    return rows.map((r) => r.status_id);
  }

  async counts(ids: readonly string[]): Promise<Counts> {
    if (ids.length === 0) return { favourites: new Map(), reblogs: new Map() };
    const rows = await this.db.rows<{ id: string; favourites: number; reblogs: number }>(
      `SELECT t.id::text AS id,
         (SELECT count(*)::int FROM favourites f WHERE f.status_id = t.id) AS favourites,
         (SELECT count(*)::int FROM statuses r WHERE r.reblog_of_id = t.id AND r.deleted_at IS NULL) AS reblogs
       FROM unnest($1::bigint[]) AS t(id)`,
      [ids],
    );
    return { favourites: new Map(rows.map((r) => [r.id, r.favourites])), reblogs: new Map(rows.map((r) => [r.id, r.reblogs])) };
  }

  async flags(viewerId: string, ids: readonly string[]): Promise<ViewerFlags> {
    if (ids.length === 0) return { favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set() };
    const rows = await this.db.rows<{ kind: string; id: string }>(
      `SELECT 'f' AS kind, status_id::text AS id FROM favourites WHERE account_id = $1 AND status_id = ANY($2::bigint[])
       UNION ALL SELECT 'r', reblog_of_id::text FROM statuses WHERE account_id = $1 AND reblog_of_id = ANY($2::bigint[]) AND deleted_at IS NULL
       UNION ALL SELECT 'b', status_id::text FROM bookmarks WHERE account_id = $1 AND status_id = ANY($2::bigint[])
       UNION ALL SELECT 'p', status_id::text FROM pins WHERE account_id = $1 AND status_id = ANY($2::bigint[])`,
      [viewerId, ids],
    );
    const of = (k: string) => new Set(rows.filter((r) => r.kind === k).map((r) => r.id));
    return { favourited: of('f'), reblogged: of('r'), bookmarked: of('b'), pinned: of('p') };
  }

  /** Who favourited a status: [favourite row id, account id], newest first. */
  async favouritedBy(statusId: string, page: PageQuery): Promise<[string, string][]> {
    return this.paged('SELECT id, account_id AS other FROM favourites WHERE status_id = $1', statusId, page);
  }

  /** Who boosted a status: [boost row id, account id], newest first. */
  async rebloggedBy(statusId: string, page: PageQuery): Promise<[string, string][]> {
    return this.paged('SELECT id, account_id AS other FROM statuses WHERE reblog_of_id = $1 AND deleted_at IS NULL AND visibility <= 1', statusId, page);
  }

  /** The member's favourites: [favourite row id, status id], newest first. */
  async favouritesOf(accountId: string, page: PageQuery): Promise<[string, string][]> {
    return this.paged('SELECT id, status_id AS other FROM favourites WHERE account_id = $1', accountId, page);
  }

  async bookmarksOf(accountId: string, page: PageQuery): Promise<[string, string][]> {
    return this.paged('SELECT id, status_id AS other FROM bookmarks WHERE account_id = $1', accountId, page);
  }

  /** Lists keyed by the hidden row id (Mastodon pages favourites, bookmarks, boosts by that id). */
  private async paged(select: string, key: string, page: PageQuery): Promise<[string, string][]> {
    const values: unknown[] = [key];
    const p = pageSql(page, 'id', values);
    const rows = await this.db.rows<{ id: string; other: string }>(`${select}${p.where}${p.orderLimit}`, values);
    return p.newestFirst(rows.map((r): [string, string] => [r.id, r.other]));
  }
}
