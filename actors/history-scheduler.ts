// Finds origins with remote history jobs due and wakes each origin's actor, started on demand as a dynamic child of
// the history supervisor (bounded, dynamic-children.ts). It sleeps until woken (a job queued on any node, the feature
// switched on) or until the next job falls due (a backoff's retry time, an origin's backoff, a lease running out): an
// exact timer. It also gives back jobs leased by nodes that died, so they resume at once.
import { DynamicChildren, superviseDynamicChildren } from './dynamic-children.js';
import { HistoryOrigin, type HistoryJobQueue, type HistoryOriginDeps, type HistoryOutcomeLike } from './history-origin.js';
import { Poller } from './poller.js';
import type { Supervisor } from './supervisor.js';

export interface HistorySchedulerDeps<J, O extends HistoryOutcomeLike, L> extends HistoryOriginDeps<J, O, L> {
  readonly jobs: HistoryJobQueue<J, O> & {
    dueOrigins(limit: number): Promise<string[]>;
    nextDueInMs(): Promise<number | null>;
    releaseLeasesExcept(liveOwners: readonly string[]): Promise<number>;
  };
  /** Names of the nodes alive now (this one included); jobs leased by any other owner are given back. */
  readonly liveNodes: () => Promise<string[]>;
  readonly maxOrigins: number;
  readonly originIdleMs: number;
  readonly onError?: (e: unknown) => void;
}

const RELEASE_EVERY_MS = 30_000;
/** The safety net for a wake-up notification missed all the same; the due times themselves are exact timers. */
const IDLE_ROUND_MS = 60_000;
/** Work due now was handed to origin actors: look again once they have claimed it. */
const BUSY_ROUND_MS = 250;

type AnyDeps = HistorySchedulerDeps<unknown, HistoryOutcomeLike, unknown>;

export class HistoryScheduler {
  readonly poller: Poller;
  private readonly origins: DynamicChildren<HistoryOrigin<unknown, HistoryOutcomeLike, unknown>>;
  private lastRelease = 0;
  private roundsStarted = 0;
  private roundsDone = 0;
  private roundWaiters: { readonly round: number; readonly resolve: () => void }[] = [];
  /** What origin actors get: their recorded backoffs set the scheduler's timer, which sleeps past them otherwise. */
  private readonly originDeps: HistoryOriginDeps<unknown, HistoryOutcomeLike, unknown>;

  private constructor(
    sup: Supervisor,
    private readonly d: AnyDeps,
  ) {
    this.originDeps = {
      ...d,
      onFinished: (job, outcome) => {
        if (outcome.retryAt) this.poller.soon(Math.max(0, outcome.retryAt.getTime() - Date.now()));
        d.onFinished?.(job, outcome);
      },
    };
    this.poller = new Poller('history-scheduler', {
      round: () => this.round(),
      maxSleepMs: IDLE_ROUND_MS,
      onError: (e) => d.onError?.(e),
    });
    this.origins = new DynamicChildren(sup, { kind: 'origin', start: (origin) => new HistoryOrigin(origin, this.originDeps, d.originIdleMs) });
  }

  /** The history supervisor: the scheduler first, origin actors as dynamic children. */
  static async start<J, O extends HistoryOutcomeLike, L>(
    deps: HistorySchedulerDeps<J, O, L>,
  ): Promise<{ readonly supervisor: Supervisor; readonly scheduler: HistoryScheduler }> {
    return superviseDynamicChildren('history', deps.maxOrigins, (sup) => new HistoryScheduler(sup, deps as unknown as AnyDeps));
  }

  /**
   * Kicks a round and resolves once a round that began after this call has finished: tests wait for it before
   * asserting that a wake-up started nothing.
   */
  async roundAfterKick(): Promise<void> {
    const round = this.roundsStarted + 1;
    const done = new Promise<void>((resolve) => this.roundWaiters.push({ round, resolve }));
    this.kick();
    return done;
  }

  /** Jobs were queued or given back (here or on another node), or the feature was switched on: a round now. */
  kick(): void {
    this.poller.kick();
  }

  private async round(): Promise<number | null> {
    this.roundsStarted++;
    try {
      return await this.lookForWork();
    } finally {
      const done = ++this.roundsDone;
      this.roundWaiters = this.roundWaiters.filter((w) => w.round > done || void w.resolve());
    }
  }

  private async lookForWork(): Promise<number | null> {
    const now = Date.now();
    if (now - this.lastRelease > RELEASE_EVERY_MS) {
      this.lastRelease = now;
      await this.d.jobs.releaseLeasesExcept(await this.d.liveNodes());
    }
    // Switched off: nothing is claimed; switching on wakes this (and the safety round would find the work anyway).
    if (!(await this.d.enabled())) return null;
    const due = await this.d.jobs.dueOrigins(this.d.maxOrigins);
    for (const origin of due) await this.wake(origin);
    // An exact timer: the next due time counts leases too, so a job held by a node that died is taken over when
    // its lease ends, if no earlier round has given it back.
    const next = await this.d.jobs.nextDueInMs();
    if (next === null) return null;
    return next === 0 ? BUSY_ROUND_MS : next;
  }

  private async wake(origin: string): Promise<void> {
    // Every slot busy: this origin waits for the next round.
    (await this.origins.child(origin))?.wake();
  }
}
