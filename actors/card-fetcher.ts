// The card-fetcher: a supervised poller that gets statuses their link preview cards (services/link-cards.ts). It
// sleeps until kicked: a status queued with a link wakes every node's fetcher (migration 076's NOTIFY, and this node's
// own wake port); a lease that ran out (its node died mid-fetch) is looked at again when it does.
import { Poller } from './poller.js';

export interface CardFetcherDeps {
  /** Fetches up to `limit` waiting statuses' cards; how many it took, and when a held job's lease runs out (null: none). */
  readonly processDue: (limit: number) => Promise<{ taken: number; nextInMs: number | null }>;
  readonly onError?: (e: unknown) => void;
}

/** Statuses taken per round (their fetches run at once; different URLs, different hosts mostly). */
const BATCH = 8;
const MAX_SLEEP_MS = 5 * 60_000;

export function startCardFetcher(d: CardFetcherDeps): Poller {
  return new Poller('card-fetcher', {
    maxSleepMs: MAX_SLEEP_MS,
    minSleepMs: 50,
    onError: (e) => d.onError?.(e),
    round: async () => {
      const r = await d.processDue(BATCH);
      if (r.taken === BATCH) return 0;
      return r.nextInMs === null ? null : Math.max(50, Math.ceil(r.nextInMs));
    },
  });
}
