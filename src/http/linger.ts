// The early answer (http/exchange.ts answerEarly) to a request that said `Connection: close`. uWS closes such a
// connection as soon as its answer is complete, over the unread rest of the body, so the kernel resets it and a client
// still sending loses the answer. So the answer goes out chunked, all but its last chunk; the rest of the body is read
// and dropped (uWS's buffer, handed over and not looked at: nothing is copied or kept); and the last chunk, and with
// it uWS's close, comes when the body is done, or the client pauses (some stop sending on seeing the answer), or
// after a total time, when a client still trickling is cut off, as nginx's lingering close does.
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
    if (isLast) this.end();
  }

  /** The client went away (uWS's onAborted): the response may not be touched again. */
  gone(): void {
    this.done = true;
    this.clear();
  }

  /**
   * The answer's last chunk; uWS then closes the connection, as the request asked. (Not end(…, closeConnection):
   * this uWS build writes its `Connection: close` header into a chunked body.)
   */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.clear();
    // Called from a timer too, where a throw would end the process: a response that cannot be ended is cut off.
    try {
      this.res.cork(() => this.res.end());
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
    if (idleLeft <= 0) return this.end();
    this.arm(Math.min(idleLeft, totalLeft));
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
