// Remote history jobs as the scheduler sees them: which origins have work due, claiming one origin's next job with
// a lease (one running per origin, cluster-wide, decided in the database), committing a page's imports with its
// progress, recording how a run ended, and giving back the leases of a stopping or dead node.
//
// A node runs many jobs at once (they wait on remote servers), so their database work goes through a share of the
// pool (`connections`): claims, a run's reads, page commits and ends queue here rather than on the pool, where a wait
// past its connect timeout would fail the job and blame the origin, and where they would starve the API.
import { WORK_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';
import type { ClaimedJob, JobLedger, JobOutcome, PageProgress } from './history-types.js';

/** A row a claim may take: queued, in backoff past its retry time, or held by a lease that ran out. */
const CLAIMABLE = `(h.state = 'queued' OR (h.state = 'backoff' AND coalesce(h.retry_at, now()) <= now())
  OR (h.state = 'fetching' AND coalesce(h.lease_until, now()) <= now()))`;

/** The same lock RemoteHistoryStore.request takes: queueing and claiming of one origin never interleave. */
const ORIGIN_LOCK = `SELECT pg_advisory_xact_lock(hashtext('history-origin:' || $1::text))`;

type ClaimRow = {
  account_id: string;
  origin: string;
  cursor: string;
  pages_budget: number;
  attempts: number;
};

/**
 * The history's connections: at most `size` in use, the waiters served oldest job first (by when the job was
 * claimed; a claim ranks as a job claimed now). Served in arrival order instead, every running job would take a turn
 * between each two steps of every other, and all of them would end late together; this way the jobs under way finish
 * in turn and a claim waits only for work already started. No job waits for ever: an older one has a few steps left.
 */
class ConnectionShare {
  private held = 0;
  private seq = 0;
  private readonly waiting: { readonly rank: number; readonly seq: number; readonly grant: () => void }[] = [];

  constructor(private readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`history connections: a positive integer, got ${size}`);
  }

  async run<T>(rank: number, fn: () => Promise<T>): Promise<T> {
    if (this.held < this.size) this.held++;
    else {
      await new Promise<void>((grant) => {
        const w = { rank, seq: this.seq++, grant };
        let i = this.waiting.length;
        while (i > 0 && (this.waiting[i - 1]!.rank > rank || (this.waiting[i - 1]!.rank === rank && this.waiting[i - 1]!.seq > w.seq))) i--;
        this.waiting.splice(i, 0, w);
      });
    }
    try {
      return await fn();
    } finally {
      // Handed straight to the next waiter: a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.held--;
    }
  }
}

export class HistoryJobStore implements JobLedger {
  private readonly share: ConnectionShare | null;
  /** When each job this node holds was claimed: its rank for connections. */
  private readonly claimedAt = new WeakMap<ClaimedJob, number>();

  /**
   * @param renewMs how long each committed page extends the lease: longer than one page can take (a job stops at
   *   30 s), so a live run never loses it, short enough that a dead node's job is taken over soon.
   * @param connections the most connections the node's jobs use at once (absent: no limit of their own).
   */
  constructor(
    private readonly db: Database,
    private readonly renewMs = 60_000,
    connections?: number,
  ) {
    this.share = connections === undefined ? null : new ConnectionShare(connections);
  }

  /** `fn` with one of the history's connections, ranked as `job`'s (a run's lookups; commits and ends take theirs). */
  read<T>(job: ClaimedJob | null, fn: () => Promise<T>): Promise<T> {
    if (!this.share) return fn();
    return this.share.run((job && this.claimedAt.get(job)) ?? Date.now(), fn);
  }

  /** Origins with a job that could be claimed now: nothing of theirs running and no origin-wide backoff. */
  async dueOrigins(limit: number): Promise<string[]> {
    const rows = await this.db.rows<{ origin: string }>(
      `SELECT h.origin FROM remote_histories h LEFT JOIN history_origins o ON o.origin = h.origin
       WHERE ${CLAIMABLE} AND coalesce(o.backoff_until, now()) <= now()
         AND NOT EXISTS (SELECT 1 FROM remote_histories f WHERE f.origin = h.origin AND f.state = 'fetching' AND f.lease_until > now())
       GROUP BY h.origin ORDER BY min(h.queued_at) LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.origin);
  }

  /**
   * Milliseconds until some job could be claimed (0 if now), or null when no job waits. A job waits for its own
   * retry time, its origin's backoff and the lease of whatever runs on its origin, whichever is last.
   */
  async nextDueInMs(): Promise<number | null> {
    // Clamped in JS, not with SQL's greatest() around min(), which skips NULL: greatest(0, NULL) is 0, "due now"
    // with nothing queued.
    const r = await this.db.one<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(greatest(
                 CASE h.state WHEN 'backoff' THEN coalesce(h.retry_at, now()) WHEN 'fetching' THEN coalesce(h.lease_until, now()) ELSE now() END,
                 coalesce(o.backoff_until, now()),
                 coalesce((SELECT max(f.lease_until) FROM remote_histories f
                           WHERE f.origin = h.origin AND f.state = 'fetching' AND f.account_id <> h.account_id), now())
               )) - now()) * 1000)::float8 AS ms
       FROM remote_histories h LEFT JOIN history_origins o ON o.origin = h.origin
       WHERE h.state IN ('queued', 'backoff', 'fetching')`,
    );
    return r?.ms == null ? null : Math.max(0, r.ms);
  }

  /**
   * Takes the origin's oldest claimable job for `owner`, or null: when a job of the origin runs under a live lease
   * (on any node), the origin is in backoff, or nothing is due. Decided under the origin's advisory lock, and the
   * unique index on running jobs per origin holds it whatever happens.
   */
  async claim(origin: string, owner: string, leaseMs: number): Promise<ClaimedJob | null> {
    const row = await this.read(null, () => this.claimRow(origin, owner, leaseMs));
    if (!row) return null;
    const job: ClaimedJob = { accountId: row.account_id, origin: row.origin, cursor: row.cursor, pagesBudget: row.pages_budget, attempts: row.attempts, owner };
    this.claimedAt.set(job, Date.now());
    return job;
  }

  private claimRow(origin: string, owner: string, leaseMs: number): Promise<ClaimRow | undefined> {
    return this.db.tx(async () => {
      await this.db.exec(ORIGIN_LOCK, [origin]);
      const busy = await this.db.one(
        `SELECT 1 FROM remote_histories WHERE origin = $1 AND state = 'fetching' AND lease_until > now()
         UNION ALL SELECT 1 FROM history_origins WHERE origin = $1 AND backoff_until > now() LIMIT 1`,
        [origin],
      );
      if (busy) return undefined;
      // A job with nothing left to read (its budget spent, or no next page) ends here, without a run: a node may
      // have died after its last page, before recording the end.
      await this.db.exec(
        `UPDATE remote_histories h SET state = CASE WHEN h.cursor IS NULL THEN 'complete' ELSE 'partial' END,
           reason = NULL, retry_at = NULL, lease_owner = NULL, lease_until = NULL
         WHERE h.origin = $1 AND ${CLAIMABLE} AND (h.cursor IS NULL OR h.pages_budget <= 0)`,
        [origin],
      );
      // An expired lease goes back to the queue first, so the origin has no `fetching` row but the one claimed.
      await this.db.exec(
        `UPDATE remote_histories SET state = 'queued', lease_owner = NULL, lease_until = NULL
         WHERE origin = $1 AND state = 'fetching' AND coalesce(lease_until, now()) <= now()`,
        [origin],
      );
      return this.db.one<ClaimRow>(
        `UPDATE remote_histories SET state = 'fetching', lease_owner = $2, lease_until = now() + $3 * interval '1 millisecond'
         WHERE account_id = (SELECT h.account_id FROM remote_histories h WHERE h.origin = $1 AND ${CLAIMABLE}
                             ORDER BY h.queued_at NULLS LAST, h.account_id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING account_id, origin, cursor, pages_budget, attempts`,
        [origin, owner, leaseMs],
      );
    });
  }

  /** The page's imports and its progress in one transaction, only while `job.owner` still holds the lease. */
  async commitPage(job: ClaimedJob, progress: PageProgress, work: () => Promise<void>): Promise<boolean> {
    return this.read(job, () => this.commitTx(job, progress, work));
  }

  private commitTx(job: ClaimedJob, progress: PageProgress, work: () => Promise<void>): Promise<boolean> {
    return this.db.tx(async () => {
      const mine = await this.db.one(
        `SELECT 1 FROM remote_histories WHERE account_id = $1 AND state = 'fetching' AND lease_owner = $2 AND lease_until > now() FOR UPDATE`,
        [job.accountId, job.owner],
      );
      if (!mine) return false;
      await work();
      // The budget shrinks with each page, so a job taken over after a crash reads only what was left of it.
      await this.db.exec(
        `UPDATE remote_histories SET cursor = $2, items_examined = items_examined + $3, items_imported = items_imported + $4,
           pages_fetched = pages_fetched + 1, pages_budget = greatest(pages_budget - 1, 0), last_fetched_at = now(),
           lease_until = now() + $5 * interval '1 millisecond'
         WHERE account_id = $1`,
        [job.accountId, progress.nextCursor, progress.examined, progress.imported, this.renewMs],
      );
      return true;
    });
  }

  /** Records how a run ended and clears its lease; false (nothing recorded) when another node took the job over. */
  async finish(job: ClaimedJob, outcome: JobOutcome): Promise<boolean> {
    if (outcome.kind === 'lease_lost') return false;
    return this.read(job, () => this.finishTx(job, outcome));
  }

  private finishTx(job: ClaimedJob, outcome: Exclude<JobOutcome, { kind: 'lease_lost' }>): Promise<boolean> {
    return this.db.tx(async () => {
      const mine = await this.db.one(`SELECT 1 FROM remote_histories WHERE account_id = $1 AND state = 'fetching' AND lease_owner = $2 FOR UPDATE`, [
        job.accountId,
        job.owner,
      ]);
      if (!mine) return false;
      const release = 'lease_owner = NULL, lease_until = NULL';
      switch (outcome.kind) {
        case 'partial':
        case 'complete':
          await this.db.exec(
            `UPDATE remote_histories SET state = $2, reason = NULL, attempts = 0, retry_at = NULL, pages_budget = 0,
               cursor = CASE WHEN $2 = 'complete' THEN NULL ELSE cursor END, ${release}
             WHERE account_id = $1`,
            [job.accountId, outcome.kind],
          );
          await this.db.exec('UPDATE history_origins SET attempts = 0, reason = NULL WHERE origin = $1 AND attempts > 0', [job.origin]);
          return true;
        case 'unsupported':
          await this.db.exec(
            `UPDATE remote_histories SET state = 'unsupported', reason = $2, retry_at = NULL, pages_budget = 0, ${release} WHERE account_id = $1`,
            [job.accountId, outcome.reason],
          );
          return true;
        case 'backoff':
          await this.db.exec(
            `UPDATE remote_histories SET state = 'backoff', reason = $2, attempts = attempts + 1, retry_at = $3, ${release} WHERE account_id = $1`,
            [job.accountId, outcome.reason, outcome.retryAt],
          );
          // The origin said the host is busy (429, 503): its other jobs wait too.
          if (outcome.originWide) {
            await this.db.exec(
              `INSERT INTO history_origins (origin, backoff_until, attempts, reason) VALUES ($1, $2, 1, $3)
               ON CONFLICT (origin) DO UPDATE SET backoff_until = greatest(history_origins.backoff_until, EXCLUDED.backoff_until),
                 attempts = history_origins.attempts + 1, reason = EXCLUDED.reason`,
              [job.origin, outcome.retryAt, outcome.reason],
            );
          }
          return true;
      }
    });
  }

  /**
   * Gives back the jobs `owner` holds (a stopping node), queued again where they stood, and tells every node, so
   * that another takes them at once instead of after the lease.
   */
  async releaseAll(owner: string): Promise<number> {
    return this.requeue('lease_owner = $1', [owner]);
  }

  /** Jobs held by nodes that are gone (crashed) are queued again at once instead of waiting for their leases. */
  async releaseLeasesExcept(liveOwners: readonly string[]): Promise<number> {
    return this.requeue('lease_until > now() AND NOT (lease_owner = ANY($1::text[]))', [liveOwners]);
  }

  private async requeue(which: string, values: readonly unknown[]): Promise<number> {
    const rows = await this.db.rows<{ origin: string }>(
      `WITH freed AS (
         UPDATE remote_histories SET state = 'queued', lease_owner = NULL, lease_until = NULL
         WHERE state = 'fetching' AND ${which} RETURNING origin
       ) SELECT f.origin, pg_notify('${WORK_CHANNEL}', 'history:' || f.origin) FROM (SELECT DISTINCT origin FROM freed) f`,
      values,
    );
    return rows.length;
  }
}

/** What runs one claimed job (src/history's HistoryRunner): pages committed through `ledger`, stopped by `signal`. */
export interface HistoryJobRunner {
  run(job: ClaimedJob, ledger: JobLedger, signal: AbortSignal): Promise<JobOutcome>;
}
