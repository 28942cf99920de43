// Mastodon 4.3's grouped notifications, read from the group keys stored on notifications: pages of groups (one
// notification per group, found by a recursive walk down the member's notifications as Mastodon's
// Notification::Groups does), what each group holds (count, newest, sample accounts), one group's members, and the
// unread counts behind the notifications marker.
import type { Database } from './db.js';
import { isId } from './ids.js';
import { notificationWhere, toNotification, type Notification, type NotificationFilter, type NotificationRow } from './notifications.js';
import { cursorSql, limitSql, pageSql, type PageQuery } from './paging.js';
import { statusRefJoin } from './status-refs.js';
import { dynamicsOf, withDynamics } from './ref-pages.js';
import type { RenderBundle } from './render-bundle.js';

/** Accounts named per group (Mastodon's NotificationGroup::SAMPLE_ACCOUNTS_SIZE). */
export const SAMPLE_ACCOUNTS = 8;

export interface GroupData {
  readonly mostRecentId: string;
  /** Newest first. */
  readonly sampleAccountIds: readonly string[];
  readonly count: number;
  /** Within a page: the group's oldest notification in the page's range and when its newest was made. */
  readonly pageMinId?: string;
  readonly latestAt?: Date;
}

/** The notifications a member is shown (the API renders nothing else, so groups must not count them either). */
const shownWhere = notificationWhere;

const COLUMNS = 'n.id, n.account_id, n.from_account_id, n.type, n.status_id, n.report_id, n.created_at, n.group_key';

/** A notification's group in a listing: its stored key when its type is grouped, else "ungrouped-<id>". */
export function groupKeyOf(n: Notification, groupedTypes: readonly string[]): string {
  return n.groupKey !== null && groupedTypes.includes(n.type) ? n.groupKey : `ungrouped-${n.id}`;
}

/** `n.id = $x` for "ungrouped-<id>", `n.group_key = $x` otherwise (Mastodon's by_group_key); null: names nothing. */
function byKey(key: string, values: unknown[]): string | null {
  if (key.startsWith('ungrouped-')) {
    const id = key.slice('ungrouped-'.length);
    return isId(id) ? `n.id = $${values.push(id)}` : null;
  }
  return `n.group_key = $${values.push(key)}`;
}

const ROW = 'id, account_id, from_account_id, type, status_id, report_id, created_at, group_key';
const ALL_BUT_STATUS = 'id, account_id, from_account_id, type, NULL::bigint AS status_id, report_id, created_at, group_key, filtered';

/**
 * What a group holds, aggregated over its shown notifications n (page_min_id is added by the caller's range). The
 * samples stay bigint[] (node-postgres reads int8 as text): cast to text and back for the page's counts cost ~45 µs.
 */
const FIGURES = `max(n.id) AS most_recent, (array_agg(n.from_account_id ORDER BY n.id DESC))[1:${SAMPLE_ACCOUNTS}] AS samples,
  count(*)::int AS count, (array_agg(n.created_at ORDER BY n.id DESC))[1] AS latest_at`;

interface GroupRow {
  [k: string]: unknown;
  most_recent: string | null;
  samples: string[];
  count: number;
  page_min_id?: string | null;
  latest_at: Date;
}

function groupData(r: GroupRow, paged: boolean): GroupData {
  return {
    mostRecentId: r.most_recent!,
    sampleAccountIds: r.samples,
    count: r.count,
    ...(paged ? { pageMinId: r.page_min_id ?? r.most_recent!, latestAt: r.latest_at } : {}),
  };
}

/**
 * The recursive walk behind a page of groups (`grouped`: one notification per group, with the keys met so far);
 * its parameters are appended to values.
 */
function walkSql(values: unknown[], page: PageQuery, f: NotificationFilter, groupedTypes: readonly string[]): { cte: string; limit: string; up: boolean } {
  let where = shownWhere(values, f);
  const c = cursorSql(page, 'n.id', values);
  where += c.where;
  const up = c.order === 'ASC';
  const key = `CASE WHEN n.group_key IS NOT NULL AND n.type = ANY($${values.push(groupedTypes)}::text[]) THEN n.group_key ELSE 'ungrouped-' || n.id END`;
  const limit = `$${values.push(page.limit)}::int`;
  return {
    cte: `WITH RECURSIVE grouped AS (
         (SELECT ${COLUMNS}, ARRAY[${key}] AS groups FROM notifications n WHERE ${where} ORDER BY n.id ${c.order} LIMIT 1)
         UNION ALL
         SELECT nx.id, nx.account_id, nx.from_account_id, nx.type, nx.status_id, nx.report_id, nx.created_at, nx.group_key, wt.groups || nx.gk
         FROM grouped wt CROSS JOIN LATERAL (
           SELECT ${COLUMNS}, ${key} AS gk FROM notifications n
           WHERE ${where} AND n.id ${up ? '>' : '<'} wt.id AND NOT (${key} = ANY(wt.groups))
           ORDER BY n.id ${c.order} LIMIT 1) nx
         WHERE cardinality(wt.groups) < ${limit})`,
    limit,
    up,
  };
}

export class NotificationGroupStore {
  constructor(private readonly db: Database) {}

  /**
   * One page of groups, newest first: walking down from the cursor, each notification whose group was not met yet
   * stands for its group, until `limit` groups are found. min_id walks up from the cursor instead.
   */
  async page(accountId: string, page: PageQuery, f: NotificationFilter, groupedTypes: readonly string[]): Promise<Notification[]> {
    const values: unknown[] = [accountId];
    const walk = walkSql(values, page, f, groupedTypes);
    const rows = await this.db.rows<NotificationRow>(
      `${walk.cte} SELECT g.*, sref.* FROM (SELECT ${ROW} FROM grouped) g ${statusRefJoin('g.status_id')} ORDER BY g.id DESC`,
      values,
      'prepared',
    );
    return rows.map(toNotification);
  }

  /**
   * A page of groups with what each holds (`data` with the page's range), in one statement: the walk, then one pass
   * over the page's groups counted up to the range's end. The range is Mastodon's controller's: the page's bounds,
   * but an incomplete page (the last one) reaches to the cursor it was asked from, or without one, to the end.
   */
  async pageWithData(
    accountId: string,
    page: PageQuery,
    f: NotificationFilter,
    groupedTypes: readonly string[],
  ): Promise<{ items: Notification[]; data: Map<string, GroupData>; dynamics: RenderBundle | null }> {
    const values: unknown[] = [accountId];
    const walk = walkSql(values, page, f, groupedTypes);
    const full = `count(*) >= ${walk.limit}`;
    const lo = walk.up ? 'min(id)' : `CASE WHEN ${full} THEN min(id) ELSE $${values.push(page.sinceId ?? null)}::bigint + 1 END`;
    const hi = walk.up ? `CASE WHEN ${full} THEN max(id) ELSE $${values.push(page.maxId ?? null)}::bigint - 1 END` : 'max(id)';
    // Every notification of a group is about the one status its key names (favourite-<status>-<hour>), and the
    // walk found that status shown to the member: the figures read the group's rows without asking again of each
    // (status_id read as NULL, the filter's status test folds away), still filtering their senders.
    const where = shownWhere(values, { includeFiltered: f.includeFiltered });
    // The dynamic parts of the statuses and accounts the page shows come in the same statement (ref-pages.ts), on its
    // newest row: a page the render cache holds costs one round trip.
    const sql = `${walk.cte},
       pg AS (SELECT ${ROW}, groups[cardinality(groups)] AS key FROM grouped),
       rng AS (SELECT ${lo} AS lo, ${hi} AS hi FROM pg),
       d AS (SELECT n.group_key AS key, ${FIGURES}, min(n.id) FILTER (WHERE r.lo IS NULL OR n.id >= r.lo) AS page_min_id
         FROM (SELECT ${ALL_BUT_STATUS} FROM notifications) n, rng r
         WHERE ${where} AND n.group_key = ANY(ARRAY(SELECT key FROM pg WHERE key NOT LIKE 'ungrouped-%')) AND (r.hi IS NULL OR n.id <= r.hi)
         GROUP BY n.group_key)
       SELECT pg.*, d.most_recent, d.samples, d.count, d.page_min_id, d.latest_at, sref.* FROM pg LEFT JOIN d ON d.key = pg.key
         ${statusRefJoin('pg.status_id')}`;
    const rows = await this.db.rows<NotificationRow & GroupRow>(
      withDynamics(sql, values, accountId, 'page.id DESC', {
        statuses: ['status_id', 'status_reblog_of_id'],
        accounts: ['from_account_id', 'status_account_id', 'status_reblog_account_id'],
        accountArrays: ['samples'],
      }),
      values,
      'prepared',
    );
    const data = new Map<string, GroupData>();
    for (const r of rows) if (r.most_recent !== null) data.set(r['key'] as string, groupData(r, true));
    return { items: rows.map(toNotification), data, dynamics: dynamicsOf(rows, accountId) };
  }

  /** What the groups with these keys hold, whole (one group's page); one pass over their shown notifications. */
  async data(accountId: string, keys: readonly string[]): Promise<Map<string, GroupData>> {
    if (keys.length === 0) return new Map();
    const values: unknown[] = [accountId];
    const where = shownWhere(values, {});
    const rows = await this.db.rows<GroupRow & { key: string }>(
      `SELECT n.group_key AS key, ${FIGURES} FROM notifications n WHERE ${where} AND n.group_key = ANY($${values.push(keys)}::text[]) GROUP BY n.group_key`,
      values,
      'prepared',
    );
    return new Map(rows.map((r) => [r.key, groupData(r, false)]));
  }

  /** The newest shown notification of a group ("ungrouped-<id>" names one notification). */
  async newestOf(accountId: string, key: string): Promise<Notification | undefined> {
    const values: unknown[] = [accountId];
    const where = shownWhere(values, {});
    const k = byKey(key, values);
    if (!k) return undefined;
    const r = await this.db.one<NotificationRow>(`SELECT n.* FROM notifications n WHERE ${where} AND ${k} ORDER BY n.id DESC LIMIT 1`, values);
    return r && toNotification(r);
  }

  /** A group's notifications, newest first, by notification id: who is in it, a page at a time. */
  async members(accountId: string, key: string, page: PageQuery): Promise<Notification[]> {
    const values: unknown[] = [accountId];
    const where = shownWhere(values, {});
    const k = byKey(key, values);
    if (!k) return [];
    const p = pageSql(page, 'n.id', values);
    const rows = await this.db.rows<NotificationRow>(`SELECT n.* FROM notifications n WHERE ${where} AND ${k}${p.where}${p.orderLimit}`, values);
    return p.newestFirst(rows).map(toNotification);
  }

  /** Dismissing a group removes every notification in it. */
  async dismiss(accountId: string, key: string): Promise<void> {
    const values: unknown[] = [accountId];
    const k = byKey(key, values);
    if (k) await this.db.exec(`DELETE FROM notifications n WHERE n.account_id = $1 AND ${k}`, values);
  }

  /** Shown notifications newer than the marker (all without one), counted up to `limit`. */
  async unread(accountId: string, after: string | undefined, limit: number, f: NotificationFilter): Promise<number> {
    const values: unknown[] = [accountId];
    let where = shownWhere(values, f);
    if (after) where += ` AND n.id > $${values.push(after)}`;
    const r = await this.db.one<{ n: number }>(
      // Polled by clients: prepared, a usual limit in the text so that the generic plan is kept (as the v1 page's).
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM notifications n WHERE ${where} ORDER BY n.id LIMIT ${limitSql(limit, values)}) x`,
      values,
      'prepared',
    );
    return r?.n ?? 0;
  }

  /** Groups with a notification newer than the marker (all without one), counted up to `limit`. */
  async unreadGroups(accountId: string, after: string | undefined, limit: number, f: NotificationFilter, groupedTypes: readonly string[]): Promise<number> {
    // The first page of groups walking up from the marker (from the oldest without one) is exactly that set.
    return (await this.page(accountId, { minId: after ?? '0', limit }, f, groupedTypes)).length;
  }
}
