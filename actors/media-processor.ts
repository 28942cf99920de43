// The media processor: a supervised poller that makes uploaded video and audio servable, one job at a time on this
// node (a transcode takes the cores it is given). Kicked when any node queues a job (stoa_work 'media', and this
// node's wake port); otherwise it sleeps until a lease held by another node runs out (that node may have died
// mid-job), and looks again at least once a minute.
import { Poller } from './poller.js';

export interface MediaProcessorDeps {
  /** Runs the next job if there is one; true when one was run. */
  readonly processNext: () => Promise<boolean>;
  /** Milliseconds until a running job's lease runs out (0: now), null when none runs. */
  readonly nextLeaseEndMs: () => Promise<number | null>;
  readonly onError?: (e: unknown) => void;
}

const MAX_SLEEP_MS = 60_000;

export function startMediaProcessor(d: MediaProcessorDeps): Poller {
  return new Poller('media-processor', {
    maxSleepMs: MAX_SLEEP_MS,
    minSleepMs: 50,
    onError: (e) => d.onError?.(e),
    round: async () => {
      if (await d.processNext()) return 0; // more may wait: at once
      const ms = await d.nextLeaseEndMs();
      // A lease just out is claimable a moment later (the database's clock, not ours, decides).
      return ms === null ? null : Math.ceil(ms) + 50;
    },
  });
}
