// The scheduled-publisher: a supervised poller that publishes due scheduled posts. It sleeps until the earliest one is
// due (at most a minute), and is kicked when any node schedules or moves one (LISTEN/NOTIFY, and this node's own wake
// port). A post that is due but held by another node's publication in progress is looked at again a second later:
// if that node dies its transaction rolls back and the post is free again.
import { Poller } from './poller.js';

export interface ScheduledPublisherDeps {
  /** Publishes up to `limit` due posts; when the next is due (≤ 0: due now), null when none is scheduled. */
  readonly publishDue: (limit: number) => Promise<{ taken: number; nextInMs: number | null }>;
  readonly onError?: (e: unknown) => void;
}

const BATCH = 20;
const MAX_SLEEP_MS = 60_000;
/** How soon a due post another node holds is looked at again. */
const HELD_RETRY_MS = 1_000;

export function startScheduledPublisher(d: ScheduledPublisherDeps): Poller {
  return new Poller('scheduled-publisher', {
    maxSleepMs: MAX_SLEEP_MS,
    minSleepMs: 50,
    onError: (e) => d.onError?.(e),
    round: async () => {
      const r = await d.publishDue(BATCH);
      if (r.taken === BATCH) return 0; // more may be due: at once
      if (r.nextInMs === null) return null;
      return r.nextInMs <= 0 ? HELD_RETRY_MS : Math.ceil(r.nextInMs);
    },
  });
}
