// Fixed-window attempt limits for abuse-prone actions (sign-in, sign-up, app registration), counted in PostgreSQL
// (store/throttle-counters.ts) so that they hold for the cluster: two nodes allow together what one allows. Each
// throttle names its keys (`signin:ip:…`), so throttles sharing the table never count each other's attempts.
import type { ThrottleCounterStore } from '../store/throttle-counters.js';

export interface ThrottleResult {
  readonly allowed: boolean;
  readonly retryAfterSeconds: number;
}

export class Throttle {
  constructor(
    private readonly counters: ThrottleCounterStore,
    private readonly name: string,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Whether key is blocked right now, without counting an attempt. */
  async check(key: string): Promise<ThrottleResult> {
    const w = await this.counters.peek(`${this.name}:${key}`);
    return { allowed: w.n < this.limit, retryAfterSeconds: w.secondsLeft };
  }

  /** Counts one attempt for key. */
  async hit(key: string): Promise<ThrottleResult> {
    const w = await this.counters.hit(`${this.name}:${key}`, this.windowMs);
    return { allowed: w.n <= this.limit, retryAfterSeconds: w.secondsLeft };
  }
}
