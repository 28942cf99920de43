// The poll closer: a supervised poller that announces ended polls (a `poll` notification to their author and
// voters). It sleeps until the next poll ends, at most a minute (polls created on other nodes are seen by then),
// and is kicked when this node creates a poll.
import { Poller } from './poller.js';

export interface PollCloserDeps {
  readonly polls: { closeDue(limit: number): Promise<{ closed: number; nextInMs: number | null }> };
  readonly onClosed?: (count: number) => void;
  readonly onError?: (e: unknown) => void;
}

const BATCH = 100;
const MAX_SLEEP_MS = 60_000;

export function startPollCloser(d: PollCloserDeps): Poller {
  return new Poller('poll-closer', {
    maxSleepMs: MAX_SLEEP_MS,
    minSleepMs: 50,
    onError: (e) => d.onError?.(e),
    round: async () => {
      const { closed, nextInMs } = await d.polls.closeDue(BATCH);
      if (closed > 0) d.onClosed?.(closed);
      // A full batch may have left more behind: go again at once.
      return closed === BATCH ? 0 : nextInMs;
    },
  });
}
