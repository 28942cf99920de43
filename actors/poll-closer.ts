// The poll closer: a supervised poller that announces ended polls (a `poll` notification to their author and
// voters) and sends the due Updates of local polls (new counts after votes, the final counts at the end). It sleeps
// until the next end or Update is due, at most a minute (work queued by other nodes is seen by then), and is kicked
// when this node creates a poll or counts a vote.
import { Poller } from './poller.js';

type Round = { nextInMs: number | null };

export interface PollCloserDeps {
  readonly polls: { closeDue(limit: number): Promise<Round & { closed: number }> };
  /** Sends up to `limit` due poll Updates. */
  readonly sendDueUpdates: (limit: number) => Promise<Round & { sent: number }>;
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
      const ended = await d.polls.closeDue(BATCH);
      if (ended.closed > 0) d.onClosed?.(ended.closed);
      // The polls just closed have their final Update due now: sent in this round.
      const updates = await d.sendDueUpdates(BATCH);
      // A full batch may have left more behind: go again at once.
      if (ended.closed === BATCH || updates.sent === BATCH) return 0;
      const next = [ended.nextInMs, updates.nextInMs].filter((n): n is number => n !== null);
      return next.length ? Math.min(...next) : null;
    },
  });
}
