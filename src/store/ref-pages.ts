// A timeline's page named by refs (status-refs.ts) with its dynamic parts read in the same statement (issue 19):
// counts, the viewer's flags, polls and reactions of the page's statuses and of those they boost, as
// RenderBundleStore.dynamics reads them. A page whose statuses the render cache holds at the versions named then
// costs one round trip; when it does not, the dynamic parts are not used and the render bundle is read instead (a
// miss pays for both, once: the render keeps what it read).
import { type BundleRow, dynamicItems, NOBODY, type RenderBundle, toBundle, withOwnVotes } from './render-bundle.js';
import { type PageShape, STATUS_REFS, type StatusRef } from './status-refs.js';

export interface RefPage {
  /** Newest first. */
  readonly refs: readonly StatusRef[];
  /** Read for the page as if every status were held; null if not read (an empty page, a statement without them). */
  readonly dynamics: RenderBundle | null;
}

/**
 * A page's statement `sql` as the MATERIALIZED CTE `page`, with the dynamic parts of the statuses it names read in
 * the same statement (dynamicItems), on its newest row (greatest `id`), rows in `order`. `statuses` and `accounts` name
 * page's columns holding the statuses (boosted ones included) and the accounts whose counts are shown.
 */
export function withDynamics(
  sql: string,
  values: unknown[],
  viewerId: string | null,
  order: string,
  names: {
    readonly statuses: readonly string[];
    readonly accounts: readonly string[];
    /** Columns holding arrays of accounts whose counts are shown too (a group's sample accounts). */
    readonly accountArrays?: readonly string[];
  },
): string {
  const v = `$${values.push(viewerId ?? NOBODY)}::bigint`;
  // Each array is the page's column gathered in one pass over the page, repeats and all: each lookup by `= ANY(array)`
  // meets a row once (the index scan sorts and dedups its keys); a UNION's hashing cost ~20 µs a page, and a subquery
  // per column one more scan and node each (issue 19).
  const all = (columns: readonly string[], arrays: readonly string[] = []) =>
    [
      ...columns.map((c) => `coalesce(array_agg(${c}::bigint) FILTER (WHERE ${c} IS NOT NULL), '{}')`),
      ...arrays.map((c) => `coalesce((SELECT array_agg(x::bigint) FROM page p2, unnest(p2.${c}) x), '{}')`),
    ].join(' || ');
  return `WITH page AS MATERIALIZED (${sql}),
      arrs AS (SELECT ${all(names.statuses)} AS ids, ${all(names.accounts, names.accountArrays)} AS counted FROM page),
      dyn AS MATERIALIZED (${withOwnVotes(dynamicItems('arrs.ids', v, 'arrs.counted', 'arrs.ids'), 'arrs.ids', v, { items: 'arrs', votes: 'arrs' })})
      SELECT page.*, dyn.* FROM page LEFT JOIN dyn ON page.id = (SELECT max(id) FROM page) ORDER BY ${order}`;
}

/** The dynamic parts withDynamics read, from the row that carries them; null if none does (an empty page). */
export function dynamicsOf(rows: readonly Record<string, unknown>[], viewerId: string | null): RenderBundle | null {
  const r = rows.find((x) => x['favourited'] !== null && x['favourited'] !== undefined);
  return r ? toBundle(r as BundleRow, viewerId) : null;
}

export const REF_PAGES: PageShape<RefPage> = {
  columns: STATUS_REFS.columns,
  // The authors come from the page's own columns: reading them back from statuses cost ~150 µs of PostgreSQL a page.
  statement: (sql, values, viewerId, order) =>
    withDynamics(sql, values, viewerId, `page.id ${order}`, { statuses: ['id', 'reblog_of_id'], accounts: ['account_id', 'reblog_account_id'] }),
  collect: (rows, viewerId) => ({
    refs: rows.flatMap((r) => (r['id'] === null || r['id'] === undefined ? [] : [STATUS_REFS.map(r)])),
    dynamics: dynamicsOf(rows, viewerId),
  }),
};
