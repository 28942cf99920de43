// The durable Web Push queue: one row per (subscription, notification), queued by the trigger on notifications
// (migration 045) and worked per push service host exactly as `deliveries` is: claimed with a lease, attempts and
// the next attempt time in the row (backoff survives restarts), given up after a day.
import type { Database } from './db.js';
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

export class PushDeliveryStore {
  constructor(private readonly db: Database) {}

  /** Hosts with pushes due now that nobody holds, longest-waiting first. */
  async dueHosts(limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ host: string }>(
      `SELECT host FROM push_deliveries WHERE next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
       GROUP BY host ORDER BY min(next_attempt_at) LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.host);
  }

  /** Milliseconds until some push becomes due (0 if now), or null with an empty queue (clamped in JS: see deliveries). */
  async nextDueInMs(): Promise<number | null> {
    const r = await this.db.one<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(greatest(next_attempt_at, coalesce(lease_until, next_attempt_at))) - now()) * 1000)::float8 AS ms
       FROM push_deliveries`,
    );
    return r?.ms == null ? null : Math.max(0, r.ms);
  }

  async claim(host: string, owner: string, limit: number, leaseMs: number): Promise<PushDelivery[]> {
    const rows = await this.db.rows<ClaimRow>(
      `WITH c AS (
         UPDATE push_deliveries SET lease_until = now() + $4 * interval '1 millisecond', lease_owner = $2, attempts = attempts + 1
         WHERE id IN (SELECT id FROM push_deliveries WHERE host = $1 AND next_attempt_at <= now() AND give_up_at > now()
                      AND (lease_until IS NULL OR lease_until < now()) ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
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

  async dropExpired(): Promise<number> {
    return this.db.exec('DELETE FROM push_deliveries WHERE give_up_at <= now() AND (lease_until IS NULL OR lease_until < now())');
  }

  async delivered(id: string): Promise<void> {
    await this.db.exec('DELETE FROM push_deliveries WHERE id = $1', [id]);
  }

  async retryAt(id: string, delayMs: number, error: string): Promise<void> {
    await this.db.exec(
      `UPDATE push_deliveries SET next_attempt_at = now() + $2 * interval '1 millisecond', lease_until = NULL, lease_owner = NULL, last_error = $3 WHERE id = $1`,
      [id, delayMs, error],
    );
  }

  async releaseLeasesExcept(liveOwners: readonly string[]): Promise<number> {
    return this.db.exec('UPDATE push_deliveries SET lease_until = NULL, lease_owner = NULL WHERE lease_until > now() AND NOT (lease_owner = ANY($1::text[]))', [
      liveOwners,
    ]);
  }
}
