// A timeline's page named by refs (status-refs.ts) with its dynamic parts read in the same statement (issue 19):
// counts, the viewer's flags, polls and reactions of the page's statuses and of those they boost, as
// RenderBundleStore.dynamics reads them. A page whose statuses the render cache holds at the versions named then
// costs one round trip; when it does not, the dynamic parts are not used and the render bundle is read instead (a
// miss pays for both, once: the render keeps what it read).
import { type BundleRow, dynamicItems, NOBODY, type RenderBundle, toBundle } from './render-bundle.js';
import { type PageShape, STATUS_REFS, type StatusRef } from './status-refs.js';

export interface RefPage {
  /** Newest first. */
  readonly refs: readonly StatusRef[];
  /** Read for the page as if every status were held; null if not read (an empty page, a statement without them). */
  readonly dynamics: RenderBundle | null;
}

export const REF_PAGES: PageShape<RefPage> = {
  columns: STATUS_REFS.columns,
  statement(sql, values, viewerId, order) {
    const v = `$${values.push(viewerId ?? NOBODY)}::bigint`;
    const ids = '(SELECT a FROM ids)::bigint[]';
    // The dynamic parts come once, on the page's newest row. The authors come from the page's own columns: reading
    // them back from statuses cost ~150 µs of PostgreSQL a page.
    return `WITH page AS MATERIALIZED (${sql}),
      ids AS (SELECT ARRAY(SELECT id FROM page WHERE id IS NOT NULL UNION SELECT reblog_of_id::bigint FROM page WHERE reblog_of_id IS NOT NULL) AS a),
      counted AS (SELECT ARRAY(SELECT account_id FROM page WHERE id IS NOT NULL UNION SELECT reblog_account_id FROM page WHERE reblog_account_id IS NOT NULL) AS a),
      dyn AS MATERIALIZED (SELECT ${dynamicItems(ids, v, '(SELECT a FROM counted)::bigint[]', ids)})
      SELECT page.*, dyn.* FROM page LEFT JOIN dyn ON page.id = (SELECT max(id) FROM page) ORDER BY page.id ${order}`;
  },
  collect(rows, viewerId) {
    const refs: StatusRef[] = [];
    let dynamics: RenderBundle | null = null;
    for (const r of rows) {
      if (r['id'] === null || r['id'] === undefined) continue;
      refs.push(STATUS_REFS.map(r));
      if (r['favourited'] !== null && r['favourited'] !== undefined) dynamics = toBundle(r as BundleRow, viewerId);
    }
    return { refs, dynamics };
  },
};
