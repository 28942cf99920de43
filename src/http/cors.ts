// CORS for the paths browsers' client apps call cross-origin. Tokens travel in headers, never cookies, so any
// origin may call; credentials are not allowed.

const PREFIXES = ['/api/', '/oauth/token', '/oauth/revoke', '/oauth/userinfo', '/.well-known/', '/nodeinfo/'];

export function corsApplies(path: string): boolean {
  for (const p of PREFIXES) if (path.startsWith(p)) return true;
  return false;
}

export const CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Link, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
});

/** The preflight's own headers; server.ts adds CORS_HEADERS to every reply on a CORS path (once: "*, *" is refused). */
export function preflightHeaders(allowed: readonly string[], requestedHeaders: string | undefined): Record<string, string> {
  return {
    'Access-Control-Allow-Methods': allowed.join(', '),
    'Access-Control-Allow-Headers':
      requestedHeaders && /^[\w-]+(\s*,\s*[\w-]+)*$/.test(requestedHeaders) ? requestedHeaders : 'Authorization, Content-Type, Idempotency-Key',
    'Access-Control-Max-Age': '86400',
  };
}
