// The shapes shared by the front end and every route module.
import type { PermissionName } from '../auth/permissions.js';
import type { CachedToken } from '../oauth/token-cache.js';
import type { TokenRecord } from '../store/oauth-tokens.js';
import type { LocalUser } from '../store/users.js';
import type { Request } from './request.js';
import type { TextPieces } from './text-pieces.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type HeaderValue = string | readonly string[];

/** A file as a response body: where the bytes are and which of them to send (http/file-body.ts). */
export interface FileBody {
  readonly kind: 'file';
  /** The bytes start..end, as chunks pulled one at a time (undefined: the file is gone). */
  readonly read: (start: number, end: number, signal: AbortSignal) => Promise<AsyncIterable<Uint8Array> | undefined>;
  /** First and last byte to send, inclusive. */
  readonly start: number;
  readonly end: number;
}

/**
 * A response that stays open (server-sent events): once the head is written, open() is given the sink to write to
 * for as long as the client stays (http/event-stream.ts).
 */
export interface EventStreamBody {
  readonly kind: 'events';
  open(sink: EventSink): void;
}

/** Writing to an open event stream. */
export interface EventSink {
  /** Writes (corked); past the buffered-bytes bound the client is too slow and the stream is closed instead. */
  write(chunk: string): void;
  end(): void;
  readonly closed: boolean;
  /** Called once when the stream ends, whoever ends it. */
  onClose(fn: () => void): void;
}

/** What a handler returns; server.ts writes it (corked) unless the client has gone away. */
export interface Reply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
  readonly body?: string | Buffer | TextPieces | FileBody | EventStreamBody;
}

/**
 * Who may call a route, checked once by the front end before the body is read (http/server.ts) and in Mastodon's
 * order: no or bad token 401, scopes 403, an application token on a member route 422, a disabled member 403.
 */
export interface AuthRule {
  /** Any one of these is enough (each may be covered by a broader granted scope); empty: any valid token. */
  readonly scopes: readonly string[];
  /** The route acts for a member: application tokens (client_credentials) are refused. */
  readonly member?: boolean;
  /** Anonymous requests pass with no principal; a token that is sent must still satisfy the rule. */
  readonly optional?: boolean;
  /** The member's role must hold it (403 otherwise), checked after the rest: Mastodon's policies. Implies member. */
  readonly permission?: PermissionName;
}

/**
 * Who may see a browser page, checked by the front end before the handler (http/server.ts, with the session reader
 * it is given): `visitor` anyone (the page sees who, if anyone), `member` a signed-in member (else sent to sign in),
 * with `permission` one whose role holds it (403). A POST's authenticity_token is checked too (403), unless the
 * handler checks it itself to answer with its own page (`csrf: 'handler'`).
 */
export interface PageRule {
  readonly page: 'visitor' | 'member';
  readonly permission?: PermissionName;
  readonly csrf?: 'handler';
  /** Where a visitor sent to sign in from a form comes back to (default: the path posted to). */
  readonly returnTo?: (req: Request) => string;
}

/**
 * No credentials are read by the front end: documents anyone may fetch, federation (the handler verifies the HTTP
 * signature), the OAuth endpoints (client credentials in the body), what reads its own token (streaming, /metrics).
 */
export interface PublicRule {
  readonly public: true;
}
export const PUBLIC: PublicRule = Object.freeze({ public: true });

/** Every route declares one: the rule, not the handler, says who may call it (test/house/route-rules.test.ts). */
export type Rule = AuthRule | PageRule | PublicRule;

export function isPageRule(r: Rule | undefined): r is PageRule {
  return r !== undefined && 'page' in r;
}
export function isAuthRule(r: Rule | undefined): r is AuthRule {
  return r !== undefined && 'scopes' in r;
}

/** A page's caller: the signed-in member if any, the CSRF token for its forms, cookies the answer must set. */
export interface PageCaller {
  readonly user: LocalUser | undefined;
  readonly csrfToken: string;
  /** Set-Cookie values the response must carry (a new CSRF cookie on first visit). */
  readonly setCookies: string[];
}
export type MemberPageCaller = PageCaller & { readonly user: LocalUser };

/** How the front end reads a page's caller (web/session.ts WebAuth). */
export interface PageGate {
  context(req: Request): Promise<PageCaller>;
  csrfValid(req: Request, token: unknown): boolean;
}

/** The authenticated caller: the live token (its record: app, scopes, member) as the token cache holds it. */
export type Principal = CachedToken;

/** A member's token: the record's user is always there. */
export type MemberPrincipal = CachedToken & { readonly record: TokenRecord & { readonly user: LocalUser } };

/** What a route's handler is given for its rule. */
export type PrincipalOf<A> = A extends PageRule
  ? A extends { readonly page: 'member' }
    ? MemberPageCaller
    : PageCaller
  : A extends AuthRule
    ? A extends { readonly optional: true }
      ? (A extends { readonly member: true } ? MemberPrincipal : Principal) | null
      : A extends { readonly member: true } | { readonly permission: PermissionName }
        ? MemberPrincipal
        : Principal
    : null;

export interface Route<A extends Rule = Rule> {
  readonly method: Method;
  /** `/api/v1/accounts/:id` style; parameters are whole segments. */
  readonly path: string;
  /** Who may call it: a bearer token's rule, a page's rule, or PUBLIC. */
  readonly auth: A;
  /**
   * Whether a request body is read and parsed (JSON, url-encoded or multipart). 'raw': a JSON body is read but not
   * parsed here (req.rawBody only): the handler sends the bytes to the pool, which parses them off the event loop.
   */
  readonly body?: boolean | 'raw';
  /** Overrides the configured byte limit for this route's body. */
  readonly maxBodyBytes?: number;
  /**
   * The route takes files: its multipart body may reach MAX_MULTIPART_BYTES. Every other route's multipart body has
   * the JSON limit (MAX_BODY_BYTES), so an ordinary API route never buffers an upload-sized body.
   */
  readonly takesFiles?: boolean;
  // Method syntax: a route whose rule promises a member is still a Route (handlers are checked where written).
  handler(req: Request, who: PrincipalOf<A>): Reply | Promise<Reply>;
}

/** A route with its handler typed by its rule: `who` is a member's token, a token, a token or null, or null. */
export function route<const A extends Rule>(r: Route<A>): Route {
  return r as Route;
}

/**
 * Rails' `resources … :update`: one route answering PUT and PATCH alike, one handler, as Mastodon's routes do (an app
 * may send either: masto.js sends PUT, others PATCH).
 */
export function updateRoute<const A extends Rule>(r: Omit<Route<A>, 'method'>): Route[] {
  return (['PUT', 'PATCH'] as const).map((method) => ({ ...r, method }) as Route);
}

/** Authenticates a request against a bearer rule: the principal, or a thrown ApiError (401, 403, 422). */
export type Authenticate = (req: Request, rule: AuthRule) => Principal | Promise<Principal>;
