// Fixed-window attempt counters for abuse-prone actions (sign-in, sign-up), bounded in memory. When the table is
// full, expired windows go first, then the oldest window that is not blocking anyone; if every window is blocking,
// the new key is refused (fail closed), so flooding fresh keys can never evict an attacker's own block.
// Per node; a cluster multiplies the limit by its node count.

export interface ThrottleResult {
  readonly allowed: boolean;
  readonly retryAfterSeconds: number;
}

interface Window {
  start: number;
  count: number;
}

export class Throttle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether key is blocked right now, without counting an attempt. */
  check(key: string): ThrottleResult {
    const t = this.now();
    const w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) return { allowed: true, retryAfterSeconds: 0 };
    return { allowed: w.count < this.limit, retryAfterSeconds: this.retryAfter(w, t) };
  }

  /** Counts one attempt for key. */
  hit(key: string): ThrottleResult {
    const t = this.now();
    let w = this.windows.get(key);
    if (w && t - w.start >= this.windowMs) {
      this.windows.delete(key);
      w = undefined;
    }
    if (!w) {
      if (this.windows.size >= this.maxKeys && !this.makeRoom(t)) return { allowed: false, retryAfterSeconds: Math.ceil(this.windowMs / 1000) };
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return { allowed: w.count <= this.limit, retryAfterSeconds: this.retryAfter(w, t) };
  }

  private retryAfter(w: Window, t: number): number {
    return Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000));
  }

  private makeRoom(t: number): boolean {
    for (const [k, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(k);
    if (this.windows.size < this.maxKeys) return true;
    for (const [k, w] of this.windows) {
      if (w.count <= this.limit) {
        this.windows.delete(k);
        return true;
      }
    }
    return false;
  }
}
