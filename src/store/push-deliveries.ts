// The durable Web Push queue: one row per (subscription, notification), queued by the trigger on notifications
// (migration 045) and worked per push service host exactly as `deliveries` is: claimed with a lease, attempts and
// the next attempt time in the row (backoff survives restarts), given up after a day.
import type { Database } from './db.js';
import { HostQueue } from './host-queue.js';
import { type Notification, type NotificationRow, notificationWhere, toNotification } from './notifications.js';

export interface PushDelivery {
  readonly id: string;
  readonly subscriptionId: string;
  readonly notificationId: string;
  readonly accountId: string;
  /** The endpoint (named as a delivery's inbox for the shared host actor). */
  readonly inboxUrl: string;
  readonly keyP256dh: string;
  readonly keyAuth: string;
  readonly sealedToken: string;
  readonly standard: boolean;
  readonly attempts: number;
  readonly giveUpAt: Date;
}

interface ClaimRow {
  [k: string]: unknown;
  id: string;
  subscription_id: string;
  notification_id: string;
  account_id: string;
  endpoint: string;
  key_p256dh: string;
  key_auth: string;
  sealed_token: string;
  standard: boolean;
  attempts: number;
  give_up_at: Date;
}

export class PushDeliveryStore extends HostQueue {
  constructor(db: Database) {
    super(db, 'push_deliveries');
  }

  async claim(host: string, owner: string, limit: number, leaseMs: number): Promise<PushDelivery[]> {
    const rows = await this.db.rows<ClaimRow>(
      `WITH due AS (${this.claimable()}), c AS (
         UPDATE push_deliveries SET ${this.leaseSet()} WHERE id IN (SELECT id FROM due)
         RETURNING id, subscription_id, notification_id, attempts, give_up_at)
       SELECT c.*, s.account_id, s.endpoint, s.key_p256dh, s.key_auth, s.sealed_token, s.standard
       FROM c JOIN web_push_subscriptions s ON s.id = c.subscription_id ORDER BY c.id`,
      [host, owner, limit, leaseMs],
    );
    return rows.map((r) => ({
      id: r.id,
      subscriptionId: r.subscription_id,
      notificationId: r.notification_id,
      accountId: r.account_id,
      inboxUrl: r.endpoint,
      keyP256dh: r.key_p256dh,
      keyAuth: r.key_auth,
      sealedToken: r.sealed_token,
      standard: r.standard,
      attempts: r.attempts,
      giveUpAt: r.give_up_at,
    }));
  }

  /**
   * The notification as the member would see it in their list now (sender not blocked nor muted, status readable),
   * or undefined: what is not shown is not pushed.
   */
  async shown(accountId: string, notificationId: string): Promise<Notification | undefined> {
    const values: unknown[] = [accountId];
    const where = notificationWhere(values, {});
    const r = await this.db.one<NotificationRow>(`SELECT n.* FROM notifications n WHERE ${where} AND n.id = $${values.push(notificationId)}`, values);
    return r && toNotification(r);
  }
}
