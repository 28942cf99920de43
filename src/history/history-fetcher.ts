// One remote-history document GET: signed as the instance actor, AS2 asked for and checked, 2 MiB decompressed at
// most, redirects only within the origin, the answer's `id` on the origin asked (P27–P35). A failure becomes the
// job's outcome (contract 3) carried by a HistoryFailure; the runner decides whether it ends the job or skips an item.
import { FetchError } from '../federation/fetch-errors.js';
import { ACTIVITY_ACCEPT, type HttpClient, type HttpResponse, type Signer } from '../federation/http-client.js';
import { isRecord } from '../federation/as2.js';
import { HISTORY_LIMITS, type BackoffReason, type JobOutcome, type UnsupportedReason } from '../store/history-types.js';

/** One fetch never takes longer than this, so a slow page leaves time for the rest of the job (Mastodon: 10 s). */
export const FETCH_MS = 10_000;
const AS2_TYPES = new Set(['application/activity+json', 'application/ld+json', 'application/json']);
/** The first backoff when the origin names no time (doubling with the attempts). */
const MIN_BACKOFF_MS = 60_000;
/** The least wait an origin's own Retry-After or rate-limit reset gets: `Retry-After: 0` must not hammer it. */
const MIN_NAMED_MS = 5_000;
/** Origins remembered as verifying `(request-target)` without the query string (bounded; the oldest forgotten). */
const MAX_PATH_ONLY_ORIGINS = 1000;
const MAX_BACKOFF_MS = 24 * 3_600_000;

/** Why a document could not be used, as the job's outcome if it ends the job. */
export class HistoryFailure extends Error {
  constructor(
    readonly outcome: Exclude<JobOutcome, { kind: 'partial' | 'complete' | 'lease_lost' }>,
    readonly url: string,
    detail: string,
    /** The HTTP status that caused it, when one did. */
    readonly status: number | null = null,
  ) {
    super(`${detail}: ${url}`);
    this.name = 'HistoryFailure';
  }
}

/** The job's own time ran out (or it was stopped) before a fetch: not the origin's fault, the job is partial. */
export class OutOfTime extends Error {
  constructor(url: string) {
    super(`no time left for ${url}`);
    this.name = 'OutOfTime';
  }
}

export interface FetchedDocument {
  readonly doc: Record<string, unknown>;
  /** The URL that answered (after same-origin redirects). */
  readonly url: string;
}

export interface FetchContext {
  /** When the job must stop (epoch ms). */
  readonly deadline: number;
  /** The job's failed attempts so far (exponential backoff when the origin names no time). */
  readonly attempts: number;
  readonly signal: AbortSignal;
}

export class HistoryFetcher {
  /** P27: origins that refused our `(request-target)` with the query string and took it without. */
  private readonly pathOnly = new Set<string>();

  constructor(
    private readonly http: HttpClient,
    private readonly signer: Signer,
    /** One fetch's time at most (FETCH_MS; tests shorten it). */
    private readonly fetchMs: number = FETCH_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async get(url: string, ctx: FetchContext): Promise<FetchedDocument> {
    const { origin, hasQuery } = parts(url);
    const pathOnly = hasQuery && this.pathOnly.has(origin);
    let res = await this.send(url, ctx, pathOnly);
    // P27: a 401 may be the signature's form, not a refusal: servers differ on whether `(request-target)` holds the
    // query string (Mastodon's old default did not; GoToSocial tries both). Retried once with the other form.
    if (res.status === 401 && hasQuery) {
      res = await this.send(url, ctx, !pathOnly);
      if (res.status !== 401) this.remember(origin, !pathOnly);
    }
    if (res.status < 200 || res.status > 299) throw this.statusFailure(res, ctx.attempts);
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!AS2_TYPES.has(type)) throw unsupported('not_a_collection', res.url, `content type ${type || 'none'}`);
    let doc: unknown;
    try {
      doc = JSON.parse(res.body.toString('utf8').replace(/^\uFEFF/, ''));
    } catch {
      throw unsupported('not_a_collection', res.url, 'invalid JSON');
    }
    if (!isRecord(doc)) throw unsupported('not_a_collection', res.url, 'not an object');
    // P31: a document may only speak for its own origin (a page without id is keyed by the URL asked).
    if (typeof doc['id'] === 'string' && !sameOriginAs(doc['id'], url)) throw unsupported('cross_origin', res.url, `id ${doc['id'].slice(0, 200)}`);
    return { doc, url: res.url };
  }

  /** One signed GET (`pathOnly`: the query string left out of the signed `(request-target)`). */
  private async send(url: string, ctx: FetchContext, pathOnly: boolean): Promise<HttpResponse> {
    const remaining = ctx.deadline - this.now();
    if (remaining <= 0 || ctx.signal.aborted) throw new OutOfTime(url);
    try {
      return await this.http.request({
        method: 'GET',
        url,
        headers: { accept: ACTIVITY_ACCEPT },
        sign: pathOnly ? withoutQuery(this.signer) : this.signer,
        timeoutMs: Math.min(remaining, this.fetchMs),
        maxBytes: HISTORY_LIMITS.responseBytes,
        sameOrigin: true,
      });
    } catch (e) {
      // Cut by the job's end rather than by the fetch's own limit: the job's time is used up, the origin is not slow.
      if (e instanceof FetchError && e.reason === 'timeout' && remaining < this.fetchMs) throw new OutOfTime(url);
      throw this.transportFailure(e, url, ctx.attempts);
    }
  }

  private remember(origin: string, pathOnly: boolean): void {
    this.pathOnly.delete(origin);
    if (!pathOnly) return;
    this.pathOnly.add(origin);
    if (this.pathOnly.size > MAX_PATH_ONLY_ORIGINS) this.pathOnly.delete(this.pathOnly.values().next().value!);
  }

  private statusFailure(res: HttpResponse, attempts: number): HistoryFailure {
    const s = res.status;
    // P28: a server that blocks us says so for good (Akkoma's :forbidden), not for a retry loop.
    if (s === 401 || s === 403) return unsupported('forbidden', res.url, `HTTP ${s}`, s);
    if (s === 404) return unsupported('not_found', res.url, 'HTTP 404', s);
    if (s === 410) return unsupported('gone', res.url, 'HTTP 410', s);
    const at = (reason: BackoffReason, originWide: boolean) =>
      new HistoryFailure(backoff(reason, retryAtFrom(res.headers, attempts, this.now()), originWide), res.url, `HTTP ${s}`, s);
    if (s === 429) return at('rate_limited', true);
    if (s === 503) return at('server_error', true);
    if (s >= 500 || s === 408) return at('server_error', false);
    return unsupported('not_found', res.url, `HTTP ${s}`, s);
  }

  private transportFailure(e: unknown, url: string, attempts: number): HistoryFailure {
    if (!(e instanceof FetchError)) return new HistoryFailure(backoff('transport', exponential(attempts, this.now()), false), url, String(e));
    const later = (reason: BackoffReason) => new HistoryFailure(backoff(reason, exponential(attempts, this.now()), false), e.url, e.message);
    switch (e.reason) {
      case 'timeout':
        return later('timeout');
      case 'network':
      case 'dns_failure':
        return later('transport');
      case 'too_large':
        return unsupported('too_large', e.url, e.message);
      case 'cross_origin_redirect':
        return unsupported('cross_origin', e.url, e.message);
      case 'forbidden_address':
      case 'bad_url':
      case 'federation_policy': // a suspended domain
        // P33: the SSRF guard refused the address (loopback, private, …) or the URL before any connection: our own
        // federation policy forbids asking there, as it forbids a deleted actor's origin.
        return unsupported('federation_policy', e.url, e.message);
      default:
        return unsupported('not_found', e.url, e.message); // too many or bad redirects
    }
  }
}

function unsupported(reason: UnsupportedReason, url: string, detail: string, status: number | null = null): HistoryFailure {
  return new HistoryFailure({ kind: 'unsupported', reason }, url, detail, status);
}

/** The signer, given the URL without its query string: the `(request-target)` form some servers verify. */
function withoutQuery(signer: Signer): Signer {
  return (req) => {
    const url = new URL(req.url.href);
    url.search = '';
    return signer({ ...req, url });
  };
}

function parts(url: string): { origin: string; hasQuery: boolean } {
  try {
    const u = new URL(url);
    return { origin: u.origin, hasQuery: u.search !== '' };
  } catch {
    return { origin: url, hasQuery: false };
  }
}

function backoff(reason: BackoffReason, retryAt: number, originWide: boolean): JobOutcome & { kind: 'backoff' } {
  return { kind: 'backoff', reason, retryAt: new Date(retryAt), originWide };
}

export function sameOriginAs(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * When to try again (P34): Retry-After (delta-seconds or an HTTP date), else X-RateLimit-Reset (ISO 8601, Mastodon and
 * GoToSocial), honoured as named (the origin's own word on when it serves again) within 5 s … 24 hours from now (a
 * past date counts as now + 5 s); else exponential from the attempts with jitter, 1 minute … 24 hours.
 */
export function retryAtFrom(headers: Record<string, string>, attempts: number, now: number): number {
  const named = retryAfter(headers['retry-after'], now) ?? rateLimitReset(headers['x-ratelimit-reset'], now);
  if (named === null) return exponential(attempts, now);
  return now + clamp(named - now, MIN_NAMED_MS);
}

function retryAfter(value: string | undefined, now: number): number | null {
  const v = value?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return now + Number(v) * 1000;
  const at = /[a-z]/i.test(v) ? Date.parse(v) : Number.NaN; // an HTTP date names a day or a month
  return Number.isNaN(at) ? null : at;
}

function rateLimitReset(value: string | undefined, now: number): number | null {
  const v = value?.trim();
  if (!v) return null;
  if (/^\d{4}-\d{2}-\d{2}T/.test(v)) {
    const at = Date.parse(v);
    return Number.isNaN(at) ? null : at;
  }
  return /^\d+$/.test(v) ? now + Number(v) * 1000 : null; // some servers send seconds until the reset
}

/** 1, 2, 4 … minutes from the attempts, ±20 % jitter so jobs of one origin do not return together. */
export function exponential(attempts: number, now: number): number {
  const base = MIN_BACKOFF_MS * 2 ** Math.min(Math.max(attempts, 0), 20);
  return now + clamp(base * (0.8 + Math.random() * 0.4));
}

function clamp(ms: number, floor = MIN_BACKOFF_MS): number {
  return Math.min(MAX_BACKOFF_MS, Math.max(floor, ms));
}
