// One request's answer: everything thrown mapped to HTTP (the one place), replies written corked, files streamed,
// event streams opened, and the end of the exchange (log line, budget released, temporary files discarded) done
// exactly once however the request ends. http/server.ts makes one per request and hands it the reply.
import { STATUS_CODES } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Errors, toHttpError } from '../errors.js';
import type { Logger } from '../log.js';
import type { BodyReservation } from './body-budget.js';
import { CORS_HEADERS, corsApplies } from './cors.js';
import { EVENT_STREAM_LENGTH, ResponseEventSink } from './event-stream.js';
import { isFileBody } from './file-body.js';
import { guard } from './guard.js';
import { closeQuietly, INTERNAL_ERROR_BODY, INTERNAL_ERROR_HEADERS } from './last-resort.js';
import type { Request } from './request.js';
import { LINGER_BOUNDS, Linger } from './linger.js';
import { json } from './respond.js';
import { streamFile } from './stream-file.js';
import { bytesOf, TextPieces } from './text-pieces.js';
import type { EventStreamBody, FileBody, Reply } from './types.js';
import type { HttpResponse } from './uws.js';

/** What every exchange of one server shares. */
export interface ExchangeContext {
  readonly log: Logger;
  /** Renders an HTML error page for browser paths (not API paths). */
  readonly errorPage: (status: number, message: string) => Reply;
  /** Told of every finished request: its route's pattern (`unmatched` if none), status (0: aborted), duration. */
  readonly onFinished?: (route: string, method: string, status: number, ms: number) => void;
  readonly streamingBufferedBytes: number;
  /** Called once per exchange when it finishes (the server's in-flight count). */
  readonly released: () => void;
}

const CORS_KEYS = Object.keys(CORS_HEADERS);
const UNSAFE_HEADER_VALUE = /[\r\n\0]/;
const CONNECTION_CLOSE = /(?:^|,)\s*close\s*(?:,|$)/i;

export class Exchange {
  aborted = false;
  /** The log line was written and the in-flight count released (exactly once). */
  finished = false;
  /** Waiting for body bytes: an abort now means no handler will ever answer. */
  readingBody = false;
  /** The request carried a body we did not read: the connection cannot be reused. */
  closeAfter = false;
  /**
   * The body's rest, if unread, is framed by a declared length small enough to read and drop, so an early answer
   * can linger (http/linger.ts) instead of resetting a client that is still sending.
   */
  lingerAfter = false;
  /** A body reader holds uWS's onData: chunks after its end come through lateData(), not a handler of our own. */
  bodyAttached = false;
  /** The body's last chunk was read: no more will come, and uWS called (or calls) no handler again. */
  bodyComplete = false;
  /** The matched route's pattern, for onFinished. */
  route: string | undefined = undefined;
  /** The body's bytes in the in-flight budget, released when the exchange finishes (however it ends). */
  reservation: BodyReservation | undefined = undefined;
  /** A multipart body's temporary files, discarded when the exchange ends. */
  upload: { discard(): void } | null | undefined = undefined;
  /** Set while a file is streamed: aborted when the client goes away. */
  private streaming: AbortController | undefined = undefined;
  /** An open event stream, told when the client goes away. */
  private events: ResponseEventSink | undefined = undefined;
  /** An answer sent while the body was still coming: its rest is dropped before the connection closes. */
  private linger: Linger | undefined = undefined;
  private readonly start = performance.now();

  constructor(
    private readonly res: HttpResponse,
    readonly req: Request,
    private readonly ctx: ExchangeContext,
  ) {}

  /** uWS's onAborted: the client went away; res may not be touched again. */
  clientGone(): void {
    this.aborted = true;
    this.streaming?.abort();
    this.events?.aborted();
    this.linger?.gone();
    if (this.readingBody) this.finish(0);
  }

  /** A chunk of the body after its reader stopped (the request was answered first): dropped, its last one noted. */
  lateData(isLast: boolean): void {
    this.linger?.data(isLast);
  }

  /** fn, its throw handed to fail(): for callbacks that run on a library's stack (uWS, busboy). */
  guarded<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
    return guard(fn, (e) => this.fail(e));
  }

  /**
   * Something threw where no handler catches (a callback, or the writing of an answer): the request gets its error
   * answer if none went out yet, else its connection is closed; either way a log line names it, and nothing escapes.
   */
  fail(err: unknown): void {
    const { req } = this;
    this.ctx.log.error({ req: req.id, path: req.path, err }, 'request failed in a callback');
    if (this.aborted) return this.finish(0);
    if (this.finished) {
      // The answer went out, or began to (an event stream): a half-written response can only be cut off.
      this.events?.aborted();
      return closeQuietly(this.res);
    }
    this.closeAfter = true;
    try {
      this.send(err);
    } catch (e) {
      this.ctx.log.error({ req: req.id, err: e }, 'could not answer a failed request');
      closeQuietly(this.res);
      this.finish(500);
    }
  }

  /** Maps anything thrown to a reply: JSON on API paths, an HTML page elsewhere. */
  send(err: unknown): void {
    const e = toHttpError(err);
    if (e.internal) this.ctx.log.error({ req: this.req.id, err }, 'unhandled error');
    if (isApiPath(this.req.path)) return this.write(json(e.status, e.body, e.headers));
    const page = this.ctx.errorPage(e.status, e.body.error);
    this.write({ ...page, headers: { ...page.headers, ...e.headers } });
  }

  write(reply: Reply): void {
    const { res, req } = this;
    if (this.aborted) return this.finish(0);
    let status = reply?.status;
    let headers = reply?.headers;
    let body: string | Buffer | TextPieces | FileBody | EventStreamBody = reply?.body ?? '';
    // A reply we cannot write safely (a handler bug, or a header value with CR/LF that would split the response)
    // becomes a 500 rather than a crash or an injected header.
    if (!Number.isInteger(status) || !headersAreSafe(headers)) {
      this.ctx.log.error({ req: req.id, path: req.path }, 'handler returned an unwritable reply');
      status = 500;
      headers = INTERNAL_ERROR_HEADERS;
      body = INTERNAL_ERROR_BODY;
    }
    const cors = corsApplies(req.path);
    const head = () => {
      res.writeStatus(statusLine(status));
      res.writeHeader('X-Request-Id', req.id);
      if (cors) for (const k of CORS_KEYS) res.writeHeader(k, CORS_HEADERS[k]!);
      if (headers) {
        for (const k of Object.keys(headers)) {
          const v = headers[k]!;
          if (typeof v === 'string') res.writeHeader(k, v);
          else for (const item of v) res.writeHeader(k, item);
        }
      }
    };
    if (isFileBody(body)) return this.writeFile(status, body, head);
    if (isEventStream(body)) return this.openEvents(status, body, head);
    // Written now and sent before end() returns: the shared buffer is free again for the next response.
    const bytes = body instanceof TextPieces ? bytesOf(body) : body;
    if (this.closeAfter && this.lingerAfter && req.method !== 'HEAD') return this.answerEarly(status, bytes, head);
    res.cork(() => {
      head();
      if (req.method === 'HEAD') endHead(res, Buffer.byteLength(bytes), this.closeAfter);
      else res.end(bytes, this.closeAfter);
    });
    this.finish(status);
  }

  /**
   * The answer to a request whose body is still coming, with `Connection: close`. A keep-alive request with no body
   * reader attached gets it complete at once: uWS reads and drops the rest of the body until its timer (10 s from
   * end()) closes the connection. Else the answer is held (linger.ts): uWS closes at once after a complete answer to
   * `Connection: close`, over the unread rest, losing the answer; and a body reader's onData, still attached, would
   * see the body's last chunk, which stops uWS's timer, and nothing could start it again (a complete response cannot
   * be touched): a client that ignores `Connection: close` would keep an idle socket for ever.
   */
  private answerEarly(status: number, bytes: string | Buffer, head: () => void): void {
    const { res } = this;
    const clientCloses = CONNECTION_CLOSE.test(this.req.headers['connection'] ?? '');
    const readerLeft = this.bodyAttached && !this.bodyComplete;
    // With all of the body in, the answer goes out complete (end() restarts the timer its last chunk stopped). An
    // empty answer cannot be held (uWS sends no chunk of length 0): it closes at once, as before issue 39.
    const hold = (clientCloses || readerLeft) && !this.bodyComplete && Buffer.byteLength(bytes) > 0;
    res.cork(() => {
      head();
      res.writeHeader('Connection', 'close');
      if (hold) res.write(bytes);
      else res.end(bytes, clientCloses || readerLeft);
    });
    if (hold) {
      const linger = new Linger(res, LINGER_BOUNDS);
      this.linger = linger;
      if (!this.bodyAttached) res.onData((_chunk, isLast) => linger.data(isLast));
    }
    this.finish(status);
  }

  /**
   * An event stream: the head goes out now and the exchange is finished (logged, no longer in flight: shutdown does
   * not wait for streams, whose owner closes them); the body goes on until either side ends it.
   */
  private openEvents(status: number, body: EventStreamBody, head: () => void): void {
    if (this.req.method === 'HEAD') {
      // The head a GET would have, and no stream: a body written here would be read as the next response.
      this.res.cork(() => {
        head();
        endHead(this.res, EVENT_STREAM_LENGTH, this.closeAfter);
      });
      return this.finish(status);
    }
    const sink = new ResponseEventSink(this.res, this.ctx.streamingBufferedBytes);
    // Mastodon's first bytes: headers reach the client now, not with the first event.
    sink.open(head, ':)\n');
    this.events = sink;
    this.finish(status);
    try {
      body.open(sink);
    } catch (e) {
      this.ctx.log.error({ req: this.req.id, err: e }, 'an event stream failed to open');
      sink.end();
    }
  }

  /** A file body: streamed from disk (HEAD: its length only); a file gone since the handler looked is a 404. */
  private writeFile(status: number, body: FileBody, head: () => void): void {
    const { res } = this;
    if (this.req.method === 'HEAD') {
      res.cork(() => {
        head();
        endHead(res, body.end - body.start + 1, this.closeAfter);
      });
      return this.finish(status);
    }
    this.streaming = new AbortController();
    let started = false;
    const headOnce = () => {
      started = true;
      head();
    };
    streamFile(res, body, this.streaming.signal, headOnce)
      .then(
        (outcome) => {
          if (outcome === 'not_found') return this.send(Errors.routeNotFound());
          this.finish(status);
        },
        (e: unknown) => {
          // Before the head went out the request can still be answered; after it, only cut off.
          if (!started) return this.fail(e);
          this.ctx.log.error({ req: this.req.id, err: e }, 'file streaming failed');
          if (!this.aborted) closeQuietly(res);
          this.finish(0);
        },
      )
      .catch((e: unknown) => this.fail(e));
  }

  /** The exchange is over (answered, refused or abandoned): logged, and everything it held given back, once. */
  finish(status: number): void {
    if (this.finished) return;
    this.finished = true;
    const { req } = this;
    // The handler held the body until now (req.rawBody, the decoded fields); an aborted or refused one is gone too.
    this.reservation?.release();
    this.upload?.discard();
    const ms = Math.round((performance.now() - this.start) * 10) / 10;
    if (this.aborted) this.ctx.log.info({ req: req.id, method: req.method, path: req.path, ms, aborted: true }, 'request aborted');
    else this.ctx.log.info({ req: req.id, method: req.method, path: req.path, status, ms }, 'request');
    this.ctx.onFinished?.(this.route ?? 'unmatched', req.method, status, ms);
    this.ctx.released();
  }
}

/** Paths answered in JSON (errors included); everything else is a browser page. */
export function isApiPath(path: string): boolean {
  return (
    path.startsWith('/api/') ||
    path.startsWith('/oauth/token') ||
    path.startsWith('/oauth/revoke') ||
    path.startsWith('/oauth/userinfo') ||
    path.startsWith('/.well-known/') ||
    path.startsWith('/nodeinfo') ||
    path === '/health' ||
    path.endsWith('/inbox')
  );
}

function headersAreSafe(headers: Reply['headers']): boolean {
  if (headers === undefined) return true;
  if (typeof headers !== 'object' || headers === null) return false;
  for (const k of Object.keys(headers)) {
    const v = headers[k];
    if (UNSAFE_HEADER_VALUE.test(k)) return false;
    if (typeof v === 'string') {
      if (UNSAFE_HEADER_VALUE.test(v)) return false;
    } else if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || UNSAFE_HEADER_VALUE.test(x))) {
      return false;
    }
  }
  return true;
}

const statusLines = new Map<number, string>();
function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (!line) statusLines.set(status, (line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`));
  return line;
}

function isEventStream(body: unknown): body is EventStreamBody {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && (body as { kind?: unknown }).kind === 'events';
}

/**
 * Ends a HEAD response. uWS's endWithoutBody(length) never completes the response (it waits for `length` bytes that
 * never come), so the connection neither closes on `Connection: close` nor serves its next request; the length goes
 * out as a header instead. A request whose body we did not read must close: uWS closes only a response it sees as
 * complete, so that one reports length 0.
 */
function endHead(res: HttpResponse, length: number, close: boolean): void {
  if (close) {
    res.endWithoutBody(0, true);
  } else {
    res.writeHeader('Content-Length', String(length));
    res.endWithoutBody();
  }
}
