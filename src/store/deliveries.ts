// The durable delivery queue: one row per (activity, destination inbox), claimed per destination host with a lease.
// Attempts, the next attempt time and the give-up time live in the row, so backoff survives restarts.
import { WORK_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';
import { HostQueue } from './host-queue.js';

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

export class DeliveryStore extends HostQueue {
  constructor(db: Database) {
    super(db, 'deliveries');
  }

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
      `WITH due AS (${this.claimable()})
       UPDATE deliveries SET ${this.leaseSet()} WHERE id IN (SELECT id FROM due)
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
}
