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

/**
 * The ref's columns of status row `s`, each named `<prefix>version` and so on, with the authors (the boosted status's
 * too) for the page's account counts (ref-pages.ts).
 */
const REF_FIELDS: readonly (readonly [name: string, of: (s: string) => string])[] = [
  ['version', (s) => `${s}.xmin::text`],
  ['reblog_of_id', (s) => `${s}.reblog_of_id::text`],
  ['reblog_version', (s) => ofBoosted(s, 'ro.xmin::text')],
  ['quote_of_id', (s) => `${s}.quote_of_id::text`],
  ['account_id', (s) => `${s}.account_id`],
  ['reblog_account_id', (s) => ofBoosted(s, 'ro.account_id')],
];

/** A column of the status `s` boosts; null for a status that is not a boost, whose lookup is then not even started. */
function ofBoosted(s: string, column: string): string {
  return `CASE WHEN ${s}.reblog_of_id IS NOT NULL THEN (SELECT ${column} FROM statuses ro WHERE ro.id = ${s}.reblog_of_id) END`;
}

function refColumns(s: string, prefix: string): string {
  return REF_FIELDS.map(([name, of]) => `${of(s)} AS ${prefix}${name}`).join(', ');
}

/** A ref's column names with a prefix, made once: a name made per row (prefix + key) is hashed on every read. */
const namesOf = (prefix: string) => ({
  version: `${prefix}version`,
  reblogOfId: `${prefix}reblog_of_id`,
  reblogVersion: `${prefix}reblog_version`,
  quoteOfId: `${prefix}quote_of_id`,
});
const PLAIN = namesOf('');
const JOINED = namesOf('status_');

export const STATUS_REFS: RowShape<StatusRef> = {
  columns: `s.id, ${refColumns('s', '')}`,
  map: (r) => refFrom(String(r['id']), r, PLAIN),
};

/** The names of STATUS_REFS' columns: a query that carries them through a CTE selects them by these. */
export const STATUS_REF_NAMES = ['id', ...REF_FIELDS.map(([name]) => name)].join(', ');

/**
 * A LEFT JOIN LATERAL naming the status `statusId` (an SQL expression) by ref, as the columns status_version,
 * status_reblog_of_id, status_reblog_version and status_quote_of_id (for pages of notifications, read by statusRefOf),
 * with the authors (status_account_id, status_reblog_account_id) for the page's dynamic parts (ref-pages.ts). `live`:
 * an expression over the status `sr`, read as the column status_live (the v1 page's LIVE test on the same probe).
 */
export function statusRefJoin(statusId: string, live?: string): string {
  const test = live === undefined ? '' : `, (${live}) AS status_live`;
  return `LEFT JOIN LATERAL (SELECT ${refColumns('sr', 'status_')}${test} FROM statuses sr WHERE sr.id = ${statusId}) sref ON true`;
}

/** The ref statusRefJoin's columns give status `id`; its version is null when the row had none (not joined, or gone). */
export function statusRefOf(id: string, r: Record<string, unknown>): StatusRef {
  return refFrom(id, r, JOINED);
}

/** A ref from a row's columns named as `names` says; absent columns read as null. */
function refFrom(id: string, r: Record<string, unknown>, names: ReturnType<typeof namesOf>): StatusRef {
  const text = (k: string) => (r[k] as string | null | undefined) ?? null;
  return { id, version: text(names.version), reblogOfId: text(names.reblogOfId), reblogVersion: text(names.reblogVersion), quoteOfId: text(names.quoteOfId) };
}
