// An open response for server-sent events: chunks written corked as they come, and a bound on what a slow client
// leaves in our buffers. uWS's write() always takes the chunk (buffering what the socket does not), returning false
// once it buffers; from then on the bytes written count against the bound until the socket drains (onWritable).
import type { EventSink } from './types.js';
import type { HttpResponse } from './uws.js';

export class ResponseEventSink implements EventSink {
  closed = false;
  private buffered = 0;
  private waiting = false;
  private readonly closers: (() => void)[] = [];

  constructor(
    private readonly res: HttpResponse,
    private readonly maxBuffered: number,
  ) {}

  write(chunk: string): void {
    if (this.closed) return;
    let ok = true;
    this.res.cork(() => {
      ok = this.res.write(chunk);
    });
    if (ok && !this.waiting) return;
    this.buffered += Buffer.byteLength(chunk);
    if (this.buffered > this.maxBuffered) {
      // A reader this far behind is closed rather than buffered for without end.
      this.closed = true;
      this.res.close();
      this.fire();
      return;
    }
    if (!this.waiting) {
      this.waiting = true;
      this.res.onWritable(() => {
        this.waiting = false;
        this.buffered = 0;
        return true;
      });
    }
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.res.cork(() => this.res.end());
    this.fire();
  }

  /** The client went away (uWS onAborted). */
  aborted(): void {
    if (this.closed) return;
    this.closed = true;
    this.fire();
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closers.push(fn);
  }

  private fire(): void {
    for (const f of this.closers.splice(0)) f();
  }
}
