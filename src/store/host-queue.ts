// What the two per-host queues share (`deliveries` for ActivityPub, `push_deliveries` for Web Push): rows claimed per
// destination host under a lease, with attempts, the next attempt time and the give-up time in the row, so backoff
// survives restarts. Each store adds its own enqueue and claim (their columns differ); the table name is a constant
// of the subclass, never input.
import type { Database } from './db.js';

export abstract class HostQueue {
  protected constructor(
    protected readonly db: Database,
    private readonly table: 'deliveries' | 'push_deliveries',
  ) {}

  /**
   * The ids a claim of `host` may take now ($1 host, $3 limit), locked so two nodes never take the same row. A claim
   * names them as a CTE (`WITH due AS (…) UPDATE … WHERE id IN (SELECT id FROM due)`), never as `id IN (this)`: a plan
   * that scans such a subquery again per row gets more rows each time (SKIP LOCKED passes over those the same UPDATE
   * has just taken), so one claim of 2 could take 6 (test/federation/delivery.test.ts saw 6 requests in flight to a
   * host bounded at 2). A locking CTE runs once.
   */
  protected claimable(): string {
    return `SELECT id FROM ${this.table} WHERE host = $1 AND next_attempt_at <= now() AND give_up_at > now()
            AND (lease_until IS NULL OR lease_until < now()) ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED`;
  }

  /** The lease a claim sets ($2 owner, $4 lease in ms), counting the attempt. */
  protected leaseSet(): string {
    return `lease_until = now() + $4 * interval '1 millisecond', lease_owner = $2, attempts = attempts + 1`;
  }

  /** Hosts with work due now that nobody holds. */
  async dueHosts(limit: number): Promise<string[]> {
    // Longest-waiting hosts first, so that past the limit no host starves behind the same others.
    const rows = await this.db.rows<{ host: string }>(
      `SELECT host FROM ${this.table} WHERE next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
       GROUP BY host ORDER BY min(next_attempt_at) LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.host);
  }

  /** Milliseconds until some row becomes due (0 if now), or null with an empty queue. */
  async nextDueInMs(): Promise<number | null> {
    // Clamped here, not with SQL's greatest(), which skips NULL: greatest(0, NULL) is 0, "due now" for an empty queue.
    const r = await this.db.one<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(greatest(next_attempt_at, coalesce(lease_until, next_attempt_at))) - now()) * 1000)::float8 AS ms
       FROM ${this.table}`,
    );
    return r?.ms == null ? null : Math.max(0, r.ms);
  }

  /** Drops rows past their give-up time that nobody holds; returns how many (they are never sent again). */
  async dropExpired(): Promise<number> {
    return this.db.exec(`DELETE FROM ${this.table} WHERE give_up_at <= now() AND (lease_until IS NULL OR lease_until < now())`);
  }

  async delivered(id: string): Promise<void> {
    await this.db.exec(`DELETE FROM ${this.table} WHERE id = $1`, [id]);
  }

  async retryAt(id: string, delayMs: number, error: string): Promise<void> {
    await this.db.exec(
      `UPDATE ${this.table} SET next_attempt_at = now() + $2 * interval '1 millisecond', lease_until = NULL, lease_owner = NULL, last_error = $3 WHERE id = $1`,
      [id, delayMs, error],
    );
  }

  /** Leases held by nodes that are gone (crashed) are released at once instead of waiting for them to expire. */
  async releaseLeasesExcept(liveOwners: readonly string[]): Promise<number> {
    return this.db.exec(`UPDATE ${this.table} SET lease_until = NULL, lease_owner = NULL WHERE lease_until > now() AND NOT (lease_owner = ANY($1::text[]))`, [
      liveOwners,
    ]);
  }
}
