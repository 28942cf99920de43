// Notifications of local members. Adding one for an account that is not a local member (or for one's own action)
// does nothing, so callers can notify whoever an event concerns without checking.
import { Permission } from '../auth/permissions.js';
import { pageSql, type PageQuery } from './paging.js';
import type { Database } from './db.js';
import { listable, silencedBy, threadNotMuted, visibleTo } from './visibility.js';
import { type StatusRef, statusRefJoin, statusRefOf } from './status-refs.js';
import { dynamicsOf, withDynamics } from './ref-pages.js';
import type { RenderBundle } from './render-bundle.js';

// `quote` (Mastodon 4.5): someone quoted the member's post; its status is the quoting one.
export const NOTIFICATION_TYPES = ['mention', 'status', 'reblog', 'follow', 'follow_request', 'favourite', 'poll', 'update', 'quote', 'admin.report'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface Notification {
  readonly id: string;
  readonly accountId: string;
  readonly fromAccountId: string;
  readonly type: NotificationType;
  readonly statusId: string | null;
  /** admin.report: the report filed. */
  readonly reportId: string | null;
  readonly createdAt: Date;
  /** The group it belongs to (favourites and boosts of one status, follows, within hours); null: ungrouped. */
  readonly groupKey: string | null;
  /** Its status by ref (store/status-refs.ts): with its version when the page's statement joined it (statusRefJoin). */
  readonly statusRef: StatusRef | null;
}

/** What the services that cause notifications need. */
export type Notifier = Pick<NotificationStore, 'notify' | 'withdraw' | 'newPost' | 'reportFiled'>;

export interface NotificationFilter {
  readonly types?: readonly string[];
  readonly excludeTypes?: readonly string[];
  readonly fromAccountId?: string;
  /** Also the notifications the member's policy filtered (Mastodon's include_filtered). */
  readonly includeFiltered?: boolean;
}

export interface NotificationRow {
  [k: string]: unknown;
  id: string;
  account_id: string;
  from_account_id: string;
  type: NotificationType;
  status_id: string | null;
  report_id: string | null;
  created_at: Date;
  group_key: string | null;
}

export const toNotification = (r: NotificationRow): Notification => ({
  id: r.id,
  accountId: r.account_id,
  fromAccountId: r.from_account_id,
  type: r.type,
  statusId: r.status_id,
  reportId: r.report_id,
  createdAt: r.created_at,
  groupKey: r.group_key,
  statusRef: r.status_id ? statusRefOf(r.status_id, r) : null,
});

/** Types whose notifications are grouped (Mastodon's GROUPABLE_NOTIFICATION_TYPES). */
export const GROUPABLE_TYPES: readonly string[] = ['favourite', 'reblog', 'follow', 'admin.sign_up'];
/** A group gathers notifications for at most this many hours from its first (Mastodon's MAXIMUM_GROUP_SPAN_HOURS). */
const GROUP_SPAN_HOURS = 12;

/** What a group key starts with: favourites and boosts group per status, follows (and sign-ups) per type. */
function groupPrefix(type: string, statusId: string | null): string | null {
  if (type === 'favourite' || type === 'reblog') return statusId ? `${type}-${statusId}` : null;
  return GROUPABLE_TYPES.includes(type) ? type : null;
}

/**
 * The key of a new notification for recipient $1 with prefix $5: "<prefix>-<hour since the epoch>", reusing the
 * hour of the recipient's latest notification with that prefix while it is under GROUP_SPAN_HOURS old, as Mastodon
 * does (it keeps that hour in Redis; here it is read back from the rows, by the (account_id, group_key) index).
 */
const NEW_GROUP_KEY = `CASE WHEN $5::text IS NULL THEN NULL ELSE coalesce(
    (SELECT g.group_key FROM notifications g WHERE g.account_id = $1
       AND g.group_key = ANY(ARRAY(SELECT $5::text || '-' || b FROM generate_series(h.hour - ${GROUP_SPAN_HOURS - 1}, h.hour) b))
     ORDER BY g.id DESC LIMIT 1),
    $5::text || '-' || h.hour) END`;

// A notification is shown only while its sender's account exists and its status (if any) is one the member may read
// (not deleted, no mention edited out, no follow ended): in the query, so a page holds exactly what is shown. A remote
// history post never announces itself (mention, new post, quote) until a delivery promotes it; what a member did to
// it (a vote whose poll ended) is still told.
/** Status `a` (of notification n) is one its member may be told of. */
// The member is $1 in every query here (n.account_id = $1): as a parameter, their blocks are read once (visibility.ts).
const statusLive = (a: string) => `${visibleTo('$1', a, 'called')} AND (${listable(a)} OR n.type NOT IN ('mention', 'status', 'quote'))`;
// The sender's row always exists (foreign key); asking whether it is among the few deleted ones searches a small
// partial index (migration 059) instead of reading the sender's row: ~55 of ~790 µs of a notifications page.
const SENDER_LIVE = 'AND NOT EXISTS (SELECT 1 FROM accounts fa WHERE fa.id = n.from_account_id AND fa.deleted_at IS NOT NULL)';
const LIVE = `${SENDER_LIVE}
  AND (n.status_id IS NULL OR EXISTS (SELECT 1 FROM statuses s WHERE s.id = n.status_id AND ${statusLive('s')}))`;

/**
 * The member's ($1 in values) notifications n that pass the filter; parameters are appended to values. `live`: the
 * status test as an expression of the caller's own join of n's status (the v1 page's ref join), instead of LIVE's.
 */
export function notificationWhere(values: unknown[], f: NotificationFilter, live?: string): string {
  // Nothing from accounts the member blocks (or is blocked by), nor from muted ones whose notifications are muted.
  // The set is read once per statement and probed by hash (visibility.ts isParam).
  let where = `n.account_id = $1 ${live === undefined ? LIVE : `${SENDER_LIVE} AND (n.status_id IS NULL OR ${live})`}
      AND NOT (n.from_account_id IN ${silencedBy('$1', 'notifications')})`;
  // What the member's policy filtered waits in its request (migration 051) until accepted.
  if (!f.includeFiltered) where += ' AND NOT n.filtered';
  if (f.types?.length) where += ` AND n.type = ANY($${values.push(f.types)}::text[])`;
  if (f.excludeTypes?.length) where += ` AND NOT (n.type = ANY($${values.push(f.excludeTypes)}::text[]))`;
  if (f.fromAccountId) where += ` AND n.from_account_id = $${values.push(f.fromAccountId)}`;
  return where;
}

export class NotificationStore {
  constructor(private readonly db: Database) {}

  async notify(recipientId: string, type: NotificationType, fromId: string, statusId: string | null = null): Promise<void> {
    if (recipientId === fromId) return;
    await this.db.exec(
      `INSERT INTO notifications (account_id, from_account_id, type, status_id, group_key)
       SELECT $1, $2, $3, $4, ${NEW_GROUP_KEY} FROM (SELECT floor(extract(epoch FROM now()) / 3600)::bigint AS hour) h
       WHERE EXISTS (SELECT 1 FROM users WHERE account_id = $1) AND ${threadNotMuted('$1', '(SELECT thread_root($4::bigint))')}
       ON CONFLICT DO NOTHING`,
      [recipientId, fromId, type, statusId, groupPrefix(type, statusId)],
    );
  }

  /**
   * A new post: local followers who follow its author with notify get a `status` notification, as Mastodon sends
   * them: not for boosts, direct posts or replies to others, and not to those it mentions (they are told anyway).
   */
  async newPost(s: {
    readonly id: string;
    readonly accountId: string;
    readonly visibility: string;
    readonly reblogOfId: string | null;
    readonly inReplyToId: string | null;
    readonly inReplyToUri: string | null;
    readonly inReplyToAccountId: string | null;
    readonly mentionIds: readonly string[];
  }): Promise<void> {
    if (s.reblogOfId || s.visibility === 'direct') return;
    if ((s.inReplyToId || s.inReplyToUri) && s.inReplyToAccountId !== s.accountId) return;
    await this.db.exec(
      `INSERT INTO notifications (account_id, from_account_id, type, status_id)
       SELECT f.account_id, $1, 'status', $2 FROM follows f
       WHERE f.target_account_id = $1 AND f.notify AND NOT (f.account_id = ANY($3::bigint[]))
         AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = f.account_id) AND ${threadNotMuted('f.account_id', '(SELECT thread_root($2::bigint))')}
       ON CONFLICT DO NOTHING`,
      [s.accountId, s.id, s.mentionIds],
    );
  }

  /**
   * A report was filed: every member who may manage reports hears of it (admin.report, from the reporter), as
   * Mastodon's ReportService does: but only when no other report on the same account is still open, so a pile-on
   * does not notify once per report.
   */
  async reportFiled(r: { readonly id: string; readonly accountId: string; readonly targetAccountId: string }): Promise<void> {
    await this.db.exec(
      `INSERT INTO notifications (account_id, from_account_id, type, report_id)
       SELECT u.account_id, $2, 'admin.report', $1 FROM users u JOIN roles ro ON ro.id = u.role_id
       WHERE ro.permissions & $4::bigint <> 0 AND u.account_id <> $2
         AND NOT EXISTS (SELECT 1 FROM reports o WHERE o.target_account_id = $3 AND o.id <> $1 AND o.action_taken_at IS NULL)
       ON CONFLICT DO NOTHING`,
      [r.id, r.accountId, r.targetAccountId, String(Permission.administrator | Permission.manageReports)],
    );
  }

  /** The event was undone (unfavourite, unboost, unfollow): its notification goes too. */
  async withdraw(recipientId: string, type: NotificationType, fromId: string, statusId: string | null = null): Promise<void> {
    await this.db.exec(
      'DELETE FROM notifications WHERE account_id = $1 AND type = $2 AND from_account_id = $3 AND coalesce(status_id, 0) = coalesce($4::bigint, 0)',
      [recipientId, type, fromId, statusId],
    );
  }

  /**
   * A page of the member's notifications, with the dynamic parts of the statuses they name read in the same
   * statement (ref-pages.ts withDynamics): a page the render cache holds costs one round trip.
   */
  async list(accountId: string, page: PageQuery, f: NotificationFilter): Promise<{ items: Notification[]; dynamics: RenderBundle | null }> {
    const values: unknown[] = [accountId];
    // The status is read once, by the ref join, which also says whether the member may be told of it.
    const where = notificationWhere(values, f, 'sref.status_live');
    const p = pageSql(page, 'n.id', values);
    const sql = withDynamics(
      `SELECT n.*, sref.* FROM notifications n ${statusRefJoin('n.status_id', statusLive('sr'))} WHERE ${where}${p.where}${p.orderLimit}`,
      values,
      accountId,
      `page.id ${p.order}`,
      {
        statuses: ['status_id', 'status_reblog_of_id'],
        accounts: ['from_account_id', 'status_account_id', 'status_reblog_account_id'],
      },
    );
    const rows = await this.db.rows<NotificationRow>(sql, values, 'prepared');
    return { items: p.newestFirst(rows.map(toNotification)), dynamics: dynamicsOf(rows, accountId) };
  }

  async one(accountId: string, id: string): Promise<Notification | undefined> {
    // As the pages: nothing from accounts the member blocks, is blocked by, mutes notifications of or whose domain
    // the member blocks (the stream reads its notifications here).
    const r = await this.db.one<NotificationRow>(
      `SELECT n.* FROM notifications n WHERE n.account_id = $1 AND n.id = $2 ${LIVE} AND NOT (n.from_account_id IN ${silencedBy('$1', 'notifications')})`,
      [accountId, id],
    );
    return r && toNotification(r);
  }

  /** False when the member has no such notification. */
  async dismiss(accountId: string, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM notifications WHERE account_id = $1 AND id = $2', [accountId, id])) > 0;
  }

  async clear(accountId: string): Promise<void> {
    await this.db.exec('DELETE FROM notifications WHERE account_id = $1', [accountId]);
  }
}
