// One actor per origin for remote history: it claims that origin's jobs one at a time (the claim is refused while a
// job of the origin runs on any node), runs each under a deadline, and records how it ended. Idle, it passivates.
// Stopping it aborts the run in hand, which stops at its last committed page; the job is then given back.
import { Actor, type Behavior, type CastResult } from './actor.js';
import type { ExitReason, Process } from './process.js';
import type { Slots } from './slots.js';

/** What the actor needs to know of a run's outcome: a backoff's retry time, to wake the scheduler by then. */
export interface HistoryOutcomeLike {
  readonly kind: string;
  readonly retryAt?: Date;
}

export interface HistoryJobQueue<J, O> {
  claim(origin: string, owner: string, leaseMs: number): Promise<J | null>;
  finish(job: J, outcome: O): Promise<unknown>;
}

/** Runs one job: `ledger` commits its pages, `signal` aborts at the deadline or shutdown (the run then stops). */
export interface HistoryJobRunnerLike<J, O, L> {
  run(job: J, ledger: L, signal: AbortSignal): Promise<O>;
}

export interface HistoryOriginDeps<J, O extends HistoryOutcomeLike, L> {
  readonly jobs: HistoryJobQueue<J, O>;
  readonly ledger: L;
  readonly runner: HistoryJobRunnerLike<J, O, L>;
  readonly owner: string;
  readonly leaseMs: number;
  /** A run's deadline (30 s): its signal aborts then. */
  readonly jobMs: number;
  /** The feature switch, read before each claim: off, nothing is claimed (a run in hand finishes). */
  readonly enabled: () => Promise<boolean>;
  /** What a run that threw, or ignored its deadline, comes to: the job must not stay leased. */
  readonly failed: (job: J, error: unknown) => O;
  /** Called once a run's outcome is recorded. */
  readonly onFinished?: (job: J, outcome: O) => void;
  /** The node's running-job slots, shared by every origin: a job is claimed only once one is free. */
  readonly slots: Slots;
}

export type HistoryOriginMsg = { readonly kind: 'work' };

/** A run still going this long after its signal aborted is abandoned (its late commits fail: the lease is gone). */
const ABANDON_AFTER_MS = 5_000;

export class RunDeadlineError extends Error {
  constructor(readonly origin: string) {
    super(`history job of ${origin} ignored its deadline`);
    this.name = 'RunDeadlineError';
  }
}

export class HistoryOrigin<J, O extends HistoryOutcomeLike, L> implements Process {
  readonly name: string;
  private readonly actor: Actor<null, HistoryOriginMsg>;
  private readonly shutdown = new AbortController();

  constructor(
    readonly origin: string,
    private readonly d: HistoryOriginDeps<J, O, L>,
    idleMs: number,
  ) {
    this.name = `history:${origin}`;
    const behavior: Behavior<null, HistoryOriginMsg> = {
      init: () => null,
      handle: async (state) => {
        // One job after another while the origin has work due; the claim says when it has none (or is busy).
        while (!this.shutdown.signal.aborted && (await d.enabled())) {
          // The slot is taken before the claim, so waiting for one holds no lease and counts against no deadline.
          const release = await d.slots.acquire(this.shutdown.signal).catch(() => null);
          if (!release) break;
          try {
            const job = await d.jobs.claim(origin, d.owner, d.leaseMs);
            if (!job) break;
            const outcome = await this.run(job);
            // Cut short by shutdown: the job is given back as it stands (cursor and budget left, as committed) for
            // another node to go on with at once, rather than recorded as ended.
            if (this.shutdown.signal.aborted && (outcome === null || outcome.kind === 'partial')) break;
            if (outcome === null) continue;
            await d.jobs.finish(job, outcome);
            d.onFinished?.(job, outcome);
          } finally {
            release();
          }
        }
        return state;
      },
    };
    // A wake while a job runs needs no second slot: the loop claims again before it stops.
    this.actor = Actor.spawn(this.name, behavior, { capacity: 1, idleMs });
  }

  get alive(): boolean {
    return this.actor.alive;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.actor.onExit(fn);
  }

  wake(): CastResult {
    return this.actor.cast({ kind: 'work' });
  }

  async stop(timeoutMs: number): Promise<void> {
    this.shutdown.abort();
    await this.actor.stop(timeoutMs);
  }

  /** The run's outcome; null when it outlived a shutdown (left to the stopping node's release of its leases). */
  private async run(job: J): Promise<O | null> {
    const deadline = new AbortController();
    const signal = AbortSignal.any([deadline.signal, this.shutdown.signal]);
    const timer = setTimeout(() => deadline.abort(), this.d.jobMs);
    let abandon: NodeJS.Timeout | undefined;
    let later = (): void => undefined;
    const abandoned = new Promise<never>((_, reject) => {
      later = () => void (abandon = setTimeout(() => reject(new RunDeadlineError(this.origin)), ABANDON_AFTER_MS));
    });
    abandoned.catch(() => undefined);
    signal.addEventListener('abort', later, { once: true });
    if (signal.aborted) later();
    try {
      return await Promise.race([this.d.runner.run(job, this.d.ledger, signal), abandoned]);
    } catch (e) {
      if (e instanceof RunDeadlineError && this.shutdown.signal.aborted) return null;
      return this.d.failed(job, e);
    } finally {
      signal.removeEventListener('abort', later);
      clearTimeout(timer);
      clearTimeout(abandon);
    }
  }
}
