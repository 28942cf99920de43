// Processes verified incoming activities off the request path: claims due jobs with a lease, handles them in
// arrival order, and retries failures (a remote server briefly unreachable) with backoff before giving up.
import type { DelayPolicy } from './policy.js';
import { Poller } from './poller.js';

export interface ClaimedJob {
  readonly id: string;
  readonly attempts: number;
}

export interface InboxWorkerDeps<J extends ClaimedJob> {
  readonly queue: {
    claim(owner: string, limit: number, leaseMs: number): Promise<J[]>;
    done(id: string, error?: string): Promise<void>;
    retry(id: string, delayMs: number, error: string): Promise<void>;
    nextDueInMs(): Promise<number | null>;
    sweep(): Promise<number>;
  };
  readonly handle: (job: J) => Promise<void>;
  readonly owner: string;
  readonly leaseMs: number;
  readonly batch: number;
  /** attempt → delay, or null to give up (the job is closed with its last error). */
  readonly backoff: DelayPolicy;
  readonly onFailure?: (job: J, e: unknown, willRetry: boolean) => void;
  readonly onError?: (e: unknown) => void;
}

const SWEEP_EVERY_MS = 3_600_000;
/**
 * With nothing queued the worker sleeps until kicked: by this node's inbox, or by a notification that another node
 * queued a job. This round is the safety net for a notification missed all the same.
 */
const IDLE_ROUND_MS = 60_000;

export function startInboxWorker<J extends ClaimedJob>(d: InboxWorkerDeps<J>): Poller {
  let lastSweep = Date.now();
  return new Poller('inbox-worker', {
    maxSleepMs: IDLE_ROUND_MS,
    minSleepMs: 5,
    onError: (e) => d.onError?.(e),
    round: async () => {
      if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
        lastSweep = Date.now();
        await d.queue.sweep();
      }
      const jobs = await d.queue.claim(d.owner, d.batch, d.leaseMs);
      for (const job of jobs) {
        try {
          await d.handle(job);
          await d.queue.done(job.id);
        } catch (e) {
          const delay = d.backoff(job.attempts);
          d.onFailure?.(job, e, delay !== null);
          if (delay === null) await d.queue.done(job.id, String(e));
          else await d.queue.retry(job.id, delay, String(e));
        }
      }
      return jobs.length === d.batch ? 0 : d.queue.nextDueInMs();
    },
  });
}
