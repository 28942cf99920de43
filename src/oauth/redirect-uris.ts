// Redirect URI rules at registration: HTTPS for web clients, a custom scheme for native clients, plain http only
// for loopback hosts (RFC 8252 §7.3), the out-of-band URI for manual flows; never a fragment or a script scheme.
// At authorization and exchange a URI must equal a registered one exactly (string equality: path, port, query).

export const OOB_URI = 'urn:ietf:wg:oauth:2.0:oob';
const MAX_LENGTH = 2000;
const MAX_URIS = 10;
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
// Schemes a browser would execute or load locally instead of handing to a native app.
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'filesystem']);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The problem with one URI, worded like Mastodon's validation messages, or undefined when it is acceptable. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri === OOB_URI) return undefined;
  if (uri.length > MAX_LENGTH) return `is too long (maximum is ${MAX_LENGTH} characters)`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\s\0-\x1f\x7f]/.test(uri)) return 'must be a valid URI.';
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (!scheme) return 'must be an absolute URI.';
  if (uri.includes('#')) return 'cannot contain a fragment.';
  if (FORBIDDEN_SCHEMES.has(scheme)) return 'is forbidden by the server.';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be a valid URI.';
  }
  if (scheme === 'https') return url.hostname ? undefined : 'must be an absolute URI.';
  if (scheme === 'http') {
    if (!url.hostname) return 'must be an absolute URI.';
    return LOOPBACK_HOSTS.has(url.hostname.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname) ? undefined : 'must be an HTTPS/SSL URI.';
  }
  return undefined; // a native app's private-use scheme (RFC 8252 §7.1)
}

/** Splits the registration value (newline-separated string or array) into URIs, or names the problem. */
export function parseRedirectUris(value: string | readonly string[]): { uris: string[] } | { problem: string } {
  const list = (typeof value === 'string' ? value.split(/\r?\n/) : [...value]).map((u) => u.trim()).filter((u) => u.length > 0);
  if (list.length === 0) return { problem: "Redirect URI can't be blank" };
  if (list.length > MAX_URIS) return { problem: `Redirect URI lists at most ${MAX_URIS} URIs` };
  for (const u of list) {
    const p = redirectUriProblem(u);
    if (p) return { problem: `Redirect URI ${p}` };
  }
  return { uris: [...new Set(list)] };
}

/**
 * The CSP form-action source that lets the authorization form's redirect reach this URI (Chromium applies
 * form-action to redirects after a form post). Undefined for the OOB URI, which never leaves the server.
 */
export function formActionSource(uri: string): string | undefined {
  if (uri === OOB_URI) return undefined;
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}
