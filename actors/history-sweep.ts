// The retention sweep of remote history (issue 17): once an hour, cluster-wide, one node prunes a batch of history
// posts past their retention. Which node sweeps is decided by `claim` (a schedule row in the database that one node
// moves forward); the others only sleep until the next due time. Each round also deletes the cached media files a
// prune (this sweep or an operator's Prune now) queued. Time comes from `claim`, which reads the injected clock.
import { Poller } from './poller.js';

export interface HistorySweepDeps {
  /** Takes the sweep if it is due now; how long until the next one is due either way. */
  readonly claim: () => Promise<{ readonly claimed: boolean; readonly nextInMs: number }>;
  /** One prune batch. */
  readonly sweep: () => Promise<{ readonly removed: number; readonly mediaQueued: number }>;
  /** Deletes up to `limit` queued media files; answers how many it took from the queue. */
  readonly cleanup: (limit: number) => Promise<number>;
  readonly onSwept?: (r: { readonly removed: number; readonly mediaQueued: number }) => void;
  readonly onError?: (e: unknown) => void;
}

const CLEANUP_BATCH = 100;
const MAX_SLEEP_MS = 60_000;

export function startHistorySweep(d: HistorySweepDeps): Poller {
  return new Poller('history-sweep', {
    maxSleepMs: MAX_SLEEP_MS,
    minSleepMs: 50,
    onError: (e) => d.onError?.(e),
    round: async () => {
      const due = await d.claim();
      if (due.claimed) d.onSwept?.(await d.sweep());
      // A full cleanup batch may have left more behind: go again at once.
      if ((await d.cleanup(CLEANUP_BATCH)) === CLEANUP_BATCH) return 0;
      return due.nextInMs;
    },
  });
}
