// Verified incoming activities waiting to be processed. Enqueueing is idempotent by activity id; workers claim due
// jobs with a lease (FOR UPDATE SKIP LOCKED), so a crash or a second node neither loses nor doubles one.
import { WORK_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';

export interface InboxJob {
  readonly id: string;
  readonly activityId: string;
  readonly signerId: string | null;
  readonly body: unknown;
  /** The body as received, kept only for Updates (see enqueue). */
  readonly raw: string | null;
  readonly attempts: number;
}

/** Processed jobs are kept this long so a re-delivered activity is still recognised as a duplicate. */
const KEEP_PROCESSED = '7 days';

export class InboxJobStore {
  constructor(private readonly db: Database) {}

  /**
   * false when the activity was seen before (nothing is stored). raw: the received text, for activities whose
   * embedded signed documents must be kept as written (actor Updates carrying identity statements).
   */
  async enqueue(activityId: string, signerId: string, body: unknown, raw: string | null = null): Promise<boolean> {
    // Every node's worker sleeps while its queue is empty; the notification, sent when the insert commits, wakes them.
    const rows = await this.db.rows(
      `WITH job AS (
         INSERT INTO inbox_jobs (activity_id, signer_id, body, raw) VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT (activity_id) DO NOTHING RETURNING 1
       ) SELECT pg_notify('${WORK_CHANNEL}', 'inbox') FROM job`,
      [activityId, signerId, JSON.stringify(body), raw],
    );
    return rows.length === 1;
  }

  async claim(owner: string, limit: number, leaseMs: number): Promise<InboxJob[]> {
    const rows = await this.db.rows<{ id: string; activity_id: string; signer_id: string | null; body: unknown; raw: string | null; attempts: number }>(
      // The locked rows as a CTE, which runs once (see host-queue.ts claimable: as `id IN (…)` a claim could take more).
      `WITH due AS (SELECT id FROM inbox_jobs WHERE processed_at IS NULL AND next_attempt_at <= now()
                    AND (lease_until IS NULL OR lease_until < now()) ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE inbox_jobs SET lease_until = now() + $3 * interval '1 millisecond', lease_owner = $1, attempts = attempts + 1
       WHERE id IN (SELECT id FROM due)
       RETURNING id, activity_id, signer_id, body, raw, attempts`,
      [owner, limit, leaseMs],
    );
    return rows
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
      .map((r) => ({ id: r.id, activityId: r.activity_id, signerId: r.signer_id, body: r.body, raw: r.raw, attempts: r.attempts }));
  }

  async done(id: string, error?: string): Promise<void> {
    await this.db.exec('UPDATE inbox_jobs SET processed_at = now(), lease_until = NULL, last_error = $2 WHERE id = $1', [id, error ?? null]);
  }

  async retry(id: string, delayMs: number, error: string): Promise<void> {
    await this.db.exec(`UPDATE inbox_jobs SET next_attempt_at = now() + $2 * interval '1 millisecond', lease_until = NULL, last_error = $3 WHERE id = $1`, [
      id,
      delayMs,
      error,
    ]);
  }

  /** Milliseconds until the next job is due (0 if one is due now), or null when there is none. */
  async nextDueInMs(): Promise<number | null> {
    // Clamped here, not with SQL's greatest(), which skips NULL: greatest(0, NULL) is 0, "due now" for an empty queue.
    const r = await this.db.one<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(greatest(next_attempt_at, coalesce(lease_until, next_attempt_at))) - now()) * 1000)::float8 AS ms
       FROM inbox_jobs WHERE processed_at IS NULL`,
    );
    return r?.ms == null ? null : Math.max(0, r.ms);
  }

  async sweep(): Promise<number> {
    return this.db.exec(`DELETE FROM inbox_jobs WHERE processed_at < now() - interval '${KEEP_PROCESSED}'`);
  }
}
