// A supervised loop that does one round of work, then sleeps until the round says the next is due (or someone
// kicks it). Rounds never overlap. A round that throws (the database is away) is retried with backoff, and a
// run of failures past the limit crashes the process so its supervisor decides.
import { exponentialBackoff } from './policy.js';
import { ExitSignal, type ExitReason, type Process } from './process.js';

export interface PollerOptions {
  /** One round of work: returns milliseconds until the next round is due, or null for "only when kicked". */
  readonly round: () => Promise<number | null>;
  /** Longest sleep between rounds even without a due time (picks up work queued by other nodes). */
  readonly maxSleepMs: number;
  readonly minSleepMs?: number;
  /** Consecutive failed rounds before the poller crashes. */
  readonly maxFailures?: number;
  readonly onError?: (e: unknown, failures: number) => void;
}

export class Poller implements Process {
  private readonly exit = new ExitSignal();
  private timer: NodeJS.Timeout | null = null;
  /** When the pending timer fires (Infinity: none). */
  private timerAt = Infinity;
  /** The latest time the next round may start, as asked through soon() during a round. */
  private wantedBy = Infinity;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private failures = 0;
  private readonly backoff = exponentialBackoff({ baseMs: 200, maxMs: 10_000 });

  constructor(
    readonly name: string,
    private readonly o: PollerOptions,
  ) {
    this.schedule(0);
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  /** Runs a round now (or right after the one in progress). */
  kick(): void {
    if (this.stopped) return;
    // No timer pending means a round is under way (its end schedules the next one, before `running` is cleared).
    if (this.timer) this.schedule(0);
    else this.again = true;
  }

  /**
   * Work falls due in `ms` that the last round did not see (a retry written by someone else): the next round starts
   * by then at the latest, and no earlier than it would have anyway.
   */
  soon(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (!this.timer) this.wantedBy = Math.min(this.wantedBy, at);
    else if (at < this.timerAt) this.schedule(ms);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      this.running = this.runRound().finally(() => (this.running = null));
    }, ms);
  }

  private async runRound(): Promise<void> {
    this.again = false;
    this.wantedBy = Infinity;
    let next: number | null;
    try {
      next = await this.o.round();
      this.failures = 0;
    } catch (e) {
      this.failures++;
      this.o.onError?.(e, this.failures);
      if (this.failures > (this.o.maxFailures ?? 50)) {
        this.stopped = true;
        this.exit.fire({ kind: 'crash', error: e });
        return;
      }
      next = this.backoff(this.failures);
    }
    if (this.stopped) return;
    const min = this.o.minSleepMs ?? 0;
    const sleep = this.again ? 0 : Math.max(min, Math.min(next ?? this.o.maxSleepMs, this.o.maxSleepMs));
    this.schedule(Math.max(0, Math.min(sleep, this.wantedBy - Date.now())));
  }

  /** stop() was called: a round that loops over its work looks here between steps. */
  get stopping(): boolean {
    return this.stopped;
  }

  async stop(timeoutMs: number): Promise<void> {
    if (this.exit.exited) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.running) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([this.running, new Promise((r) => (t = setTimeout(r, timeoutMs)))]);
      clearTimeout(t);
    }
    this.exit.fire({ kind: 'shutdown' });
  }
}
