// Fixed-window attempt counters for abuse-prone actions (sign-in, sign-up), bounded in memory: the oldest key is
// evicted when the table is full. Per node; a cluster multiplies the limit by its node count.

export interface ThrottleResult {
  readonly allowed: boolean;
  readonly retryAfterSeconds: number;
}

export class Throttle {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  hit(key: string): ThrottleResult {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      if (w) this.windows.delete(key);
      else if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    const retryAfterSeconds = Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000));
    return { allowed: w.count <= this.limit, retryAfterSeconds };
  }
}
