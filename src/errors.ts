// One catalogue of errors a client can cause or meet, and the one place they become HTTP.
// Route code throws these; http/server.ts calls toHttpError for anything thrown.
import { MailboxFullError } from '../actors/actor.js';
import { PoolBusyError } from '../actors/worker-pool.js';
import { PasswordBusyError } from './auth/password.js';

/** Mastodon's ValidationErrorFormatter `details`: per attribute, each broken rule's ERR_ code and description. */
export type ErrorDetails = Readonly<Record<string, readonly { readonly error: string; readonly description: string }[]>>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description?: string,
    readonly headers?: Readonly<Record<string, string>>,
    readonly details?: ErrorDetails,
  ) {
    super(description ? `${error}: ${description}` : error);
    this.name = 'ApiError';
  }
}

/** RFC 6749 §5.2 errors: always carry error_description and are never cached. */
export class OAuthError extends ApiError {
  constructor(status: number, error: string, description: string) {
    super(status, error, description, { 'Cache-Control': 'no-store' });
    this.name = 'OAuthError';
  }
}

export const Errors = {
  notFound: () => new ApiError(404, 'Record not found'),
  routeNotFound: () => new ApiError(404, 'Not found'),
  methodNotAllowed: (allowed: readonly string[]) => new ApiError(405, 'Method not allowed', undefined, { Allow: allowed.join(', ') }),
  badRequest: (message: string) => new ApiError(400, message),
  malformedBody: (what: string) => new ApiError(400, `Malformed ${what} body`),
  validation: (message: string) => new ApiError(422, `Validation failed: ${message}`),
  /** A record Mastodon validates field by field (sign-up): the sentence, and the details clients show per field. */
  invalidRecord: (message: string, details: ErrorDetails) => new ApiError(422, `Validation failed: ${message}`, undefined, undefined, details),
  unprocessable: (message: string, description?: string) => new ApiError(422, message, description),
  bodyTooLarge: (limit: number) => new ApiError(413, 'Request entity too large', `The body is limited to ${limit} bytes`),
  unsupportedMediaType: (type: string) => new ApiError(415, 'Unsupported media type', `Content-Type ${type || '(none)'} is not accepted here`),
  unauthorized: (message = 'The access token is invalid') => new ApiError(401, message),
  forbidden: (message = 'This action is not allowed') => new ApiError(403, message),
  /** A page for members, asked for by a visitor: sent to sign in, and back to `returnTo` after (a redirect). */
  signInFirst: (returnTo: string) =>
    new ApiError(302, 'Sign in first', undefined, { Location: `/auth/sign_in?return_to=${encodeURIComponent(returnTo)}`, 'Cache-Control': 'no-store' }),
  tooManyRequests: (retryAfterSeconds: number, message = 'Too many requests') =>
    new ApiError(429, message, undefined, { 'Retry-After': String(retryAfterSeconds) }),
  busy: (retryAfterSeconds: number, what = 'The server is busy') => new ApiError(503, what, 'Try again later', { 'Retry-After': String(retryAfterSeconds) }),
  unavailable: (message: string) => new ApiError(503, message),
  notImplemented: (method: string) => new ApiError(501, 'Not implemented', `The method ${method} is not implemented by this server`),
  /** The link-aggregator adapter's errors (/api/v3): Lemmy's snake_case codes (couldnt_find_post, not_logged_in …). */
  lemmy: (status: 400 | 401 | 403 | 404 | 429, code: string) => new ApiError(status, code),
  headersTooLarge: (fieldBytes: number, totalBytes: number) =>
    new ApiError(431, 'Request header fields too large', `A header may hold ${fieldBytes} bytes, all of them ${totalBytes}`),
} as const;

export interface HttpError {
  status: number;
  body: { error: string; error_description?: string; details?: ErrorDetails };
  headers: Readonly<Record<string, string>>;
  /** True when the server, not the client, is at fault: logged at error level with the cause. */
  internal: boolean;
}

/** PostgreSQL SQLSTATE class 22 (data exception): a value from the request that the column cannot hold. */
function isClientDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('22') && code.length === 5;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export function toHttpError(err: unknown): HttpError {
  if (err instanceof PoolBusyError) err = Errors.busy(err.retryAfterSeconds);
  else if (isClientDataError(err)) err = Errors.unprocessable('Validation failed: the request contains characters or values that cannot be stored');
  else if (err instanceof MailboxFullError || err instanceof PasswordBusyError) err = Errors.busy(1);
  if (err instanceof ApiError) {
    const body: HttpError['body'] = { error: err.error };
    if (err.description !== undefined) body.error_description = err.description;
    if (err.details !== undefined) body.details = err.details;
    return { status: err.status, body, headers: err.headers ?? NO_HEADERS, internal: false };
  }
  return { status: 500, body: { error: 'Internal server error' }, headers: NO_HEADERS, internal: true };
}
