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
  /** ` ORDER BY column … LIMIT $n`. */
  readonly orderLimit: string;
  /** Puts rows fetched for min_id back newest first. */
  newestFirst<T>(rows: T[]): T[];
}

/** The cursor conditions, order and limit for `column`; their parameters are appended to `values`. */
export function pageSql(page: PageQuery, column: string, values: unknown[]): PageSql {
  let where = '';
  if (page.maxId) where += ` AND ${column} < $${values.push(page.maxId)}`;
  if (page.sinceId) where += ` AND ${column} > $${values.push(page.sinceId)}`;
  if (page.minId) where += ` AND ${column} > $${values.push(page.minId)}`;
  const ascending = !!page.minId && !page.sinceId;
  return {
    where,
    orderLimit: ` ORDER BY ${column} ${ascending ? 'ASC' : 'DESC'} LIMIT $${values.push(page.limit)}`,
    newestFirst: (rows) => (ascending ? rows.reverse() : rows),
  };
}
