// Parameter rules the /api/v3 routes share: Lemmy's numbers and booleans as lemmy-js-client sends them (JSON values
// in bodies, their text in query strings), its paging, who is calling, and malformed input as Lemmy's 400 codes.
import { z } from 'zod';
import { Errors } from '../../errors.js';
import type { MemberPrincipal } from '../../http/types.js';
import type { LinkRowStore } from '../../store/link-rows.js';

/** A whole number: a JSON number, or its digits in a query string. */
export function lemmyInt(min: number, max: number) {
  return z.preprocess((v) => (typeof v === 'string' && /^-?\d{1,15}$/.test(v) ? Number(v) : v), z.number().int().min(min).max(max));
}

/**
 * A Lemmy id (a positive safe integer). The lemmy_* ids are PostgreSQL integers: a larger one is capped at the
 * largest, so that it finds nothing (Lemmy's 404 couldnt_find_*) rather than failing the cast.
 */
export const lemmyId = lemmyInt(1, Number.MAX_SAFE_INTEGER).transform((n) => Math.min(n, 2 ** 31 - 1));

/** Text PostgreSQL can store: no NUL character. */
export const noNul = (s: string): boolean => !s.includes('\u0000');

/** true/false: a JSON boolean, or its word in a query string. */
export const lemmyBool = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

/** Lemmy's page and limit (limit_and_offset: page from 1, limit 1 to 50, default 10). */
export const PAGING = {
  page: lemmyInt(1, 1_000_000).optional(),
  limit: lemmyInt(1, 50).optional(),
};
export const DEFAULT_LIMIT = 10;

export function offsetOf(page: number | undefined, limit: number): number {
  return ((page ?? 1) - 1) * limit;
}

/** Parses a query string or body by `schema`; anything malformed is Lemmy's 400 with `code`. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, code: 'invalid_query' | 'invalid_body_field'): z.output<S> {
  const p = schema.safeParse(input);
  if (!p.success) throw Errors.lemmy(400, code);
  return p.data;
}

/** A write's caller: Lemmy answers a request without a token with 401 not_logged_in. */
export function signedIn(who: MemberPrincipal | null): MemberPrincipal {
  if (who === null) throw Errors.lemmy(401, 'not_logged_in');
  return who;
}

/** A read open to anyone (Lemmy lets anonymous clients browse); a token that is sent must hold `read`. */
export const READ = { scopes: ['read'], optional: true } as const;

/**
 * A member's write. `optional` so a request without a token reaches the handler, which answers Lemmy's
 * not_logged_in (signedIn) rather than the Mastodon API's 401 text; a token that is sent is still checked.
 */
export const WRITE = { scopes: ['write'], member: true, optional: true } as const;

/** Text PostgreSQL can store: no NUL (which no client sends on purpose), at most `max` characters. */
export function lemmyText(max: number) {
  return z
    .string()
    .max(max)
    .refine((s) => !s.includes('\u0000'));
}

/** `name@host` or `name` (Lemmy's community_name). */
export function splitCommunityName(v: string): { name: string; host: string | null } {
  const at = v.indexOf('@');
  return at < 0 ? { name: v, host: null } : { name: v.slice(0, at), host: v.slice(at + 1) };
}

/**
 * The community a listing names: community_id, else community_name (`name@host`, or a name alone); neither: null.
 * One that is not known here is Lemmy's 404 couldnt_find_community.
 */
export async function namedCommunity(
  rows: Pick<LinkRowStore, 'communityNamed' | 'communities'>,
  q: { community_id?: number | undefined; community_name?: string | undefined },
): Promise<number | null> {
  if (q.community_id !== undefined) {
    if ((await rows.communities([q.community_id], null)).length === 0) throw Errors.lemmy(404, 'couldnt_find_community');
    return q.community_id;
  }
  if (q.community_name === undefined) return null;
  const { name, host } = splitCommunityName(q.community_name);
  const id = await rows.communityNamed(name, host);
  if (id === undefined) throw Errors.lemmy(404, 'couldnt_find_community');
  return id;
}
