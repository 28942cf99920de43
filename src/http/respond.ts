// Reply constructors. Every JSON answer, an empty one included, has a JSON body and content type (masto.js
// throws on anything else).
import { TextPieces } from './text-pieces.js';
import type { HeaderValue, Reply } from './types.js';

type Headers = Readonly<Record<string, HeaderValue>>;

const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';

export function json(status: number, value: unknown, headers?: Headers): Reply {
  return { status, headers: headers ? { 'Content-Type': JSON_TYPE, ...headers } : JSON_HEADERS, body: JSON.stringify(value) };
}
const JSON_HEADERS: Headers = Object.freeze({ 'Content-Type': JSON_TYPE });

/** For hot routes whose body is computed once and reused. */
export function jsonText(status: number, text: string, headers?: Headers): Reply {
  return { status, headers: headers ? { 'Content-Type': JSON_TYPE, ...headers } : JSON_HEADERS, body: text };
}

/** A large JSON body given as the pieces it was written in (http/text-pieces.ts): never joined into one string. */
export function jsonPieces(status: number, parts: readonly string[], headers?: Headers): Reply {
  return { status, headers: headers ? { 'Content-Type': JSON_TYPE, ...headers } : JSON_HEADERS, body: new TextPieces(parts) };
}

/**
 * The pages' CSP; formActions adds sources a form's redirect may reach (Chromium checks redirects too). A page
 * showing post media adds `media` (audio and video from our proxy, and the origins a member let their browser fall
 * back to: img-src and media-src) and `script` (our own script only, web/media-fallback.ts).
 */
export function contentSecurityPolicy(formActions: readonly string[] = [], opts: { media?: readonly string[]; script?: boolean } = {}): string {
  const extra = (list: readonly string[]) => list.map((s) => ` ${s}`).join('');
  const media = opts.media ? `; media-src 'self'${extra(opts.media)}` : '';
  const script = opts.script ? "; script-src 'self'" : '';
  return `default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:${extra(opts.media ?? [])}${media}${script}; form-action 'self'${extra(formActions)}; frame-ancestors 'none'; base-uri 'none'`;
}

export const HTML_SECURITY_HEADERS: Headers = Object.freeze({
  'Content-Type': HTML_TYPE,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': contentSecurityPolicy(),
});

export function html(status: number, markup: string, headers?: Headers): Reply {
  return { status, headers: headers ? { ...HTML_SECURITY_HEADERS, ...headers } : HTML_SECURITY_HEADERS, body: markup };
}

export function redirect(location: string, headers?: Headers, status = 302): Reply {
  return { status, headers: { Location: location, 'Cache-Control': 'no-store', ...headers }, body: '' };
}
