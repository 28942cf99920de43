// A counting semaphore: at most `size` holders at once, the rest wait in arrival order. The history origins share one
// per node, sized by what running jobs hold (sockets, answers in memory; HISTORY_JOBS_PER_NODE): a burst of due
// origins beyond it waits `queued` in the database, holding nothing. (Their database work has a share of its own,
// store/history-jobs.ts.)

export class Slots {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots: size must be a positive integer, got ${size}`);
  }

  get inUse(): number {
    return this.held;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with a release function once a slot is free; rejects (taking nothing) if `signal` aborts first. Release
   * hands the slot straight to the next waiter, so a newcomer cannot overtake the queue.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.held < this.size) {
      this.held++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', abandon);
        resolve(this.releaser());
      };
      const abandon = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', abandon, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    };
  }
}
