// The quotes of a status (Mastodon 4.5's Api::V1::Statuses::QuotesController): the live statuses that quote it and
// that the viewer may read, newest first, its author revoking one, and its author's quote policy. Stoa keeps a quote as the quoting status's
// quote_of_id (no Quote row with a state): revoking detaches it (quote_of_id NULL, quote_revoked), which the
// status_counts trigger counts out of the quoted status's quotes_count and the statuses_cache trigger drops from
// every node's cache; the quoting status then shows `quote: {state: "revoked"}`.
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';
import { STATUS_COLUMNS, toStatus, type QuotePolicy, type Status, type StatusRow } from './status-rows.js';
import { notSilenced, visibleTo } from './visibility.js';

export class QuoteStore {
  constructor(private readonly db: Database) {}

  /** The statuses quoting `quotedId` that `viewerId` may read, by id (Mastodon pages them by id too). */
  async page(quotedId: string, viewerId: string, page: PageQuery): Promise<Status[]> {
    const values: unknown[] = [quotedId, viewerId];
    const p = pageSql(page, 's.id', values);
    const rows = await this.db.rows<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s
       WHERE s.quote_of_id = $1 AND s.reblog_of_id IS NULL AND NOT s.history AND ${visibleTo('$2')} AND ${notSilenced('$2')}${p.where}${p.orderLimit}`,
      values,
    );
    return p.newestFirst(rows).map(toStatus);
  }

  /** Sets who may quote the status (its author's PUT /api/v1/statuses/:id/interaction_policy). */
  async setPolicy(statusId: string, policy: QuotePolicy): Promise<void> {
    await this.db.exec('UPDATE statuses SET quote_policy = $2 WHERE id = $1 AND quote_policy <> $2', [statusId, policy]);
  }

  /** Detaches `quotingId`'s quote of `quotedId`; false when that status does not quote it (any more). */
  async revoke(quotedId: string, quotingId: string): Promise<boolean> {
    return (
      (await this.db.exec('UPDATE statuses SET quote_of_id = NULL, quote_revoked = true WHERE id = $1 AND quote_of_id = $2 AND deleted_at IS NULL', [
        quotingId,
        quotedId,
      ])) > 0
    );
  }
}
