// A bounded memory of recent failures by key (a remote file's URL or an attachment), each forgotten after its time:
// so a broken origin is asked again after a while, not on every view. Oldest entries go first when it is full.
export class RecentFailures<T> {
  private readonly entries = new Map<string, { readonly until: number; readonly value: T }>();

  /** ttlMs 0: nothing is remembered. */
  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
  ) {}

  get(key: string, now = Date.now()): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until > now) return e.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: T, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { until: now + this.ttlMs, value });
  }
}
