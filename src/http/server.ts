// The uWebSockets.js front end: one catch-all uWS handler, our router, size-limited bodies, abort safety, corked
// writes, a request id and one log line per request, CORS, and the single mapping of thrown errors to HTTP.
import { STATUS_CODES } from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Config } from '../../config/schema.js';
import { Errors, toHttpError } from '../errors.js';
import type { Logger } from '../log.js';
import { tempDirOf } from '../media/temp-files.js';
import { bodyKindOf, decodeBody, limitFor, readBody, readMultipart } from './body.js';
import { BodyBudget, type BodyReservation } from './body-budget.js';
import { CORS_HEADERS, corsApplies, preflightHeaders } from './cors.js';
import { ResponseEventSink } from './event-stream.js';
import { isFileBody } from './file-body.js';
import { guard } from './guard.js';
import { Request } from './request.js';
import { json } from './respond.js';
import { Router } from './router.js';
import { streamFile } from './stream-file.js';
import { bytesOf, TextPieces } from './text-pieces.js';
import type { Authenticate, EventStreamBody, FileBody, Principal, Reply, Route } from './types.js';
import { uws, type HttpRequest, type HttpResponse, type ListenSocket, type TemplatedApp, type WebSocket, type WebSocketBehavior } from './uws.js';

const EMPTY = Buffer.alloc(0);

export interface HttpServerDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly routes: readonly Route[];
  /** Checks a route's AuthRule (the bearer reader, http/auth.ts); needed when any route declares one. */
  readonly authenticate?: Authenticate;
  /** Renders an HTML error page for browser paths (not API paths). */
  readonly errorPage: (status: number, message: string) => Reply;
  /** Told of every finished request: its route's pattern (`unmatched` if none), status (0: aborted), duration. */
  readonly onFinished?: (route: string, method: string, status: number, ms: number) => void;
  /** WebSocket endpoints (streaming), served by uWS before the route table; a plain GET there falls through to it. */
  readonly websockets?: readonly { readonly pattern: string; readonly behavior: WebSocketBehavior<unknown> }[];
}

interface Exchange {
  aborted: boolean;
  /** The log line was written and the in-flight count released (exactly once). */
  finished: boolean;
  /** Waiting for body bytes: an abort now means no handler will ever answer. */
  readingBody: boolean;
  /** The request carried a body we did not read: the connection cannot be reused. */
  closeAfter: boolean;
  /** Set while a file is streamed: aborted when the client goes away. */
  streaming?: AbortController;
  /** The matched route's pattern, for onFinished. */
  route?: string;
  /** The body's bytes in the in-flight budget, released when the exchange finishes (however it ends). */
  reservation?: BodyReservation;
  /** A multipart body's temporary files, discarded when the exchange ends. */
  upload?: { discard(): void } | null;
  /** An open event stream, told when the client goes away. */
  events?: ResponseEventSink;
  readonly start: number;
}

const CORS_KEYS = Object.keys(CORS_HEADERS);
const INTERNAL_ERROR_HEADERS = Object.freeze({ 'Content-Type': 'application/json; charset=utf-8' });
const INTERNAL_ERROR_BODY = '{"error":"Internal server error"}';
const UNSAFE_HEADER_VALUE = /[\r\n\0]/;
// Headers that must come once: two of them are read one way here and perhaps another way by a proxy in front
// (request smuggling, or one credential checked and another used), so the request is refused.
const SINGLE_HEADERS = new Map([
  ['authorization', 'Authorization'],
  ['content-length', 'Content-Length'],
  ['host', 'Host'],
]);
// The methods we implement; uWS passes TRACE and CONNECT too (and drops the ones it does not know unanswered).
const IMPLEMENTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
// uWS reads header blocks far larger than any client sends (over 100 KB) and drops larger ones unanswered; the
// ones it passes are bounded here as nginx bounds them (large_client_header_buffers 4 8k).
const MAX_HEADER_FIELD_BYTES = 8 * 1024;
const MAX_HEADER_BYTES = 32 * 1024;
// A body refused for want of budget: by then the bodies in flight are likely done (most take well under a second).
const BUSY_RETRY_AFTER_S = 2;
// uSockets listen options; the typings lack the (host, port, options, cb) overload the binding accepts.
const LISTEN_DEFAULT = 0;
const LISTEN_EXCLUSIVE_PORT = 1;
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: ListenSocket | false) => void) => unknown;

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

/** Paths answered in JSON (errors included); everything else is a browser page. */
export function isApiPath(path: string): boolean {
  return (
    path.startsWith('/api/') ||
    path.startsWith('/oauth/token') ||
    path.startsWith('/oauth/revoke') ||
    path.startsWith('/.well-known/') ||
    path.startsWith('/nodeinfo') ||
    path === '/health' ||
    path.endsWith('/inbox')
  );
}

export class HttpServer {
  private readonly app: TemplatedApp;
  private readonly router = new Router();
  private listenSocket: ListenSocket | null = null;
  private accepting = true;
  private inflight = 0;
  private drained: (() => void) | null = null;
  private seq = 0;
  private readonly idPrefix = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
  /** Every request body held in memory counts against it (MAX_BODY_BYTES_IN_FLIGHT). */
  readonly bodyBudget: BodyBudget;
  private readonly tempDir: string;
  port = 0;

  constructor(private readonly deps: HttpServerDeps) {
    this.tempDir = tempDirOf(deps.config.dataDir);
    for (const r of deps.routes) {
      if (r.auth && !deps.authenticate) throw new Error(`${r.method} ${r.path} declares auth but the server has no authenticator`);
      this.router.add(r);
    }
    this.bodyBudget = new BodyBudget(deps.config.limits.bodyBytesInFlight);
    this.app = uws.App();
    for (const w of deps.websockets ?? []) this.app.ws(w.pattern, guardedBehavior(w.behavior, deps.log));
    // onRequest answers its own failures; this catches one in its synchronous prologue, before the exchange exists.
    this.app.any(
      '/*',
      guard(
        (res: HttpResponse, req: HttpRequest) => this.onRequest(res, req),
        (e, [res]) => {
          deps.log.error({ err: e }, 'request failed before it was routed');
          answerInternalError(res);
        },
      ),
    );
  }

  listen(): Promise<number> {
    const { host, port, listenReusePort } = this.deps.config;
    // uSockets shares a port by default (SO_REUSEPORT): a second server would start too and take half the requests.
    const options = listenReusePort ? LISTEN_DEFAULT : LISTEN_EXCLUSIVE_PORT;
    return new Promise((resolve, reject) => {
      (this.app.listen as unknown as ListenWithOptions).call(this.app, host, port, options, (socket) => {
        if (!socket) return void whyNotListening(host, port).then(reject);
        this.listenSocket = socket;
        this.port = uws.us_socket_local_port(socket as never);
        resolve(this.port);
      });
    });
  }

  /** Stops accepting connections; requests already in flight finish. */
  stopAccepting(): void {
    this.accepting = false;
    if (this.listenSocket) uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
  }

  /** Resolves when no request is in flight, or after timeoutMs. */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.inflight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.drained = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  private onRequest(res: HttpResponse, ureq: HttpRequest): void {
    // Synchronous prologue: ureq is invalid after this function returns.
    const method = ureq.getCaseSensitiveMethod().toUpperCase();
    const path = ureq.getUrl();
    const rawQuery = ureq.getQuery() ?? '';
    const headers: Record<string, string> = {};
    let duplicate: string | undefined;
    let headerBytes = 0;
    let oversizedField = false;
    ureq.forEach((k, v) => {
      if (headers[k] !== undefined && SINGLE_HEADERS.has(k)) duplicate ??= SINGLE_HEADERS.get(k);
      headers[k] = v;
      const field = k.length + v.length;
      headerBytes += field;
      if (field > MAX_HEADER_FIELD_BYTES) oversizedField = true;
    });
    const ex: Exchange = { aborted: false, finished: false, readingBody: false, closeAfter: false, start: performance.now() };
    this.inflight++;
    const req = new Request(this.nextId(), method, path, rawQuery, headers, () => (ex.aborted || ex.finished ? '' : this.clientIp(res, headers)));
    // Anything that can change state (throttles count by address) gets its address now, while it is certain.
    if (method !== 'GET' && method !== 'HEAD') void req.ip;
    res.onAborted(
      guard(
        () => {
          ex.aborted = true;
          ex.streaming?.abort();
          ex.events?.aborted();
          if (ex.readingBody) this.finish(ex, req, 0);
        },
        (e) => this.deps.log.error({ req: req.id, err: e }, 'failed to end an aborted request'),
      ),
    );
    try {
      this.dispatch(res, ex, req, headers, method, path, duplicate, oversizedField, headerBytes);
    } catch (e) {
      this.fail(res, ex, req, e);
    }
  }

  /** Everything after the prologue: refusals, routing, the rule, the body, the handler. */
  private dispatch(
    res: HttpResponse,
    ex: Exchange,
    req: Request,
    headers: Record<string, string>,
    method: string,
    path: string,
    duplicate: string | undefined,
    oversizedField: boolean,
    headerBytes: number,
  ): void {
    const lengthHeader = headers['content-length'];
    const declared = lengthHeader === undefined ? null : /^\d{1,15}$/.test(lengthHeader) ? Number(lengthHeader) : NaN;
    const hasBody = (declared !== null && declared > 0) || headers['transfer-encoding'] !== undefined;
    ex.closeAfter = hasBody;

    if (duplicate !== undefined) {
      // Where this request ends is uncertain, so nothing after it may be served: the refusal closes the connection,
      // and it is sent on the next turn because uWS drops a connection whose next request arrives while a response
      // is pending, so a request smuggled into the same packet is never answered.
      ex.closeAfter = true;
      const refusal = Errors.badRequest(`Duplicate ${duplicate} header`);
      setImmediate(
        guard(
          () => this.send(res, ex, req, refusal),
          (e) => this.fail(res, ex, req, e),
        ),
      );
      return;
    }
    if (!IMPLEMENTED_METHODS.has(method)) {
      ex.closeAfter = true;
      return this.send(res, ex, req, Errors.notImplemented(method));
    }
    if (oversizedField || headerBytes > MAX_HEADER_BYTES) {
      ex.closeAfter = true;
      return this.send(res, ex, req, Errors.headersTooLarge(MAX_HEADER_FIELD_BYTES, MAX_HEADER_BYTES));
    }
    if (!this.accepting) return this.send(res, ex, req, Errors.unavailable('The server is shutting down'));
    if (declared !== null && !(Number.isSafeInteger(declared) && declared >= 0)) {
      return this.send(res, ex, req, Errors.badRequest('Invalid Content-Length'));
    }
    const match = this.router.match(method, path);
    if (match.kind === 'none') return this.send(res, ex, req, Errors.routeNotFound());
    if (match.kind === 'method') {
      if (method === 'OPTIONS' && corsApplies(path)) {
        return this.write(res, ex, req, { status: 204, headers: preflightHeaders(match.allowed, headers['access-control-request-headers']) });
      }
      return this.send(res, ex, req, Errors.methodNotAllowed(match.allowed));
    }
    const route = match.route;
    ex.route = route.path;
    req.params = match.params;
    if (!route.body) return this.authorize(route, req, res, ex);

    const contentType = headers['content-type'] ?? '';
    const kind = hasBody ? bodyKindOf(contentType) : 'none';
    if (kind === null || (route.body === 'raw' && kind !== 'json' && kind !== 'none')) {
      return this.send(res, ex, req, Errors.unsupportedMediaType(contentType.split(';', 1)[0]!));
    }
    const limit = limitFor(kind, this.deps.config.limits, route);
    if (declared !== null && declared > limit) return this.send(res, ex, req, Errors.bodyTooLarge(limit));
    if (!hasBody) {
      req.body = {};
      req.rawBody = EMPTY;
      return this.authorize(route, req, res, ex);
    }
    // A missing, malformed or known-bad token (and a cached one without the scopes) is refused before a byte of
    // the body is read; a token not yet cached is looked up while the body arrives.
    let principal: Principal | null | Promise<Principal>;
    try {
      principal = this.principal(route, req);
    } catch (e) {
      return this.send(res, ex, req, e);
    }
    // A declared body is admitted whole before a byte is read (the buffer is allocated at that size); a chunked
    // one from nothing, chunk by chunk. Refused, the body is never read and the connection closes (closeAfter).
    // A multipart body goes to disk as it arrives (its text fields are capped apart): it holds no body in memory.
    const reservation = this.bodyBudget.reserve(kind === 'multipart' ? 0 : (declared ?? 0));
    if (!reservation) return this.send(res, ex, req, Errors.busy(BUSY_RETRY_AFTER_S, 'Too many request bodies in flight'));
    ex.reservation = reservation;
    ex.readingBody = true;
    if (kind === 'multipart') return this.readUpload(route, req, res, ex, principal, declared, limit, contentType);
    readBody(
      res,
      declared,
      limit,
      this.guarded(res, ex, req, (outcome) => {
        ex.readingBody = false;
        if (ex.aborted) return this.finish(ex, req, 0);
        if (!outcome.ok) return this.send(res, ex, req, outcome.reason === 'error' ? outcome.error : bodyRefusal(outcome.reason, limit));
        ex.closeAfter = false;
        try {
          req.rawBody = outcome.data;
          if (route.body !== 'raw') req.body = decodeBody(kind, contentType, outcome.data);
        } catch (e) {
          return this.send(res, ex, req, e);
        }
        this.run(route, req, res, ex, principal);
      }),
      (bytes) => reservation.grow(bytes),
    );
  }

  /** A multipart body: decoded while it arrives, its files on disk until the exchange ends (finish discards them). */
  private readUpload(
    route: Route,
    req: Request,
    res: HttpResponse,
    ex: Exchange,
    principal: Principal | null | Promise<Principal>,
    declared: number | null,
    limit: number,
    contentType: string,
  ): void {
    ex.upload = readMultipart(
      res,
      declared,
      limit,
      contentType,
      this.tempDir,
      route.takesFiles === true,
      this.guarded(res, ex, req, (outcome) => {
        ex.readingBody = false;
        if (ex.aborted) return this.finish(ex, req, 0);
        if (!outcome.ok) return this.send(res, ex, req, outcome.error);
        ex.closeAfter = false;
        req.rawBody = EMPTY;
        req.body = outcome.params;
        this.run(route, req, res, ex, principal);
      }),
    );
  }

  /** The caller of an authenticated route (a promise on a token-cache miss); null when the route allows anyone. */
  private principal(route: Route, req: Request): Principal | null | Promise<Principal> {
    const rule = route.auth;
    if (rule === undefined || (rule.optional && req.headers['authorization'] === undefined)) return null;
    const who = this.deps.authenticate!(req, rule);
    // A lookup's refusal is answered in run(); a request that never gets there (client gone mid-body, body refused)
    // leaves it unawaited, and an unhandled rejection would end the process.
    if (who instanceof Promise) who.catch(() => undefined);
    return who;
  }

  private authorize(route: Route, req: Request, res: HttpResponse, ex: Exchange): void {
    let principal: Principal | null | Promise<Principal>;
    try {
      principal = this.principal(route, req);
    } catch (e) {
      return this.send(res, ex, req, e);
    }
    this.run(route, req, res, ex, principal);
  }

  private run(route: Route, req: Request, res: HttpResponse, ex: Exchange, principal: Principal | null | Promise<Principal>): void {
    if (principal instanceof Promise) {
      principal
        .then(
          (who) => (ex.aborted ? this.finish(ex, req, 0) : this.run(route, req, res, ex, who)),
          (e: unknown) => this.send(res, ex, req, e),
        )
        .catch((e: unknown) => this.fail(res, ex, req, e));
      return;
    }
    let result: Reply | Promise<Reply>;
    try {
      // The rule was checked above, so the principal is what the route's handler type promises.
      result = route.handler(req, principal as never);
    } catch (e) {
      return this.send(res, ex, req, e);
    }
    if (result instanceof Promise) {
      result
        .then(
          (reply) => this.write(res, ex, req, reply),
          (e: unknown) => this.send(res, ex, req, e),
        )
        .catch((e: unknown) => this.fail(res, ex, req, e));
    } else {
      this.write(res, ex, req, result);
    }
  }

  /** fn, its throw handed to fail(): for callbacks that run on a library's stack (uWS, busboy). */
  private guarded<A extends unknown[]>(res: HttpResponse, ex: Exchange, req: Request, fn: (...args: A) => void): (...args: A) => void {
    return guard(fn, (e) => this.fail(res, ex, req, e));
  }

  /**
   * Something threw where no handler catches (a callback, or the writing of an answer): the request gets its error
   * answer if none went out yet, else its connection is closed; either way a log line names it, and nothing escapes.
   */
  private fail(res: HttpResponse, ex: Exchange, req: Request, err: unknown): void {
    this.deps.log.error({ req: req.id, path: req.path, err }, 'request failed in a callback');
    if (ex.aborted) return this.finish(ex, req, 0);
    if (ex.finished) {
      // The answer went out, or began to (an event stream): a half-written response can only be cut off.
      ex.events?.aborted();
      return closeQuietly(res);
    }
    ex.closeAfter = true;
    try {
      this.send(res, ex, req, err);
    } catch (e) {
      this.deps.log.error({ req: req.id, err: e }, 'could not answer a failed request');
      closeQuietly(res);
      this.finish(ex, req, 500);
    }
  }

  /** Maps anything thrown to a reply: JSON on API paths, an HTML page elsewhere. */
  private send(res: HttpResponse, ex: Exchange, req: Request, err: unknown): void {
    const e = toHttpError(err);
    if (e.internal) this.deps.log.error({ req: req.id, err }, 'unhandled error');
    if (isApiPath(req.path)) return this.write(res, ex, req, json(e.status, e.body, e.headers));
    const page = this.deps.errorPage(e.status, e.body.error);
    this.write(res, ex, req, { ...page, headers: { ...page.headers, ...e.headers } });
  }

  private write(res: HttpResponse, ex: Exchange, req: Request, reply: Reply): void {
    if (ex.aborted) return this.finish(ex, req, 0);
    let status = reply?.status;
    let headers = reply?.headers;
    let body: string | Buffer | TextPieces | FileBody | EventStreamBody = reply?.body ?? '';
    // A reply we cannot write safely (a handler bug, or a header value with CR/LF that would split the response)
    // becomes a 500 rather than a crash or an injected header.
    if (!Number.isInteger(status) || !headersAreSafe(headers)) {
      this.deps.log.error({ req: req.id, path: req.path }, 'handler returned an unwritable reply');
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
    if (isFileBody(body)) return this.writeFile(res, ex, req, status, body, head);
    if (isEventStream(body)) return this.openEvents(res, ex, req, status, body, head);
    // Written now and sent before end() returns: the shared buffer is free again for the next response.
    const bytes = body instanceof TextPieces ? bytesOf(body) : body;
    res.cork(() => {
      head();
      if (req.method === 'HEAD') endHead(res, Buffer.byteLength(bytes), ex.closeAfter);
      else res.end(bytes, ex.closeAfter);
    });
    this.finish(ex, req, status);
  }

  /**
   * An event stream: the head goes out now and the exchange is finished (logged, no longer in flight: shutdown does
   * not wait for streams, whose owner closes them); the body goes on until either side ends it.
   */
  private openEvents(res: HttpResponse, ex: Exchange, req: Request, status: number, body: EventStreamBody, head: () => void): void {
    res.cork(() => {
      head();
      // Mastodon's first bytes: headers reach the client now, not with the first event.
      res.write(':)\n');
    });
    const sink = new ResponseEventSink(res, this.deps.config.limits.streamingBufferedBytes);
    ex.events = sink;
    this.finish(ex, req, status);
    try {
      body.open(sink);
    } catch (e) {
      this.deps.log.error({ req: req.id, err: e }, 'an event stream failed to open');
      sink.end();
    }
  }

  /** A file body: streamed from disk (HEAD: its length only); a file gone since the handler looked is a 404. */
  private writeFile(res: HttpResponse, ex: Exchange, req: Request, status: number, body: FileBody, head: () => void): void {
    if (req.method === 'HEAD') {
      res.cork(() => {
        head();
        endHead(res, body.end - body.start + 1, ex.closeAfter);
      });
      return this.finish(ex, req, status);
    }
    ex.streaming = new AbortController();
    let started = false;
    const headOnce = () => {
      started = true;
      head();
    };
    streamFile(res, body, ex.streaming.signal, headOnce)
      .then(
        (outcome) => {
          if (outcome === 'not_found') return this.send(res, ex, req, Errors.routeNotFound());
          this.finish(ex, req, status);
        },
        (e: unknown) => {
          // Before the head went out the request can still be answered; after it, only cut off.
          if (!started) return this.fail(res, ex, req, e);
          this.deps.log.error({ req: req.id, err: e }, 'file streaming failed');
          if (!ex.aborted) closeQuietly(res);
          this.finish(ex, req, 0);
        },
      )
      .catch((e: unknown) => this.fail(res, ex, req, e));
  }

  private finish(ex: Exchange, req: Request, status: number): void {
    if (ex.finished) return;
    ex.finished = true;
    // The handler held the body until now (req.rawBody, the decoded fields); an aborted or refused one is gone too.
    ex.reservation?.release();
    ex.upload?.discard();
    const ms = Math.round((performance.now() - ex.start) * 10) / 10;
    if (ex.aborted) this.deps.log.info({ req: req.id, method: req.method, path: req.path, ms, aborted: true }, 'request aborted');
    else this.deps.log.info({ req: req.id, method: req.method, path: req.path, status, ms }, 'request');
    this.deps.onFinished?.(ex.route ?? 'unmatched', req.method, status, ms);
    if (--this.inflight === 0 && this.drained) {
      const d = this.drained;
      this.drained = null;
      d();
    }
  }

  private nextId(): string {
    return `${this.idPrefix}-${(++this.seq).toString(36)}`;
  }

  private clientIp(res: HttpResponse, headers: Record<string, string>): string {
    if (this.deps.config.trustProxy) {
      // The rightmost entry is the one our proxy added; entries to its left are whatever the client claimed.
      const xff = headers['x-forwarded-for'];
      if (xff) return xff.slice(xff.lastIndexOf(',') + 1).trim();
    }
    return Buffer.from(res.getRemoteAddressAsText()).toString();
  }
}

/** A response closed, whatever state it is in (a closed or aborted one throws). */
function closeQuietly(res: HttpResponse): void {
  try {
    res.close();
  } catch {
    // Already gone.
  }
}

/** A 500 for a request whose exchange never started, if it can still be written. */
function answerInternalError(res: HttpResponse): void {
  try {
    res.cork(() =>
      res.writeStatus('500 Internal Server Error').writeHeader('Content-Type', INTERNAL_ERROR_HEADERS['Content-Type']).end(INTERNAL_ERROR_BODY, true),
    );
  } catch {
    closeQuietly(res);
  }
}

/**
 * A WebSocket behaviour whose callbacks cannot throw into uWS: a throw is logged and, while the socket is open,
 * closes it with 1011 (an unexpected condition) so the client reconnects; a failed upgrade is answered 500.
 */
function guardedBehavior<T>(behavior: WebSocketBehavior<T>, log: Logger): WebSocketBehavior<T> {
  const out: WebSocketBehavior<T> = { ...behavior };
  const ending =
    (what: string) =>
    (e: unknown, [ws]: [WebSocket<T>, ...unknown[]]) => {
      log.error({ err: e }, `WebSocket ${what} failed`);
      try {
        ws.end(1011, 'Internal server error');
      } catch {
        // Closed already.
      }
    };
  const logging = (what: string) => (e: unknown) => log.error({ err: e }, `WebSocket ${what} failed`);
  const { upgrade, open, message, drain, ping, pong, subscription, close } = behavior;
  if (upgrade) {
    out.upgrade = guard(upgrade, (e, [res]) => {
      log.error({ err: e }, 'WebSocket upgrade failed');
      answerInternalError(res);
    });
  }
  if (open) out.open = guard(open, ending('open'));
  if (message) out.message = guard(message, ending('message'));
  if (drain) out.drain = guard(drain, ending('drain'));
  if (ping) out.ping = guard(ping, ending('ping'));
  if (pong) out.pong = guard(pong, ending('pong'));
  if (subscription) out.subscription = guard(subscription, logging('subscription'));
  if (close) out.close = guard(close, logging('close'));
  return out;
}

function isEventStream(body: unknown): body is EventStreamBody {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body) && (body as { kind?: unknown }).kind === 'events';
}

function bodyRefusal(reason: 'too_large' | 'length_mismatch' | 'over_budget', limit: number): unknown {
  if (reason === 'too_large') return Errors.bodyTooLarge(limit);
  if (reason === 'over_budget') return Errors.busy(BUSY_RETRY_AFTER_S, 'Too many request bodies in flight');
  return Errors.badRequest('Body length does not match Content-Length');
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

/** Why uWS could not listen (it does not say): the same bind by node's net names the reason. */
function whyNotListening(host: string, port: number): Promise<Error> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', (e: NodeJS.ErrnoException) =>
      resolve(new Error(e.code === 'EADDRINUSE' ? `port ${port} is in use` : `cannot listen on ${host}:${port} (${e.code ?? e.message})`)),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(new Error(`cannot listen on ${host}:${port}`))));
  });
}
