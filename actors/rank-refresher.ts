// The rank refresher: a supervised poller that decays the link aggregator's Hot and Active ranks (Lemmy 0.19's
// scheduled update_hot_ranks, every 10 minutes). Votes and comments rank their own post at once (triggers, migration
// 070); this only moves the quiet ones down as they age and drops them after a week. Which node refreshes is decided
// by `refresh` (a claim in the database that one node moves forward); the others only sleep until the next is due.
import { Poller } from './poller.js';

export interface RankRefresherDeps {
  /** Refreshes the ranks if they are due; how long until the next refresh either way. */
  readonly refresh: () => Promise<{ readonly refreshed: boolean; readonly nextInMs: number }>;
  readonly onError?: (e: unknown) => void;
}

const MAX_SLEEP_MS = 10 * 60_000;

export function startRankRefresher(d: RankRefresherDeps): Poller {
  return new Poller('rank-refresher', {
    maxSleepMs: MAX_SLEEP_MS,
    minSleepMs: 1_000,
    onError: (e) => d.onError?.(e),
    round: async () => (await d.refresh()).nextInMs,
  });
}
