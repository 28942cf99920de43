// The home fan-out: a supervised poller that writes the home-feed rows of posts by authors with many local followers
// (store/home-feed-jobs.ts, migration 078), one job at a time, batch after batch. Kicked when any node queues a job
// (stoa_work 'homefeed', heard by every node) or gives one back; otherwise it sleeps until a lease held by another
// node runs out (that node may have died mid-job), and looks again at least once a minute.
import { setTimeout as sleep } from 'node:timers/promises';
import { Poller } from './poller.js';

export interface HomeFanOutDeps {
  readonly jobs: {
    /** Takes a job for `owner`; its id, or null when none waits. */
    claim(owner: string, leaseMs: number): Promise<string | null>;
    /** Runs the job's next `size` follows: 'more' to go on, 'done', or 'lost' (another node holds it now). */
    batch(job: string, owner: string, size: number, leaseMs: number): Promise<'more' | 'done' | 'lost'>;
    /** Milliseconds until a job held by another lease could be taken over (0: now), null when none is held. */
    nextLeaseEndMs(): Promise<number | null>;
  };
  /** This node: the owner named by its leases. */
  readonly owner: string;
  /** Follows per batch, and how long a job stays this node's after each. */
  readonly batch: number;
  readonly leaseMs: number;
  /** Test-only: a pause between batches, so a test can stop the node that holds a job halfway. */
  readonly holdMs?: number;
  readonly onError?: (e: unknown) => void;
}

const MAX_SLEEP_MS = 60_000;

export function startHomeFanOut(d: HomeFanOutDeps): Poller {
  const poller = new Poller('home-fan-out', {
    maxSleepMs: MAX_SLEEP_MS,
    minSleepMs: 10,
    onError: (e) => d.onError?.(e),
    round: async () => {
      const job = await d.jobs.claim(d.owner, d.leaseMs);
      if (job === null) {
        const ms = await d.jobs.nextLeaseEndMs();
        // A lease just out is claimable a moment later (the database's clock, not ours, decides).
        return ms === null ? null : Math.ceil(ms) + 50;
      }
      // Each batch is bounded (a few thousand follows, one statement); a job never outlives a stop by more than one.
      while (!poller.stopping && (await d.jobs.batch(job, d.owner, d.batch, d.leaseMs)) === 'more') if (d.holdMs) await sleep(d.holdMs);
      return 0; // more may wait: at once
    },
  });
  return poller;
}
