// Mastodon's cursors over a time-ordered id column, in one place for every paged query: max_id (older than),
// since_id (newer than, newest first), min_id (the rows just newer: fetched oldest first, handed back newest first).
export interface PageQuery {
  readonly maxId?: string;
  readonly sinceId?: string;
  readonly minId?: string;
  readonly limit: number;
}

export interface PageSql {
  /** ` AND column < $n …` (empty without cursors). */
  readonly where: string;
  /** ` ORDER BY column … LIMIT n` (the limit written in, not a parameter: see pageSql). */
  readonly orderLimit: string;
  /** Puts rows fetched for min_id back newest first. */
  newestFirst<T>(rows: T[]): T[];
}

/**
 * The cursor conditions, order and limit for `column`; the cursors' parameters are appended to `values`. The limit
 * is written into the text (a whole number, so one statement per page size): as a parameter the planner's generic
 * plan cannot know a page is 20 rows, costs it as a tenth of the table and so plans every execution afresh, which
 * cost the home page 2–6 ms of planning per request (issue 19).
 */
export function pageSql(page: PageQuery, column: string, values: unknown[]): PageSql {
  const limit = Math.trunc(page.limit);
  if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`page limit must be a whole number ≥ 0 (got ${page.limit})`);
  let where = '';
  if (page.maxId) where += ` AND ${column} < $${values.push(page.maxId)}`;
  if (page.sinceId) where += ` AND ${column} > $${values.push(page.sinceId)}`;
  if (page.minId) where += ` AND ${column} > $${values.push(page.minId)}`;
  const ascending = !!page.minId && !page.sinceId;
  return {
    where,
    orderLimit: ` ORDER BY ${column} ${ascending ? 'ASC' : 'DESC'} LIMIT ${limit}`,
    newestFirst: (rows) => (ascending ? rows.reverse() : rows),
  };
}
