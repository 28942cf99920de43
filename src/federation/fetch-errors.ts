/**
 * The typed failures of outbound HTTP. Callers decide by `kind` (give up, retry later, slow down, forget the
 * object); `reason` is a short machine code for logs and tests.
 */
export type FetchErrorKind = 'unsupported' | 'transient' | 'rate_limited' | 'not_found' | 'gone';

export type FetchErrorReason =
  | 'bad_url'
  | 'forbidden_address'
  | 'dns_failure'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'bad_redirect'
  | 'cross_origin_redirect'
  | 'bad_content_type'
  | 'invalid_json'
  | 'invalid_document'
  | 'http_status'
  | 'federation_policy'
  | 'network';

export class FetchError extends Error {
  constructor(
    readonly kind: FetchErrorKind,
    readonly reason: string,
    readonly url: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
    detail?: string,
  ) {
    super(`${reason}${status === undefined ? '' : ` ${status}`}: ${url}${detail ? ` (${detail})` : ''}`);
    this.name = 'FetchError';
  }
}

/** Transport-level reasons and the kind each one is. */
const KIND_OF: Readonly<Record<Exclude<FetchErrorReason, 'http_status'>, FetchErrorKind>> = {
  bad_url: 'unsupported',
  forbidden_address: 'unsupported',
  too_large: 'unsupported',
  too_many_redirects: 'unsupported',
  bad_redirect: 'unsupported',
  cross_origin_redirect: 'unsupported',
  bad_content_type: 'unsupported',
  federation_policy: 'unsupported',
  invalid_json: 'unsupported',
  invalid_document: 'unsupported',
  dns_failure: 'transient',
  timeout: 'transient',
  network: 'transient',
};

/** A FetchError for anything but an HTTP status, with its kind taken from the table above. */
export function fetchError(reason: Exclude<FetchErrorReason, 'http_status'>, url: string, detail?: string): FetchError {
  return new FetchError(KIND_OF[reason], reason, url, undefined, undefined, detail);
}

export const DEFAULT_RETRY_AFTER_MS = 60_000;
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * Retry-After as milliseconds from `now`: delta-seconds or an HTTP date. Absent or unreadable → 60 s; capped at a
 * day so a hostile peer cannot park our queue forever.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number {
  const v = value?.trim();
  if (!v) return DEFAULT_RETRY_AFTER_MS;
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    // An HTTP date always names a day or month; Date.parse alone would read '-5' as a year.
    const at = /[a-z]/i.test(v) ? Date.parse(v) : NaN;
    if (Number.isNaN(at)) return DEFAULT_RETRY_AFTER_MS;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/** The FetchError for a non-2xx answer to a document fetch. */
export function statusError(status: number, url: string, retryAfter?: string, now?: number): FetchError {
  if (status === 404) return new FetchError('not_found', 'http_status', url, status);
  if (status === 410) return new FetchError('gone', 'http_status', url, status);
  if (status === 429) return new FetchError('rate_limited', 'http_status', url, status, parseRetryAfter(retryAfter, now));
  if (status === 408 || status >= 500) return new FetchError('transient', 'http_status', url, status);
  return new FetchError('unsupported', 'http_status', url, status);
}
