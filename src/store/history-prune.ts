// Retention of remote history (issue 17): a prune removes at most 200 history posts whose actor's retention clock
// (remote_histories.viewed_at, refreshed by a profile view) is older than the retention, oldest first, except those
// a local member holds on to (the nine keep-rules below). Also what Administration › History shows: per-origin
// job state, totals, and the last prune runs; and the schedule row of the hourly sweep.
//
// Posts are deleted, not soft-deleted: a history post was never delivered to anyone, nothing federates its removal,
// and the foreign keys already say what goes with it (bookmarks, favourites, media rows, notifications, edits, tags,
// mentions and polls cascade; replies and quotes by others keep their text with in_reply_to_id / quote_of_id set
// to NULL). The keep-rules make sure nothing a local member did disappears with it. Delivered posts (history =
// false) are never candidates. Cached copies of its media are files on disk: their names go to media_cleanup in the
// same transaction and the sweep actor deletes them.
import type { Database } from './db.js';

export const PRUNE_BATCH = 200;
const DAY_MS = 86_400_000;

export type PruneKind = 'sweep' | 'manual';

export interface PruneResult {
  readonly removed: number;
  /** Media attachments of the removed posts (their rows removed, their cached files queued for deletion). */
  readonly mediaQueued: number;
}

export interface PruneRun extends PruneResult {
  readonly kind: PruneKind;
  readonly ranAt: Date;
  readonly byAccountId: string | null;
}

export interface OriginActivity {
  readonly origin: string;
  readonly running: number;
  readonly queued: number;
  readonly backoffUntil: Date | null;
  readonly lastError: string | null;
}

export interface HistoryTotals {
  readonly posts: number;
  readonly media: number;
  /** Media of history posts whose copy the proxy keeps, and their bytes (remote media has no size until cached). */
  readonly cachedMedia: number;
  readonly cachedBytes: number;
}

const LOCAL = 'SELECT 1 FROM accounts la WHERE la.id = x.account_id AND la.domain IS NULL';

/** Why a history post `s` is kept: referenced by a local member (or by a delivered boost, which would cascade). */
const KEPT = `(
     EXISTS (SELECT 1 FROM bookmarks x WHERE x.status_id = s.id)
  OR EXISTS (SELECT 1 FROM favourites x WHERE x.status_id = s.id AND EXISTS (${LOCAL}))
  OR EXISTS (SELECT 1 FROM pins x WHERE x.status_id = s.id)
  OR EXISTS (SELECT 1 FROM status_reactions x WHERE x.status_id = s.id AND EXISTS (${LOCAL}))
  OR EXISTS (SELECT 1 FROM polls p JOIN poll_votes x ON x.poll_id = p.id WHERE p.status_id = s.id AND EXISTS (${LOCAL}))
  OR EXISTS (SELECT 1 FROM statuses x WHERE x.in_reply_to_id = s.id AND x.local)
  OR EXISTS (SELECT 1 FROM statuses x WHERE x.reblog_of_id = s.id AND NOT x.history)
  OR EXISTS (SELECT 1 FROM statuses x WHERE x.quote_of_id = s.id AND x.local)
  OR EXISTS (SELECT 1 FROM reports x WHERE x.status_ids @> ARRAY[s.id])
)`;

export class HistoryPruneStore {
  constructor(private readonly db: Database) {}

  /** One batch (at most 200 posts) older than `retentionDays` before `now`, recorded as a prune run. */
  prune(kind: PruneKind, retentionDays: number, now: Date, byAccountId: string | null = null): Promise<PruneResult> {
    const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
    return this.db.tx(async () => {
      // Locked first (two prunes at once take different rows); the keep-rules are checked again in the DELETE, a
      // later snapshot, so a bookmark committed meanwhile still keeps its post (new ones wait on the row lock).
      const chosen = await this.db.rows<{ id: string }>(
        `SELECT s.id FROM statuses s JOIN remote_histories h ON h.account_id = s.account_id
         WHERE s.history AND h.viewed_at < $1 AND NOT ${KEPT}
         ORDER BY s.created_at LIMIT ${PRUNE_BATCH} FOR UPDATE OF s SKIP LOCKED`,
        [cutoff],
      );
      let result: PruneResult = { removed: 0, mediaQueued: 0 };
      if (chosen.length > 0) {
        const r = await this.db.one<{ removed: number; media: number }>(
          `WITH gone AS (DELETE FROM statuses s WHERE s.id = ANY ($1::bigint[]) AND s.history AND NOT ${KEPT} RETURNING s.id),
             media AS (SELECT m.file_name, m.preview_file_name FROM media_attachments m JOIN gone ON m.status_id = gone.id),
             queued AS (INSERT INTO media_cleanup (file_name)
                        SELECT f FROM media, unnest(ARRAY[file_name, preview_file_name]) AS f WHERE f IS NOT NULL
                        ON CONFLICT (file_name) DO NOTHING)
           SELECT (SELECT count(*) FROM gone)::int AS removed, (SELECT count(*) FROM media)::int AS media`,
          [chosen.map((c) => c.id)],
        );
        result = { removed: r!.removed, mediaQueued: r!.media };
      }
      await this.db.exec('INSERT INTO history_prune_runs (kind, ran_at, removed, media_queued, by_account_id) VALUES ($1, $2, $3, $4, $5)', [
        kind,
        now,
        result.removed,
        result.mediaQueued,
        byAccountId,
      ]);
      return result;
    });
  }

  /**
   * Takes the hourly sweep if it is due at `now` (one node wins: the UPDATE moves next_at forward). Answers whether
   * this node took it, and how long until the next one is due. `owner` holds it until sweepDone: should that node
   * die meanwhile, the others make the sweep due again at once (store/leases.ts).
   */
  async claimSweep(now: Date, everyMs: number, owner: string): Promise<{ readonly claimed: boolean; readonly nextInMs: number }> {
    const took = await this.db.one<{ next_at: Date }>('UPDATE history_sweep SET next_at = $2, owner = $3 WHERE next_at <= $1 RETURNING next_at', [
      now,
      new Date(now.getTime() + everyMs),
      owner,
    ]);
    if (took) return { claimed: true, nextInMs: everyMs };
    const r = await this.db.one<{ next_at: Date }>('SELECT next_at FROM history_sweep');
    return { claimed: false, nextInMs: Math.max(0, (r?.next_at.getTime() ?? 0) - now.getTime()) };
  }

  /** The sweep `owner` took is over. */
  async sweepDone(owner: string): Promise<void> {
    await this.db.exec('UPDATE history_sweep SET owner = NULL WHERE owner = $1', [owner]);
  }

  /** Up to `limit` cached files whose cleanup a prune queued. */
  async pendingCleanup(limit: number): Promise<string[]> {
    return (await this.db.rows<{ file_name: string }>('SELECT file_name FROM media_cleanup ORDER BY queued_at LIMIT $1', [limit])).map((r) => r.file_name);
  }

  async cleaned(names: readonly string[]): Promise<void> {
    await this.db.exec('DELETE FROM media_cleanup WHERE file_name = ANY ($1::text[])', [names]);
  }

  async recentRuns(limit: number): Promise<PruneRun[]> {
    const rows = await this.db.rows<{ kind: PruneKind; ran_at: Date; removed: number; media_queued: number; by_account_id: string | null }>(
      'SELECT kind, ran_at, removed, media_queued, by_account_id FROM history_prune_runs ORDER BY id DESC LIMIT $1',
      [limit],
    );
    return rows.map((r) => ({ kind: r.kind, ranAt: r.ran_at, removed: r.removed, mediaQueued: r.media_queued, byAccountId: r.by_account_id }));
  }

  /** Per origin with any history record: jobs running, queued, its backoff and last error (busiest first). */
  async origins(limit: number): Promise<OriginActivity[]> {
    const rows = await this.db.rows<{ origin: string; running: number; queued: number; backoff_until: Date | null; last_error: string | null }>(
      `SELECT h.origin,
              count(*) FILTER (WHERE h.state = 'fetching')::int AS running,
              count(*) FILTER (WHERE h.state = 'queued')::int AS queued,
              GREATEST(max(o.backoff_until), max(h.retry_at) FILTER (WHERE h.state = 'backoff')) AS backoff_until,
              COALESCE(max(o.reason),
                (array_agg(h.reason ORDER BY h.last_fetched_at DESC NULLS LAST) FILTER (WHERE h.state IN ('backoff', 'unsupported')))[1]) AS last_error
       FROM remote_histories h LEFT JOIN history_origins o ON o.origin = h.origin
       GROUP BY h.origin
       ORDER BY count(*) FILTER (WHERE h.state IN ('fetching', 'queued', 'backoff')) DESC, h.origin
       LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ origin: r.origin, running: r.running, queued: r.queued, backoffUntil: r.backoff_until, lastError: r.last_error }));
  }

  async totals(): Promise<HistoryTotals> {
    const r = await this.db.one<{ posts: number; media: number; cached: number; bytes: string }>(
      `SELECT (SELECT count(*) FROM statuses WHERE history)::int AS posts,
              count(m.id)::int AS media, count(m.file_name)::int AS cached, COALESCE(sum(m.file_size) FILTER (WHERE m.file_name IS NOT NULL), 0)::text AS bytes
       FROM statuses s JOIN media_attachments m ON m.status_id = s.id WHERE s.history`,
    );
    return { posts: r!.posts, media: r!.media, cachedMedia: r!.cached, cachedBytes: Number(r!.bytes) };
  }
}
