// A page's statuses named, not read (issue 19): each row's id and version, so the rendered-status cache can answer
// for it without the row's columns crossing the wire (a full row costs PostgreSQL and Node ~12 µs each to write and
// parse; twenty of them were half the home page's statement). A row's version is its xmin: every UPDATE (an edit, a
// deletion, a promotion out of history) writes a new row version with the writing transaction's id, and mentions and
// tags are only ever written in the transaction that writes their status's row (statuses.ts link).

export interface StatusRef {
  readonly id: string;
  /** Null: not known (the cache cannot answer for it; its row is read). */
  readonly version: string | null;
  /** A boost: the boosted status and its version (null if that row is gone). */
  readonly reblogOfId: string | null;
  readonly reblogVersion: string | null;
  readonly quoteOfId: string | null;
}

/** What a statement reading statuses `s` selects, and how a row of it becomes a value. */
export interface RowShape<T> {
  readonly columns: string;
  map(row: Record<string, unknown>): T;
}

/**
 * How a timeline reads its pages (store/timelines.ts): the columns it selects of statuses `s`, the statement it sends
 * for a page's statement `sql` (whose rows come in `order`), and the page's value made of its rows, newest first.
 */
export interface PageShape<R> {
  readonly columns: string;
  statement(sql: string, values: unknown[], viewerId: string | null, order: 'ASC' | 'DESC'): string;
  collect(rows: readonly Record<string, unknown>[], viewerId: string | null): R;
}

export const STATUS_REFS: RowShape<StatusRef> = {
  // The authors (the boosted status's too) are for the page's account counts (ref-pages.ts).
  columns: `s.id, s.xmin::text AS version, s.reblog_of_id::text AS reblog_of_id,
    (SELECT ro.xmin::text FROM statuses ro WHERE ro.id = s.reblog_of_id) AS reblog_version, s.quote_of_id::text AS quote_of_id,
    s.account_id, (SELECT ro.account_id FROM statuses ro WHERE ro.id = s.reblog_of_id) AS reblog_account_id`,
  map: (r) => ({
    id: String(r['id']),
    version: r['version'] as string,
    reblogOfId: r['reblog_of_id'] as string | null,
    reblogVersion: r['reblog_version'] as string | null,
    quoteOfId: r['quote_of_id'] as string | null,
  }),
};

/**
 * A LEFT JOIN LATERAL naming the status `statusId` (an SQL expression) by ref, as the columns status_version,
 * status_reblog_of_id, status_reblog_version and status_quote_of_id (for pages of notifications, read by statusRefOf),
 * with the authors (status_account_id, status_reblog_account_id) for the page's dynamic parts (ref-pages.ts).
 */
export function statusRefJoin(statusId: string): string {
  return `LEFT JOIN LATERAL (SELECT sr.xmin::text AS status_version, sr.reblog_of_id::text AS status_reblog_of_id,
      (SELECT ro.xmin::text FROM statuses ro WHERE ro.id = sr.reblog_of_id) AS status_reblog_version, sr.quote_of_id::text AS status_quote_of_id,
      sr.account_id AS status_account_id, (SELECT ro.account_id FROM statuses ro WHERE ro.id = sr.reblog_of_id) AS status_reblog_account_id
    FROM statuses sr WHERE sr.id = ${statusId}) sref ON true`;
}

/** The ref statusRefJoin's columns give status `id`; its version is null when the row had none (not joined, or gone). */
export function statusRefOf(id: string, r: Record<string, unknown>): StatusRef {
  return {
    id,
    version: (r['status_version'] as string | undefined) ?? null,
    reblogOfId: (r['status_reblog_of_id'] as string | undefined) ?? null,
    reblogVersion: (r['status_reblog_version'] as string | undefined) ?? null,
    quoteOfId: (r['status_quote_of_id'] as string | undefined) ?? null,
  };
}
