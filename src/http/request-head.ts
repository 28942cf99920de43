// A request's head copied out of uWS (its HttpRequest is valid only until the handler returns), with what the front
// end refuses before routing: a repeated header that must come once, a method we do not implement, a header block
// over nginx's bounds, a Content-Length that is not a length.
import { Errors } from '../errors.js';
import type { HttpRequest } from './uws.js';

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

export interface RequestHead {
  readonly method: string;
  readonly path: string;
  readonly rawQuery: string;
  /** Lower-case names; a repeated header keeps its last value (and, for SINGLE_HEADERS, refuses the request). */
  readonly headers: Record<string, string>;
  /** The declared Content-Length (NaN: not a length), or null when there is none. */
  readonly declared: number | null;
  /** A Content-Length over 0 or any Transfer-Encoding. */
  readonly hasBody: boolean;
  /** Why the request is refused before routing, if it is. */
  readonly refusal: HeadRefusal | null;
}

export interface HeadRefusal {
  readonly error: unknown;
  /** The connection closes after the answer (where this request ends is uncertain, or its body is unread). */
  readonly close: boolean;
  /**
   * The answer waits for the next turn: uWS drops a connection whose next request arrives while a response is
   * pending, so a request smuggled into the same packet is never answered.
   */
  readonly deferred: boolean;
}

export function readHead(ureq: HttpRequest): RequestHead {
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
  const lengthHeader = headers['content-length'];
  const declared = lengthHeader === undefined ? null : /^\d{1,15}$/.test(lengthHeader) ? Number(lengthHeader) : Number.NaN;
  const hasBody = (declared !== null && declared > 0) || headers['transfer-encoding'] !== undefined;
  let refusal: HeadRefusal | null = null;
  if (duplicate !== undefined) {
    refusal = { error: Errors.badRequest(`Duplicate ${duplicate} header`), close: true, deferred: true };
  } else if (!IMPLEMENTED_METHODS.has(method)) {
    refusal = { error: Errors.notImplemented(method), close: true, deferred: false };
  } else if (oversizedField || headerBytes > MAX_HEADER_BYTES) {
    refusal = { error: Errors.headersTooLarge(MAX_HEADER_FIELD_BYTES, MAX_HEADER_BYTES), close: true, deferred: false };
  }
  return { method, path, rawQuery, headers, declared, hasBody, refusal };
}

/** A declared Content-Length that is no length at all (uWS passes only digits, so: too many of them). */
export function invalidLength(head: RequestHead): boolean {
  return head.declared !== null && !(Number.isSafeInteger(head.declared) && head.declared >= 0);
}
