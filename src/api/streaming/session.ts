// What WebSocket and SSE share: the token (Authorization, then `access_token`, then Sec-WebSocket-Protocol, as
// Mastodon's accountFromRequest reads them), the member it must belong to, and subscribing with the list check.
import { ApiError } from '../../errors.js';
import type { BearerAuth } from '../../http/auth.js';
import type { CachedToken } from '../../oauth/token-cache.js';
import type { StreamAudienceStore } from '../../store/stream-audience.js';
import { StreamError, subscriptionOf, type Subscription } from './channels.js';

const BEARER = /^bearer (\S+)$/i;

export interface TokenSources {
  readonly authorization?: string;
  readonly accessToken?: string;
  readonly protocol?: string;
}

/** The token a streaming request carries, if any. */
export function streamingToken(src: TokenSources): string | undefined {
  if (src.authorization) return BEARER.exec(src.authorization)?.[1] ?? '';
  return src.accessToken || src.protocol || undefined;
}

/**
 * The member's live token, or a StreamError 401 (Mastodon's streaming server answers every token problem so: none,
 * unknown, revoked, an application token without a member, a disabled member).
 */
export async function authenticateStream(bearer: BearerAuth, token: string | undefined): Promise<CachedToken> {
  if (token === undefined) throw new StreamError(401, 'Missing access token');
  let t: CachedToken;
  try {
    t = await bearer.authenticateToken(token, { scopes: [] });
  } catch (e) {
    if (e instanceof ApiError) throw new StreamError(401, 'Invalid access token');
    throw e;
  }
  // A member awaiting approval (signed up through an app) may not stream either, as the API refuses them.
  if (!t.record.user || t.record.user.disabled || t.record.user.suspended || !t.record.user.approved) throw new StreamError(401, 'Invalid access token');
  return t;
}

/** A subscription for this member, its list checked to be theirs. */
export async function subscribe(
  audience: StreamAudienceStore,
  accountId: string,
  scopes: readonly string[],
  stream: unknown,
  params: Record<string, unknown>,
): Promise<Subscription> {
  const sub = subscriptionOf(stream, params, scopes);
  if (sub.list !== undefined && !(await audience.listOwned(sub.list, accountId))) throw new StreamError(401, 'Not authorized to stream this list');
  return sub;
}
