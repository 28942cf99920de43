// The home-feed fan-out jobs (migration 078): a post by an author with more local followers than the threshold has its
// followers' home_feeds rows written here, in batches, instead of in the posting transaction. A job is claimed under a
// lease (owner, until) by one node's home-fan-out actor; each batch is one statement (home_feed_job_batch) that
// writes its rows and moves the job's cursor together and renews the lease, so a crash loses at most an uncommitted
// batch and another node resumes from the cursor once the lease is given back (leases.ts) or runs out.
import { WORK_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';

export type BatchOutcome = 'more' | 'done' | 'lost';

export class HomeFeedJobStore {
  constructor(private readonly db: Database) {}

  /** Takes the oldest job that nobody holds (or whose lease ran out) for `owner`; its status id, or null. */
  async claim(owner: string, leaseMs: number): Promise<string | null> {
    const r = await this.db.one<{ id: string }>(
      `UPDATE home_feed_jobs SET lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond'
       WHERE status_id = (SELECT status_id FROM home_feed_jobs WHERE lease_until IS NULL OR lease_until < now()
                          ORDER BY status_id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING status_id::text AS id`,
      [owner, leaseMs],
    );
    return r?.id ?? null;
  }

  /** The next `size` follows of job `statusId`, as `owner` (migration 078's home_feed_job_batch). */
  async batch(statusId: string, owner: string, size: number, leaseMs: number): Promise<BatchOutcome> {
    const r = await this.db.one<{ outcome: BatchOutcome }>('SELECT home_feed_job_batch($1, $2, $3, $4) AS outcome', [statusId, owner, size, leaseMs]);
    return r!.outcome;
  }

  /** This node's jobs given back as it stops (their committed batches kept), every node told: another takes them at once. */
  async releaseAll(owner: string): Promise<number> {
    const r = await this.db.one<{ n: number }>(
      `WITH freed AS (UPDATE home_feed_jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 RETURNING 1),
       told AS (SELECT pg_notify('${WORK_CHANNEL}', 'homefeed') WHERE EXISTS (SELECT 1 FROM freed))
       SELECT (SELECT count(*) FROM freed)::int AS n, (SELECT count(*) FROM told) AS told`,
      [owner],
    );
    return r?.n ?? 0;
  }

  /** Milliseconds until a job held by another lease could be taken over (0: now); null when none is held. */
  async nextLeaseEndMs(): Promise<number | null> {
    const r = await this.db.one<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(lease_until) - now()) * 1000)::float8 AS ms FROM home_feed_jobs WHERE lease_until IS NOT NULL`,
    );
    return r?.ms === null || r?.ms === undefined ? null : Math.max(0, r.ms);
  }
}
