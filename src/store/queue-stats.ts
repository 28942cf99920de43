// How much durable work waits, for /metrics: rows and the oldest row's age per queue table, read by one statement
// and cached briefly, so a storm of scrapes (or several Prometheus servers) costs the database one query per period.
import type { Database } from './db.js';

/**
 * The queues measured. The remote-history queue (backfilling a remote account's posts, issue 15) has no table yet:
 * when it has one, its name goes here and its two sub-selects into QUEUE_SQL.
 */
export const QUEUES = ['delivery', 'inbox'] as const;
export type QueueName = (typeof QUEUES)[number];

export interface QueueStat {
  /** Rows waiting (due now or waiting for a retry). */
  readonly rows: number;
  /** Seconds since the oldest waiting row was queued; 0 when none waits. */
  readonly oldestAgeSeconds: number;
}

export type QueueStats = Readonly<Record<QueueName, QueueStat>>;

// Every delivery row is waiting (a sent or given-up one is deleted); ids are time-ordered, so the oldest row is the
// first by primary key. Waiting inbox jobs are the small set the partial index inbox_jobs_due covers.
const QUEUE_SQL = `
  SELECT (SELECT count(*) FROM deliveries) AS delivery_rows,
         (SELECT extract(epoch FROM now() - created_at) FROM deliveries ORDER BY id LIMIT 1) AS delivery_oldest,
         (SELECT count(*) FROM inbox_jobs WHERE processed_at IS NULL) AS inbox_rows,
         (SELECT extract(epoch FROM now() - min(received_at)) FROM inbox_jobs WHERE processed_at IS NULL) AS inbox_oldest`;

type QueueRow = {
  delivery_rows: string;
  delivery_oldest: string | null;
  inbox_rows: string;
  inbox_oldest: string | null;
};

export async function readQueueStats(db: Database): Promise<QueueStats> {
  const r = (await db.one<QueueRow>(QUEUE_SQL))!;
  const stat = (rows: string, oldest: string | null): QueueStat => ({ rows: Number(rows), oldestAgeSeconds: Math.max(0, Number(oldest ?? 0)) });
  return { delivery: stat(r.delivery_rows, r.delivery_oldest), inbox: stat(r.inbox_rows, r.inbox_oldest) };
}

/** The stats, read at most once per maxAgeMs and by one query at a time. */
export class CachedQueueStats {
  private cached: { stats: QueueStats; at: number } | null = null;
  private pending: Promise<QueueStats> | null = null;

  constructor(
    private readonly db: Database,
    private readonly maxAgeMs: number,
  ) {}

  get(): Promise<QueueStats> {
    const c = this.cached;
    if (c && Date.now() - c.at < this.maxAgeMs) return Promise.resolve(c.stats);
    return (this.pending ??= readQueueStats(this.db)
      .then((stats) => {
        this.cached = { stats, at: Date.now() };
        return stats;
      })
      .finally(() => (this.pending = null)));
  }
}
