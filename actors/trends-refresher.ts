// The trends refresher: a supervised poller that recomputes the trending tags, statuses and links every few minutes
// (Mastodon's Scheduler::Trends::RefreshScheduler, every 5 minutes). Which node refreshes is decided by `refresh`
// (a claim in the database that one node moves forward); the others only sleep until the next one is due.
import { Poller } from './poller.js';

export interface TrendsRefresherDeps {
  /** Refreshes the trends if they are due; how long until the next refresh either way. */
  readonly refresh: () => Promise<{ readonly refreshed: boolean; readonly nextInMs: number }>;
  readonly onError?: (e: unknown) => void;
}

const MAX_SLEEP_MS = 5 * 60_000;

export function startTrendsRefresher(d: TrendsRefresherDeps): Poller {
  return new Poller('trends-refresher', {
    maxSleepMs: MAX_SLEEP_MS,
    minSleepMs: 1_000,
    onError: (e) => d.onError?.(e),
    round: async () => (await d.refresh()).nextInMs,
  });
}
