// The durable delivery queue: one row per (activity, destination inbox), claimed per destination host with a lease.
// Attempts, the next attempt time and the give-up time live in the row, so backoff survives restarts.
import { WORK_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';

export interface Delivery {
  readonly id: string;
  readonly activityId: string;
  readonly inboxUrl: string;
  readonly host: string;
  readonly signerId: string;
  readonly body: string;
  readonly attempts: number;
  readonly giveUpAt: Date;
}

export class DeliveryStore {
  constructor(private readonly db: Database) {}

  /** Queues one activity for many inboxes (duplicates collapse); returns the hosts that got new work. */
  async enqueue(activityId: string, signerId: string, body: string, inboxes: readonly string[], giveUpMs: number): Promise<string[]> {
    const unique = [...new Set(inboxes)];
    if (unique.length === 0) return [];
    const hosts = unique.map((u) => new URL(u).host.toLowerCase());
    // Every node's scheduler sleeps while its queue is empty; one notification per host, sent when the insert
    // commits, wakes that host's actor on every node (the claim's SKIP LOCKED shares the rows out).
    const rows = await this.db.rows<{ host: string }>(
      `WITH queued AS (
         INSERT INTO deliveries (activity_id, inbox_url, host, signer_id, body, give_up_at)
         SELECT $1, i.inbox, i.host, $2, $3, now() + $6 * interval '1 millisecond'
         FROM unnest($4::text[], $5::text[]) AS i(inbox, host)
         ON CONFLICT (activity_id, inbox_url) DO NOTHING RETURNING host
       ) SELECT h.host, pg_notify('${WORK_CHANNEL}', 'delivery:' || h.host) FROM (SELECT DISTINCT host FROM queued) h`,
      [activityId, signerId, body, unique, hosts, giveUpMs],
    );
    return rows.map((r) => r.host);
  }

  /** Hosts with work due now that nobody holds. */
  async dueHosts(limit: number): Promise<string[]> {
    // Longest-waiting hosts first, so that past the limit no host starves behind the same others.
    const rows = await this.db.rows<{ host: string }>(
      `SELECT host FROM deliveries WHERE next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
       GROUP BY host ORDER BY min(next_attempt_at) LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.host);
  }

  /** Milliseconds until some delivery becomes due (0 if now), or null with an empty queue. */
  async nextDueInMs(): Promise<number | null> {
    // Clamped here, not with SQL's greatest(), which skips NULL: greatest(0, NULL) is 0, "due now" for an empty queue.
    const r = await this.db.one<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(greatest(next_attempt_at, coalesce(lease_until, next_attempt_at))) - now()) * 1000)::float8 AS ms
       FROM deliveries`,
    );
    return r?.ms == null ? null : Math.max(0, r.ms);
  }

  async claim(host: string, owner: string, limit: number, leaseMs: number): Promise<Delivery[]> {
    const rows = await this.db.rows<{
      id: string;
      activity_id: string;
      inbox_url: string;
      host: string;
      signer_id: string;
      body: string;
      attempts: number;
      give_up_at: Date;
    }>(
      `UPDATE deliveries SET lease_until = now() + $4 * interval '1 millisecond', lease_owner = $2, attempts = attempts + 1
       WHERE id IN (SELECT id FROM deliveries WHERE host = $1 AND next_attempt_at <= now() AND give_up_at > now()
                    AND (lease_until IS NULL OR lease_until < now()) ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING id, activity_id, inbox_url, host, signer_id, body, attempts, give_up_at`,
      [host, owner, limit, leaseMs],
    );
    return rows.map((r) => ({
      id: r.id,
      activityId: r.activity_id,
      inboxUrl: r.inbox_url,
      host: r.host,
      signerId: r.signer_id,
      body: r.body,
      attempts: r.attempts,
      giveUpAt: r.give_up_at,
    }));
  }

  /** Drops deliveries past their give-up time that nobody holds; returns how many (they are never sent again). */
  async dropExpired(): Promise<number> {
    return this.db.exec('DELETE FROM deliveries WHERE give_up_at <= now() AND (lease_until IS NULL OR lease_until < now())');
  }

  async delivered(id: string): Promise<void> {
    await this.db.exec('DELETE FROM deliveries WHERE id = $1', [id]);
  }

  async retryAt(id: string, delayMs: number, error: string): Promise<void> {
    await this.db.exec(
      `UPDATE deliveries SET next_attempt_at = now() + $2 * interval '1 millisecond', lease_until = NULL, lease_owner = NULL, last_error = $3 WHERE id = $1`,
      [id, delayMs, error],
    );
  }

  /** Leases held by nodes that are gone (crashed) are released at once instead of waiting for them to expire. */
  async releaseLeasesExcept(liveOwners: readonly string[]): Promise<number> {
    return this.db.exec(`UPDATE deliveries SET lease_until = NULL, lease_owner = NULL WHERE lease_until > now() AND NOT (lease_owner = ANY($1::text[]))`, [
      liveOwners,
    ]);
  }
}
