// Notifications of local members. Adding one for an account that is not a local member (or for one's own action)
// does nothing, so callers can notify whoever an event concerns without checking.
import { pageSql, type PageQuery } from './paging.js';
import type { Database } from './db.js';

// `quote` (Mastodon 4.5): someone quoted the member's post; its status is the quoting one.
export const NOTIFICATION_TYPES = ['mention', 'status', 'reblog', 'follow', 'follow_request', 'favourite', 'poll', 'update', 'quote'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export interface Notification {
  readonly id: string;
  readonly accountId: string;
  readonly fromAccountId: string;
  readonly type: NotificationType;
  readonly statusId: string | null;
  readonly createdAt: Date;
}

/** What the services that cause notifications need. */
export type Notifier = Pick<NotificationStore, 'notify' | 'withdraw' | 'newPost'>;

export interface NotificationFilter {
  readonly types?: readonly string[];
  readonly excludeTypes?: readonly string[];
  readonly fromAccountId?: string;
}

interface Row {
  [k: string]: unknown;
  id: string; account_id: string; from_account_id: string; type: NotificationType; status_id: string | null; created_at: Date;
}

const toNotification = (r: Row): Notification => ({
  id: r.id, accountId: r.account_id, fromAccountId: r.from_account_id, type: r.type, statusId: r.status_id, createdAt: r.created_at,
});

// A notification about a deleted status is gone with it.
const LIVE = 'AND (n.status_id IS NULL OR EXISTS (SELECT 1 FROM statuses s WHERE s.id = n.status_id AND s.deleted_at IS NULL))';

export class NotificationStore {
  constructor(private readonly db: Database) {}

  async notify(recipientId: string, type: NotificationType, fromId: string, statusId: string | null = null): Promise<void> {
    if (recipientId === fromId) return;
    await this.db.exec(
      `INSERT INTO notifications (account_id, from_account_id, type, status_id)
       SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM users WHERE account_id = $1)
       ON CONFLICT DO NOTHING`,
      [recipientId, fromId, type, statusId],
    );
  }

  /**
   * A new post: local followers who follow its author with notify get a `status` notification, as Mastodon sends
   * them: not for boosts, direct posts or replies to others, and not to those it mentions (they are told anyway).
   */
  async newPost(s: { readonly id: string; readonly accountId: string; readonly visibility: string; readonly reblogOfId: string | null;
    readonly inReplyToId: string | null; readonly inReplyToUri: string | null; readonly inReplyToAccountId: string | null; readonly mentionIds: readonly string[] }): Promise<void> {
    if (s.reblogOfId || s.visibility === 'direct') return;
    if ((s.inReplyToId || s.inReplyToUri) && s.inReplyToAccountId !== s.accountId) return;
    await this.db.exec(
      `INSERT INTO notifications (account_id, from_account_id, type, status_id)
       SELECT f.account_id, $1, 'status', $2 FROM follows f
       WHERE f.target_account_id = $1 AND f.notify AND NOT (f.account_id = ANY($3::bigint[]))
         AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = f.account_id)
       ON CONFLICT DO NOTHING`,
      [s.accountId, s.id, s.mentionIds],
    );
  }

  /** The event was undone (unfavourite, unboost, unfollow): its notification goes too. */
  async withdraw(recipientId: string, type: NotificationType, fromId: string, statusId: string | null = null): Promise<void> {
    await this.db.exec(
      'DELETE FROM notifications WHERE account_id = $1 AND type = $2 AND from_account_id = $3 AND coalesce(status_id, 0) = coalesce($4::bigint, 0)',
      [recipientId, type, fromId, statusId],
    );
  }

  async list(accountId: string, page: PageQuery, f: NotificationFilter): Promise<Notification[]> {
    const values: unknown[] = [accountId];
    // Nothing from accounts the member blocks (or is blocked by), nor from muted ones whose notifications are muted.
    let where = `n.account_id = $1 ${LIVE}
      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = $1 AND b.target_account_id = n.from_account_id) OR (b.account_id = n.from_account_id AND b.target_account_id = $1))
      AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = $1 AND mu.target_account_id = n.from_account_id AND mu.hide_notifications
        AND (mu.expires_at IS NULL OR mu.expires_at > now()))`;
    if (f.types?.length) where += ` AND n.type = ANY($${values.push(f.types)}::text[])`;
    if (f.excludeTypes?.length) where += ` AND NOT (n.type = ANY($${values.push(f.excludeTypes)}::text[]))`;
    if (f.fromAccountId) where += ` AND n.from_account_id = $${values.push(f.fromAccountId)}`;
    const p = pageSql(page, 'n.id', values);
    return p.newestFirst((await this.db.rows<Row>(`SELECT n.* FROM notifications n WHERE ${where}${p.where}${p.orderLimit}`, values)).map(toNotification));
  }

  async one(accountId: string, id: string): Promise<Notification | undefined> {
    const r = await this.db.one<Row>(`SELECT n.* FROM notifications n WHERE n.account_id = $1 AND n.id = $2 ${LIVE}`, [accountId, id]);
    return r && toNotification(r);
  }

  async dismiss(accountId: string, id: string): Promise<void> {
    await this.db.exec('DELETE FROM notifications WHERE account_id = $1 AND id = $2', [accountId, id]);
  }

  async clear(accountId: string): Promise<void> {
    await this.db.exec('DELETE FROM notifications WHERE account_id = $1', [accountId]);
  }
}
