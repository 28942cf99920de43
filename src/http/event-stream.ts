// An open response for server-sent events: a body of declared length that never completes, each event written
// whole as it comes, and a bound on what a slow client leaves in our buffers.
//
// Why not chunked: the bundled uWS (20.30) writes a chunk as `\r\n<hex>\r\n<data>`, its closing CRLF only with the
// next write, so a client whose parser waits for that CRLF (urllib3, so Mastodon.py) got each event only with the
// next one, up to a heartbeat late. tryEnd with a total writes the bytes as they are after a Content-Length header,
// so what is on the wire is the whole event (docs/decisions/0062).
//
// Backpressure: tryEnd takes what the socket accepts now and refuses the rest (it does not buffer it); the write
// offset says how much it took. The rest waits here, in order, and goes out when the socket drains (onWritable);
// past maxBuffered waiting bytes the reader is too slow and its stream is closed.
import type { EventSink } from './types.js';
import type { HttpResponse } from './uws.js';

/** The declared length: never reached (a petabyte), so the response never completes and is never reused. */
export const EVENT_STREAM_LENGTH = 2 ** 50;

export class ResponseEventSink implements EventSink {
  closed = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private drainRegistered = false;
  private gone = false;
  private readonly closers: (() => void)[] = [];

  constructor(
    private readonly res: HttpResponse,
    private readonly maxBuffered: number,
  ) {}

  /** Writes the head (`head` writes status and headers) and the first bytes, in one corked write. */
  open(head: () => void, first: string): void {
    let refused: Buffer | undefined;
    this.res.cork(() => {
      head();
      refused = this.offer(first);
    });
    // Registered from the start: uWS arms a 10 s timeout when a flush of its cork buffer falls short even though
    // tryEnd took everything, and only a writable handler (returning true) clears it again.
    this.drainRegistered = true;
    this.res.onWritable(() => this.drain());
    if (refused) this.hold(refused);
  }

  write(chunk: string): void {
    if (this.closed) return;
    if (this.pendingBytes > 0) return this.hold(Buffer.from(chunk));
    let refused: Buffer | undefined;
    this.res.cork(() => {
      refused = this.offer(chunk);
    });
    // Held (or the stream closed) outside the cork: nothing is closed under uWS's feet.
    if (refused) this.hold(refused);
  }

  /**
   * Closes the connection (a body of declared length cannot end early; the client reconnects as after an end), once
   * the current callback is over: bytes still in uWS's cork buffer (the head, when a stream fails as it opens) go out
   * first.
   */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.dropPending();
    setImmediate(() => {
      if (!this.gone) this.res.close();
    });
    this.fire();
  }

  /** The client went away (uWS onAborted): the response may not be touched again. */
  aborted(): void {
    this.gone = true;
    if (this.closed) return;
    this.closed = true;
    this.dropPending();
    this.fire();
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closers.push(fn);
  }

  /** Offers bytes to the socket (a string as UTF-8, converted by uWS): the bytes it refuses, if any. */
  private offer(data: string | Buffer): Buffer | undefined {
    const before = this.res.getWriteOffset();
    const [ok] = this.res.tryEnd(data, EVENT_STREAM_LENGTH);
    if (ok) return undefined;
    return (typeof data === 'string' ? Buffer.from(data) : data).subarray(this.res.getWriteOffset() - before);
  }

  private hold(bytes: Buffer): void {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes > this.maxBuffered) {
      // A reader this far behind is closed rather than buffered for without end.
      this.end();
      return;
    }
    if (!this.drainRegistered) {
      this.drainRegistered = true;
      this.res.onWritable(() => this.drain());
    }
  }

  /** The socket drained: the held bytes go out, as many as it takes. True when none are left (uWS's contract). */
  private drain(): boolean {
    if (this.closed || this.pendingBytes === 0) return true;
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.dropPending();
    const refused = this.offer(bytes);
    if (!refused) return true;
    this.hold(refused);
    return false;
  }

  private dropPending(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }

  private fire(): void {
    for (const f of this.closers.splice(0)) f();
  }
}
