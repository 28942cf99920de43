// The parameter rules the adapter's site, people, community and search routes share (/api/v3, Lemmy's snake_case names): ids as JSON numbers or digit
// strings (query strings carry text), Lemmy's page and limit, its booleans, its enums. Malformed input is a 400 with
// a Lemmy-style code, never a 5xx.
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { LISTING_TYPES, POST_SORTS } from '../../store/link-pages.js';
import { PAGING } from './params.js';

// Ids, booleans, paging and offsets are the adapter's one set (params.ts).
export { lemmyBool, lemmyId, noNul, offsetOf } from './params.js';

/** Lemmy's page (1-based) and limit (at most 50). */
export const page = PAGING.page;
export const limit = PAGING.limit;

export const SORTS = POST_SORTS;
export const sortType = z.enum(SORTS).optional();
export const listingType = z.enum(LISTING_TYPES).optional();

/** How a person's or a search's posts and comments are ordered for a Lemmy sort (Hot and Active: newest first). */
export function itemOrder(sort: (typeof SORTS)[number] | undefined): 'new' | 'old' | 'top' | 'comments' {
  if (sort === 'Old') return 'old';
  if (sort?.startsWith('Top') || sort === 'Controversial') return 'top';
  if (sort === 'MostComments') return 'comments';
  return 'new';
}

/** Parses input with a schema, or throws Lemmy's 400 (`code`, default `invalid_query`). */
export function parse<S extends z.ZodTypeAny>(schema: S, input: unknown, code = 'invalid_query'): z.infer<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw Errors.lemmy(400, code);
  return r.data;
}
