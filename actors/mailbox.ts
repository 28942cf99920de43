// A bounded FIFO (ring buffer). A full mailbox refuses: the caller gets an explicit result, never silent loss.

export class Mailbox<M> {
  private readonly items: (M | undefined)[];
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('mailbox capacity must be a positive integer');
    this.items = new Array<M | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(msg: M): boolean {
    if (this.count === this.capacity) return false;
    this.items[(this.head + this.count) % this.capacity] = msg;
    this.count++;
    return true;
  }

  shift(): M | undefined {
    if (this.count === 0) return undefined;
    const msg = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    return msg;
  }

  /** Empties the mailbox, returning what was queued (so pending calls can be failed). */
  drainAll(): M[] {
    const out: M[] = [];
    for (let m = this.shift(); m !== undefined; m = this.shift()) out.push(m);
    return out;
  }
}
