// Validation of an authorization request (RFC 6749 §4.1.1 + PKCE), shared by the consent page and its form post,
// which re-checks everything rather than trusting hidden fields. Problems with the client or the redirect URI are
// shown on our own page and never redirected (that would make us an open redirector); the rest go back to the
// client as ?error=… with the state.
import { createHash } from 'node:crypto';
import type { AppStore, OAuthApp } from '../store/oauth-apps.js';
import { OOB_URI } from './redirect-uris.js';
import { coversAll, splitScopes, unknownScope } from './scopes.js';

export interface AuthorizationRequest {
  readonly app: OAuthApp;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly state: string | undefined;
  readonly codeChallenge: string | null;
}

export type Validation =
  | { readonly kind: 'ok'; readonly request: AuthorizationRequest }
  | { readonly kind: 'page'; readonly message: string }
  | { readonly kind: 'redirect'; readonly redirectUri: string; readonly state: string | undefined; readonly error: string; readonly description: string };

const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;
const MAX_STATE = 2000;

export const DESCRIPTIONS = {
  invalid_request: 'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  unsupported_response_type: 'The authorization server does not support this response type.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  access_denied: 'The resource owner or authorization server denied the request.',
  pkce_method: 'The code challenge method must be S256.',
  pkce_challenge: 'The code challenge must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_" and "~".',
} as const;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export async function validateAuthorization(params: Record<string, unknown>, apps: AppStore): Promise<Validation> {
  const clientId = str(params['client_id']);
  const app = clientId && clientId.length <= 200 ? await apps.byClientId(clientId) : undefined;
  if (!app) return { kind: 'page', message: 'The client is unknown: the application may have been deleted, or the link is wrong.' };
  const redirectUri = str(params['redirect_uri']);
  if (redirectUri === undefined || !app.redirectUris.includes(redirectUri)) {
    return { kind: 'page', message: 'The redirect URI included is not valid: it does not match any URI registered by this application.' };
  }
  const state = str(params['state']);
  if (state !== undefined && state.length > MAX_STATE) return { kind: 'page', message: 'The state parameter is too long.' };
  const fail = (error: keyof typeof DESCRIPTIONS, description: string = DESCRIPTIONS[error]): Validation => ({
    kind: 'redirect',
    redirectUri,
    state,
    error: error.startsWith('pkce') ? 'invalid_request' : error,
    description,
  });

  const responseType = str(params['response_type']);
  if (!responseType) return fail('invalid_request', 'Missing required parameter: response_type.');
  if (responseType !== 'code') return fail('unsupported_response_type');

  const rawScope = params['scope'];
  if (rawScope !== undefined && typeof rawScope !== 'string') return fail('invalid_scope');
  const scopes = splitScopes(rawScope ?? '');
  if (scopes.length === 0) scopes.push('read'); // omitted means read, which must itself be registered
  if (unknownScope(scopes) !== undefined || !coversAll(app.scopes, scopes)) return fail('invalid_scope');

  const challenge = params['code_challenge'];
  const method = params['code_challenge_method'];
  if (method !== undefined && method !== '' && challenge === undefined) return fail('invalid_request', 'Missing required parameter: code_challenge.');
  if (challenge !== undefined && challenge !== '') {
    if (method !== 'S256') return fail('pkce_method');
    if (typeof challenge !== 'string' || !PKCE_VALUE.test(challenge)) return fail('pkce_challenge');
  }
  return {
    kind: 'ok',
    request: { app, redirectUri, scopes, state, codeChallenge: typeof challenge === 'string' && challenge !== '' ? challenge : null },
  };
}

/** The client's redirect URI with our parameters appended, leaving its own query string byte-for-byte. */
export function callbackUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  let out = redirectUri;
  let sep = redirectUri.includes('?') ? '&' : '?';
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    out += `${sep}${k}=${encodeURIComponent(v)}`;
    sep = '&';
  }
  return out;
}

export function isOob(uri: string): boolean {
  return uri === OOB_URI;
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return PKCE_VALUE.test(verifier) && createHash('sha256').update(verifier).digest('base64url') === challenge;
}
