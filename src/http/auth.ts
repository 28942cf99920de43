// Bearer authentication, called by the front end for every route that declares an AuthRule, in Mastodon's order:
// no or bad token → 401, scopes → 403, app token on a member route → 422, a member pending approval, disabled or
// suspended → 403, a role without the route's permission → 403. A cached token answers synchronously (no promise on
// the hot path); a miss reads the database once and caches the result. A member pending approval holds a token only
// from signing up through an app (POST /api/v1/accounts), refused as Mastodon refuses it until approval, which
// notifies the caches (rejecting a sign-up deletes it and its tokens).
import type { Clock } from '../clock.js';
import { ApiError, Errors } from '../errors.js';
import type { Request } from './request.js';
import type { AuthRule } from './types.js';
import type { TokenStore } from '../store/oauth-tokens.js';
import { coversAny } from '../oauth/scopes.js';
import { hasPermission } from '../auth/permissions.js';
import { hashSecret } from '../auth/secrets.js';
import type { CachedToken, TokenCache } from '../oauth/token-cache.js';
import type { TokenUsage } from '../oauth/token-usage.js';

export const MEMBER_ONLY = 'This method requires an authenticated user';
const OUTSIDE_SCOPES = 'This action is outside the authorized scopes';
const INVALID_TOKEN = 'The access token is invalid';

// RFC 6750 §3 challenges, as Doorkeeper sends them: OAuth client libraries read these to tell "sign in again"
// (invalid_token) from "ask for more scopes" (insufficient_scope).
const invalidToken = () =>
  new ApiError(401, INVALID_TOKEN, undefined, { 'WWW-Authenticate': `Bearer realm="Stoa", error="invalid_token", error_description="${INVALID_TOKEN}"` });
const insufficientScope = () =>
  new ApiError(403, OUTSIDE_SCOPES, undefined, {
    'WWW-Authenticate': `Bearer realm="Stoa", error="insufficient_scope", error_description="${OUTSIDE_SCOPES}"`,
  });
// Exactly `Bearer <token>`: one space, then visible ASCII to the end (uWS has already dropped trailing whitespace).
const BEARER = /^bearer ([\x21-\x7e]{1,512})$/i;

/** The token of an `Authorization: Bearer …` header (scheme case-insensitive), or undefined. */
function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

export class BearerAuth {
  constructor(
    private readonly tokens: TokenStore,
    private readonly cache: TokenCache,
    private readonly usage: TokenUsage,
    private readonly clock: Clock,
  ) {}

  /** The token's cache entry when it satisfies the requirement; throws the API error otherwise. */
  authenticate(req: Request, need: AuthRule): CachedToken | Promise<CachedToken> {
    return this.authenticateToken(bearerToken(req.headers['authorization']), need);
  }

  /** The same check for a token taken from elsewhere (streaming also reads it from the query or the WebSocket protocol). */
  authenticateToken(token: string | undefined, need: AuthRule): CachedToken | Promise<CachedToken> {
    // The cache is keyed by the token itself (memory only; the database holds hashes), so a hit costs no hashing.
    if (token === undefined || !/^[\x21-\x7e]{1,512}$/.test(token)) throw invalidToken();
    const now = this.clock.now();
    const hit = this.cache.get(token, now);
    if (hit) return this.admit(hit, need, now);
    if (this.cache.knownInvalid(token, now)) throw invalidToken();
    const generation = this.cache.generation;
    return this.tokens.lookup(hashSecret(token)).then((record) => {
      if (!record) {
        this.cache.rememberInvalid(token, now);
        throw invalidToken();
      }
      return this.admit(this.cache.put(token, record, generation, now), need, now);
    });
  }

  private admit(t: CachedToken, need: AuthRule, now: number): CachedToken {
    const r = t.record;
    if (need.scopes.length > 0 && !coversAny(r.scopes, need.scopes)) throw insufficientScope();
    if (need.member || need.permission) {
      if (!r.user) throw new ApiError(422, MEMBER_ONLY);
      if (!r.user.approved) throw Errors.forbidden('Your login is currently pending approval');
      if (r.user.disabled || r.user.suspended) throw Errors.forbidden('Your login is currently disabled');
      if (need.permission && !hasPermission(r.user.permissions, need.permission)) throw Errors.forbidden();
    }
    this.usage.note(t, now);
    return t;
  }
}
