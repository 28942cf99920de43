// One process-wide budget for request body bytes held in memory. Per-route limits bound one request; only this
// bounds them together, so many concurrent large bodies are refused (503 + Retry-After) instead of growing the heap.
// Buffered bodies reserve their whole length; a reader that streams a body to disk reserves only the buffers it holds
// in memory at a time (grow as they fill, shrink as they are written out): the disk, not the heap, holds the rest.

/** Bytes of one request counted against the budget; released exactly once, whatever ends the request. */
export interface BodyReservation {
  /** Bytes currently held. */
  readonly bytes: number;
  /** Holds `n` more bytes; false (and nothing held) when the budget has no room for them. */
  grow(n: number): boolean;
  /** Gives back `n` bytes (a streamed reader that wrote buffers out to disk). */
  shrink(n: number): void;
  /** Gives back everything; later calls, and grow/shrink after it, do nothing. */
  release(): void;
}

export class BodyBudget {
  private used = 0;

  constructor(readonly capacity: number) {}

  /** Bytes reserved by requests in flight. */
  get inUse(): number {
    return this.used;
  }

  /**
   * Reserves `initial` bytes (a declared Content-Length; 0 for a chunked body, which grows chunk by chunk), or
   * returns null when they do not fit.
   */
  reserve(initial: number): BodyReservation | null {
    if (!this.fits(initial)) return null;
    this.used += initial;
    let held = initial;
    let released = false;
    return {
      get bytes() {
        return held;
      },
      grow: (n) => {
        if (released || !this.fits(n)) return false;
        this.used += n;
        held += n;
        return true;
      },
      shrink: (n) => {
        if (released) return;
        const m = Math.min(n, held);
        this.used -= m;
        held -= m;
      },
      release: () => {
        if (released) return;
        released = true;
        this.used -= held;
        held = 0;
      },
    };
  }

  private fits(n: number): boolean {
    return n >= 0 && this.used + n <= this.capacity;
  }
}
