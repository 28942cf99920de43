// How much durable work waits, for /metrics: rows and the oldest row's age per queue table, read by one statement
// and cached briefly, so a storm of scrapes (or several Prometheus servers) costs the database one query per period.
import type { Database } from './db.js';

/**
 * The durable queues: deliveries (ActivityPub out), inbox jobs (ActivityPub in), remote-history jobs, Web Push
 * deliveries and home-feed fan-out jobs (a backlog there keeps large authors' followers on the slower pull query).
 */
export const QUEUES = ['delivery', 'inbox', 'history', 'push', 'home_feed'] as const;
export type QueueName = (typeof QUEUES)[number];

export interface QueueStat {
  /** Rows waiting (due now or waiting for a retry). */
  readonly rows: number;
  /** Seconds since the oldest waiting row was queued; 0 when none waits. */
  readonly oldestAgeSeconds: number;
}

export type QueueStats = Readonly<Record<QueueName, QueueStat>>;

// Every delivery and push-delivery row is waiting (a sent or given-up one is deleted); ids are time-ordered, so the
// oldest row is the first by primary key. Waiting inbox jobs are the small set the partial index inbox_jobs_due
// covers; waiting history jobs are those queued, fetching or backing off (the partial index remote_histories_active),
// aged from when they were last queued.
const QUEUE_SQL = `
  SELECT (SELECT count(*) FROM deliveries) AS delivery_rows,
         (SELECT extract(epoch FROM now() - created_at) FROM deliveries ORDER BY id LIMIT 1) AS delivery_oldest,
         (SELECT count(*) FROM inbox_jobs WHERE processed_at IS NULL) AS inbox_rows,
         (SELECT extract(epoch FROM now() - min(received_at)) FROM inbox_jobs WHERE processed_at IS NULL) AS inbox_oldest,
         (SELECT count(*) FROM remote_histories WHERE state IN ('queued', 'fetching', 'backoff')) AS history_rows,
         (SELECT extract(epoch FROM now() - min(queued_at)) FROM remote_histories WHERE state IN ('queued', 'fetching', 'backoff')) AS history_oldest,
         (SELECT count(*) FROM push_deliveries) AS push_rows,
         (SELECT extract(epoch FROM now() - created_at) FROM push_deliveries ORDER BY id LIMIT 1) AS push_oldest,
         (SELECT count(*) FROM home_feed_jobs) AS home_feed_rows,
         (SELECT extract(epoch FROM now() - min(queued_at)) FROM home_feed_jobs) AS home_feed_oldest`;

type QueueRow = Readonly<Record<`${QueueName}_rows`, string> & Record<`${QueueName}_oldest`, string | null>>;

export async function readQueueStats(db: Database): Promise<QueueStats> {
  const r = (await db.one<QueueRow>(QUEUE_SQL))!;
  const stat = (q: QueueName): QueueStat => ({ rows: Number(r[`${q}_rows`]), oldestAgeSeconds: Math.max(0, Number(r[`${q}_oldest`] ?? 0)) });
  return { delivery: stat('delivery'), inbox: stat('inbox'), history: stat('history'), push: stat('push'), home_feed: stat('home_feed') };
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
