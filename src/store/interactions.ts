// Favourites, bookmarks and pins of statuses. Boosts are status rows (store/statuses.ts). What a page shows of them
// (counts, kept in status_counts by triggers, and the viewer's flags) is loaded with the page (render-bundle.ts).
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';
import { notSilenced, visibleTo } from './visibility.js';

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
