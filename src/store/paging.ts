// Mastodon's cursors over a time-ordered id column, in one place for every paged query: max_id (older than),
// since_id (newer than, newest first), min_id (the rows just newer: fetched oldest first, handed back newest first).
export interface PageQuery {
  readonly maxId?: string;
  readonly sinceId?: string;
  readonly minId?: string;
  readonly limit: number;
}

/** The cursors alone, for a query that orders and limits its own way (the grouped notifications' walk). */
export interface CursorSql {
  /** ` AND column < $n …` (empty without cursors). */
  readonly where: string;
  /** The direction rows are fetched in: ASC for min_id (the rows just newer), else DESC. */
  readonly order: 'ASC' | 'DESC';
  /** Puts rows fetched for min_id back newest first. */
  newestFirst<T>(rows: T[]): T[];
}

export interface PageSql extends CursorSql {
  /** ` ORDER BY column … LIMIT n` (the limit written in, not a parameter: see pageSql). */
  readonly orderLimit: string;
}

/**
 * Limits written into statement text (`limitSql`): clients' defaults and maxima. As a parameter the planner's generic
 * plan cannot know a page is 20 rows, costs it as a tenth of the table and so plans every execution afresh (issue 19:
 * 2–6 ms of planning per home page, 1.8 ms per notifications page). Only these, so that a client cycling through
 * every limit cannot make each connection prepare a statement per value; others stay parameters.
 */
const LIMITS_IN_TEXT: ReadonlySet<number> = new Set([20, 40, 80, 100]);

/** `LIMIT`'s operand: a usual limit as text, any other as a parameter appended to values. */
export function limitSql(limit: number, values: unknown[]): string {
  return Number.isSafeInteger(limit) && LIMITS_IN_TEXT.has(limit) ? String(limit) : `$${values.push(limit)}`;
}

/** The cursor conditions and direction for `column`; their parameters are appended to `values`. */
export function cursorSql(page: PageQuery, column: string, values: unknown[]): CursorSql {
  let where = '';
  if (page.maxId) where += ` AND ${column} < $${values.push(page.maxId)}`;
  if (page.sinceId) where += ` AND ${column} > $${values.push(page.sinceId)}`;
  if (page.minId) where += ` AND ${column} > $${values.push(page.minId)}`;
  const ascending = !!page.minId && !page.sinceId;
  return { where, order: ascending ? 'ASC' : 'DESC', newestFirst: (rows) => (ascending ? rows.reverse() : rows) };
}

/** The cursor conditions, order and limit for `column`; their parameters are appended to `values`. */
export function pageSql(page: PageQuery, column: string, values: unknown[]): PageSql {
  const c = cursorSql(page, column, values);
  return { ...c, orderLimit: ` ORDER BY ${column} ${c.order} LIMIT ${limitSql(page.limit, values)}` };
}
