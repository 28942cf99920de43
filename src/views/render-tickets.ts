// The race rule both render caches (status-cache.ts, account-cache.ts) keep: a render takes a ticket before it reads,
// and what it made is stored only if nothing it shows was dropped since. Drops are remembered only while renders are
// in flight, and at most MAX_REMEMBERED of them: past that, every render in flight loses the right to store.

/** Past this many remembered invalidations, renders in flight may not store at all (rather than remember more). */
const MAX_REMEMBERED = 10_000;

export class RenderTickets {
  /** Invalidations so far; a render's ticket is this number when it began. */
  private gen = 0;
  /** Keys dropped while renders were in flight, with the count at their drop. */
  private readonly dropped = new Map<string, number>();
  /** Renders with a ticket below this may not store (what they raced was forgotten). */
  private floor = 0;
  private inFlight = 0;

  /** Begins a render: call before reading what it renders, and end() once done, whatever happened. */
  begin(): number {
    this.inFlight++;
    return this.gen;
  }

  end(): void {
    if (--this.inFlight === 0) this.dropped.clear();
  }

  /** Whether a render under this ticket may store something showing these keys. */
  mayStore(ticket: number, keys: readonly string[]): boolean {
    if (ticket < this.floor) return false;
    for (const k of keys) {
      const at = this.dropped.get(k);
      if (at !== undefined && at > ticket) return false;
    }
    return true;
  }

  /** Something showing this key changed. */
  drop(key: string): void {
    this.gen++;
    if (this.inFlight === 0) return;
    if (this.dropped.size >= MAX_REMEMBERED) {
      this.dropped.clear();
      this.floor = this.gen;
      return;
    }
    this.dropped.set(key, this.gen);
  }

  /** The change stream (re)connected or broke: no render begun before may store. */
  reset(): void {
    this.floor = ++this.gen;
    this.dropped.clear();
  }
}
