// The early answer (http/exchange.ts answerEarly) to a request whose body is still coming, when it said
// `Connection: close` (uWS would close over the unread rest at once, losing the answer) or a body reader holds uWS's
// onData (the body's last chunk, read after a complete answer, would stop uWS's timer for good). So the answer goes out
// chunked, all but its last chunk; the rest of the body is read and dropped (uWS's buffer, handed over and not looked
// at: nothing is copied or kept); and the last chunk comes when the body is done, or the client pauses (some stop
// sending on seeing the answer), or after a total time, when a client still trickling is cut off, as nginx's lingering
// close does.
import { closeQuietly } from './last-resort.js';
import type { HttpResponse } from './uws.js';

export interface LingerBounds {
  /** The longest the rest of a body is read (nginx's lingering_time is 30 s). */
  readonly totalMs: number;
  /** A client that sends nothing for this long has stopped sending (some stop on seeing the answer). */
  readonly idleMs: number;
}

export const LINGER_BOUNDS: LingerBounds = { totalMs: 30_000, idleMs: 2_000 };

/** Reads and drops the rest of a body, then completes the answer (once). */
export class Linger {
  private done = false;
  private lastData = Date.now();
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly res: HttpResponse,
    private readonly bounds: LingerBounds,
  ) {
    this.arm(bounds.idleMs);
  }

  /** A chunk of the body arrived (its bytes are not looked at); the last one ends the exchange. */
  data(isLast: boolean): void {
    if (this.done) return;
    this.lastData = Date.now();
    if (isLast) this.end(false);
  }

  /** The client went away (uWS's onAborted): the response may not be touched again. */
  gone(): void {
    this.done = true;
    this.clear();
  }

  /**
   * The answer's last chunk. uWS then closes a connection whose request said exactly `close`; any other, when its
   * timer (10 s, started by end()) runs out, if the client, told `Connection: close`, has not closed it first. (Not
   * end(…, closeConnection): this uWS build writes its `Connection: close` header into a chunked body.) Ended before
   * the body was (the client paused), the socket is paused first, so no more of it is read: its last chunk would
   * stop uWS's timer, and the response, complete, could not be closed from here, leaving an idle socket for ever.
   */
  private end(bodyLeft: boolean): void {
    if (this.done) return;
    this.done = true;
    this.clear();
    // Called from a timer too, where a throw would end the process: a response that cannot be ended is cut off.
    try {
      this.res.cork(() => {
        if (bodyLeft) this.res.pause();
        this.res.end();
      });
    } catch {
      closeQuietly(this.res);
    }
  }

  /** A client still trickling its body after the total bound is cut off, as nginx does after its lingering_time. */
  private cutOff(): void {
    this.done = true;
    this.clear();
    closeQuietly(this.res);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref();
  }

  private tick(): void {
    this.timer = null;
    if (this.done) return;
    const now = Date.now();
    const idleLeft = this.lastData + this.bounds.idleMs - now;
    const totalLeft = this.started + this.bounds.totalMs - now;
    if (totalLeft <= 0) return this.cutOff();
    if (idleLeft <= 0) return this.end(true);
    this.arm(Math.min(idleLeft, totalLeft));
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
