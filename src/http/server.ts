// The uWebSockets.js front end: one catch-all uWS handler, our router, size-limited bodies, abort safety, a request
// id and one log line per request, CORS; each request's answer is an Exchange (http/exchange.ts), where errors
// meet HTTP. Every callback handed to uWS is guarded (http/guard.ts): a throw answers its request, never the process.
import net from 'node:net';
import type { Config } from '../../config/schema.js';
import { hasPermission } from '../auth/permissions.js';
import { Errors } from '../errors.js';
import type { Logger } from '../log.js';
import { tempDirOf } from '../media/temp-files.js';
import { bodyKindOf, decodeBody, limitFor, readBody, readMultipart } from './body.js';
import { BodyBudget } from './body-budget.js';
import { corsApplies, preflightHeaders } from './cors.js';
import { Exchange, type ExchangeContext } from './exchange.js';
import { guard } from './guard.js';
import { answerInternalError } from './last-resort.js';
import { invalidLength, readHead, type RequestHead } from './request-head.js';
import { Request } from './request.js';
import { Router } from './router.js';
import { type Authenticate, isAuthRule, isPageRule, type PageCaller, type PageGate, type PageRule, type Principal, type Reply, type Route } from './types.js';
import { uws, type HttpRequest, type HttpResponse, type ListenSocket, type TemplatedApp, type WebSocketBehavior } from './uws.js';
import { guardedBehavior } from './websocket-guard.js';

const EMPTY = Buffer.alloc(0);

export interface HttpServerDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly routes: readonly Route[];
  /** Checks a route's AuthRule (the bearer reader, http/auth.ts); needed when any route declares one. */
  readonly authenticate?: Authenticate;
  /** Reads a page's caller and checks its forms' CSRF token (web/session.ts); needed when any route is a page. */
  readonly pages?: PageGate;
  /** Renders an HTML error page for browser paths (not API paths). */
  readonly errorPage: (status: number, message: string) => Reply;
  /** Told of every finished request: its route's pattern (`unmatched` if none), status (0: aborted), duration. */
  readonly onFinished?: (route: string, method: string, status: number, ms: number) => void;
  /** WebSocket endpoints (streaming), served by uWS before the route table; a plain GET there falls through to it. */
  readonly websockets?: readonly { readonly pattern: string; readonly behavior: WebSocketBehavior<unknown> }[];
}

type Caller = Principal | PageCaller | null | Promise<Principal | PageCaller>;

const FORM_EXPIRED = 'Your form expired. Go back and try again.';

// A body refused for want of budget: by then the bodies in flight are likely done (most take well under a second).
const BUSY_RETRY_AFTER_S = 2;
// Bodies up to this many times the largest body limit are read and dropped after an early answer.
const LINGER_FACTOR = 2;
// uSockets listen options; the typings lack the (host, port, options, cb) overload the binding accepts.
const LISTEN_DEFAULT = 0;
const LISTEN_EXCLUSIVE_PORT = 1;
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: ListenSocket | false) => void) => unknown;

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
  private readonly exchanges: ExchangeContext;
  /** The largest declared body whose rest is read and dropped after an early answer (http/linger.ts). */
  private readonly lingerBytes: number;
  port = 0;

  constructor(private readonly deps: HttpServerDeps) {
    this.tempDir = tempDirOf(deps.config.dataDir);
    for (const r of deps.routes) {
      if (isAuthRule(r.auth) && !deps.authenticate) throw new Error(`${r.method} ${r.path} declares auth but the server has no authenticator`);
      if (isPageRule(r.auth) && !deps.pages) throw new Error(`${r.method} ${r.path} is a page but the server reads no sessions`);
      this.router.add(r);
    }
    this.bodyBudget = new BodyBudget(deps.config.limits.bodyBytesInFlight);
    // A client sending somewhat more than any route takes (a video a little too long) still reads its 413; one that
    // declares far more is cut off at once, its answer perhaps lost, rather than read for minutes.
    const { bodyBytes, formBytes, multipartBytes } = deps.config.limits;
    this.lingerBytes = LINGER_FACTOR * Math.max(bodyBytes, formBytes, multipartBytes);
    this.exchanges = {
      log: deps.log,
      errorPage: deps.errorPage,
      onFinished: deps.onFinished,
      streamingBufferedBytes: deps.config.limits.streamingBufferedBytes,
      released: () => this.released(),
    };
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

  private released(): void {
    if (--this.inflight === 0 && this.drained) {
      const d = this.drained;
      this.drained = null;
      d();
    }
  }

  private onRequest(res: HttpResponse, ureq: HttpRequest): void {
    // Synchronous prologue: ureq is invalid after this function returns.
    const head = readHead(ureq);
    this.inflight++;
    let ex: Exchange | null = null;
    const req = new Request(this.nextId(), head.method, head.path, head.rawQuery, head.headers, () =>
      ex === null || ex.aborted || ex.finished ? '' : this.clientIp(res, head.headers),
    );
    ex = new Exchange(res, req, this.exchanges);
    // Anything that can change state (throttles count by address) gets its address now, while it is certain.
    if (head.method !== 'GET' && head.method !== 'HEAD') void req.ip;
    const exchange = ex;
    res.onAborted(
      guard(
        () => exchange.clientGone(),
        (e) => this.deps.log.error({ req: req.id, err: e }, 'failed to end an aborted request'),
      ),
    );
    try {
      this.dispatch(res, exchange, req, head);
    } catch (e) {
      exchange.fail(e);
    }
  }

  /** Everything after the prologue: refusals, routing, the rule, the body, the handler. */
  private dispatch(res: HttpResponse, ex: Exchange, req: Request, head: RequestHead): void {
    const { method, path, headers, declared, hasBody, refusal } = head;
    ex.closeAfter = hasBody;
    if (refusal) {
      ex.closeAfter ||= refusal.close;
      if (refusal.deferred) setImmediate(ex.guarded(() => ex.send(refusal.error)));
      else ex.send(refusal.error);
      return;
    }
    if (!this.accepting) return ex.send(Errors.unavailable('The server is shutting down'));
    if (invalidLength(head)) return ex.send(Errors.badRequest('Invalid Content-Length'));
    // Framed by a trusted length (a refused head above is not), an unread body can be dropped after the answer.
    // A chunked one cannot: its end is wherever the client puts it, so its answer closes the connection at once.
    ex.lingerAfter = declared !== null && declared <= this.lingerBytes;
    const match = this.router.match(method, path);
    if (match.kind === 'none') return ex.send(Errors.routeNotFound());
    if (match.kind === 'method') {
      if (method === 'OPTIONS' && corsApplies(path)) {
        return ex.write({ status: 204, headers: preflightHeaders(match.allowed, headers['access-control-request-headers']) });
      }
      return ex.send(Errors.methodNotAllowed(match.allowed));
    }
    const route = match.route;
    ex.route = route.path;
    req.params = match.params;
    if (!route.body) return this.authorize(route, req, ex);

    const contentType = headers['content-type'] ?? '';
    const kind = hasBody ? bodyKindOf(contentType) : 'none';
    if (kind === null || (route.body === 'raw' && kind !== 'json' && kind !== 'none')) {
      return ex.send(Errors.unsupportedMediaType(contentType.split(';', 1)[0]!));
    }
    const limit = limitFor(kind, this.deps.config.limits, route);
    if (declared !== null && declared > limit) return ex.send(Errors.bodyTooLarge(limit));
    if (!hasBody) {
      req.body = {};
      req.rawBody = EMPTY;
      return this.authorize(route, req, ex);
    }
    // A missing, malformed or known-bad token (and a cached one without the scopes) is refused before a byte of
    // the body is read; a token not yet cached is looked up while the body arrives.
    let principal: Caller;
    try {
      principal = this.principal(route, req);
    } catch (e) {
      return ex.send(e);
    }
    // A declared body is admitted whole before a byte is read (the buffer is allocated at that size); a chunked
    // one from nothing, chunk by chunk. Refused, the body is never kept: dropped as it comes, then the connection closes.
    // A multipart body goes to disk as it arrives (its text fields are capped apart): it holds no body in memory.
    const reservation = this.bodyBudget.reserve(kind === 'multipart' ? 0 : (declared ?? 0));
    if (!reservation) return ex.send(Errors.busy(BUSY_RETRY_AFTER_S, 'Too many request bodies in flight'));
    ex.reservation = reservation;
    ex.readingBody = true;
    ex.bodyAttached = true;
    if (kind === 'multipart') return this.readUpload(route, req, res, ex, principal, declared, limit, contentType);
    readBody(
      res,
      declared,
      limit,
      ex.guarded((outcome) => {
        ex.readingBody = false;
        if (ex.aborted) return ex.finish(0);
        if (!outcome.ok) return ex.send(outcome.reason === 'error' ? outcome.error : bodyRefusal(outcome.reason, limit));
        ex.closeAfter = false;
        try {
          req.rawBody = outcome.data;
          if (route.body !== 'raw') req.body = decodeBody(kind, contentType, outcome.data);
        } catch (e) {
          return ex.send(e);
        }
        this.run(route, req, ex, principal);
      }),
      (bytes) => reservation.grow(bytes),
      (isLast) => ex.lateData(isLast),
      () => (ex.bodyComplete = true),
    );
  }

  /** A multipart body: decoded while it arrives, its files on disk until the exchange ends (finish discards them). */
  private readUpload(
    route: Route,
    req: Request,
    res: HttpResponse,
    ex: Exchange,
    principal: Caller,
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
      ex.guarded((outcome) => {
        ex.readingBody = false;
        if (ex.aborted) return ex.finish(0);
        if (!outcome.ok) return ex.send(outcome.error);
        ex.closeAfter = false;
        req.rawBody = EMPTY;
        req.body = outcome.params;
        this.run(route, req, ex, principal);
      }),
      (isLast) => ex.lateData(isLast),
      () => (ex.bodyComplete = true),
    );
  }

  /**
   * The caller of a route with a bearer rule (a promise on a token-cache miss); null when the route allows anyone,
   * and for a page, whose rule is checked once its form has been read (run()).
   */
  private principal(route: Route, req: Request): Caller {
    const rule = route.auth;
    if (!isAuthRule(rule) || (rule.optional && req.headers['authorization'] === undefined)) return null;
    const who = this.deps.authenticate!(req, rule);
    // A lookup's refusal is answered in run(); a request that never gets there (client gone mid-body, body refused)
    // leaves it unawaited, and an unhandled rejection would end the process.
    if (who instanceof Promise) who.catch(() => undefined);
    return who;
  }

  private authorize(route: Route, req: Request, ex: Exchange): void {
    let principal: Caller;
    try {
      principal = this.principal(route, req);
    } catch (e) {
      return ex.send(e);
    }
    this.run(route, req, ex, principal);
  }

  private run(route: Route, req: Request, ex: Exchange, principal: Caller): void {
    if (principal === null && isPageRule(route.auth)) principal = this.pageCaller(route.auth, req);
    if (principal instanceof Promise) {
      principal
        .then(
          (who) => (ex.aborted ? ex.finish(0) : this.run(route, req, ex, who)),
          (e: unknown) => ex.send(e),
        )
        .catch((e: unknown) => ex.fail(e));
      return;
    }
    let result: Reply | Promise<Reply>;
    try {
      // The rule was checked above, so the principal is what the route's handler type promises.
      result = route.handler(req, principal as never);
    } catch (e) {
      return ex.send(e);
    }
    if (result instanceof Promise) {
      result
        .then(
          (reply) => ex.write(reply),
          (e: unknown) => ex.send(e),
        )
        .catch((e: unknown) => ex.fail(e));
    } else {
      ex.write(result);
    }
  }

  /** A page's rule: who the visitor is, that they may see it, and (for a form) that it was sent from our page. */
  private async pageCaller(rule: PageRule, req: Request): Promise<PageCaller> {
    const pages = this.deps.pages!;
    const ctx = await pages.context(req);
    if (rule.page === 'member' || rule.permission) {
      if (!ctx.user) {
        const here = req.rawQuery ? `${req.path}?${req.rawQuery}` : req.path;
        throw Errors.signInFirst(req.method === 'GET' ? here : (rule.returnTo?.(req) ?? req.path));
      }
      if (rule.permission && !hasPermission(ctx.user.permissions, rule.permission)) throw Errors.forbidden();
    }
    if (req.method !== 'GET' && req.method !== 'HEAD' && rule.csrf !== 'handler' && !pages.csrfValid(req, req.fields['authenticity_token'])) {
      throw Errors.forbidden(FORM_EXPIRED);
    }
    return ctx;
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

function bodyRefusal(reason: 'too_large' | 'length_mismatch' | 'over_budget', limit: number): unknown {
  if (reason === 'too_large') return Errors.bodyTooLarge(limit);
  if (reason === 'over_budget') return Errors.busy(BUSY_RETRY_AFTER_S, 'Too many request bodies in flight');
  return Errors.badRequest('Body length does not match Content-Length');
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
