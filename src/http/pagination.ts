// Mastodon-style pagination: max_id / since_id / min_id cursors and limit from the query, and the Link header
// (absolute URLs; none on an empty page, so clients following rel="next" stop).
import { Errors } from '../errors.js';
import type { Params } from './params.js';
import type { PageQuery } from '../store/paging.js';
import { isId } from '../store/ids.js';

export type { PageQuery } from '../store/paging.js';

function cursor(v: unknown): string | undefined {
  return typeof v === 'string' && isId(v) ? v : undefined;
}

export function pageQuery(q: Params, defaultLimit: number, maxLimit: number): PageQuery {
  let limit = defaultLimit;
  const raw = q['limit'];
  if (typeof raw === 'string' && raw !== '') {
    const n = Number(raw);
    if (!Number.isInteger(n)) throw Errors.badRequest('limit must be an integer');
    if (n < 0) throw Errors.badRequest('Pagination values for `offset` and `limit` must be positive');
    limit = Math.min(Math.max(n, 1), maxLimit);
  }
  return { maxId: cursor(q['max_id']), sinceId: cursor(q['since_id']), minId: cursor(q['min_id']), limit };
}

/**
 * Link header for a page whose items are ordered newest first, keyed by `cursors` (the hidden row ids for follows).
 * next → older (max_id = last), prev → newer (since_id = first, as Mastodon does for lists keyed by hidden ids).
 */
export function linkHeader(url: string, page: PageQuery, cursors: readonly string[]): Record<string, string> | undefined {
  if (cursors.length === 0) return undefined;
  const limit = `limit=${page.limit}`;
  const next = `<${url}?${limit}&max_id=${cursors[cursors.length - 1]}>; rel="next"`;
  const prev = `<${url}?${limit}&since_id=${cursors[0]}>; rel="prev"`;
  return { Link: `${next}, ${prev}` };
}

/** Request parameters a Link header carries over: arrays as Rails writes them, `name[]=a&name[]=b`. */
export type Keep = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Link header for timelines (statuses keyed by their own ids; also favourites and bookmarks, keyed by their hidden
 * row ids): next → max_id = last, prev → min_id = first, with the request's other parameters (local, only_media …)
 * carried over.
 */
export function timelineLinks(url: string, page: PageQuery, ids: readonly string[], keep: Keep = {}): Record<string, string> | undefined {
  if (ids.length === 0) return undefined;
  let base = `${url}?limit=${page.limit}`;
  for (const [k, v] of Object.entries(keep)) {
    if (typeof v === 'string') base += `&${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
    else if (v) for (const one of v) base += `&${encodeURIComponent(k)}[]=${encodeURIComponent(one)}`;
  }
  return { Link: `<${base}&max_id=${ids[ids.length - 1]}>; rel="next", <${base}&min_id=${ids[0]}>; rel="prev"` };
}

/** A page of a ranked list (trends): limit and offset, as Mastodon's limit_param and offset_param read them. */
export function offsetQuery(q: Params, defaultLimit: number, maxLimit: number): { limit: number; offset: number } {
  const { limit } = pageQuery(q, defaultLimit, maxLimit);
  const raw = q['offset'];
  let offset = 0;
  if (typeof raw === 'string' && raw !== '') {
    const n = Number(raw);
    if (!Number.isInteger(n)) throw Errors.badRequest('offset must be an integer');
    if (n < 0) throw Errors.badRequest('Pagination values for `offset` and `limit` must be positive');
    offset = n;
  }
  return { limit, offset };
}

/** Link header for a ranked list: next while a page comes back full, prev past the first page (Mastodon's). */
export function offsetLinks(url: string, page: { limit: number; offset: number }, count: number): Record<string, string> | undefined {
  const links: string[] = [];
  if (count === page.limit) links.push(`<${url}?limit=${page.limit}&offset=${page.offset + page.limit}>; rel="next"`);
  if (page.offset > 0) links.push(`<${url}?limit=${page.limit}&offset=${Math.max(0, page.offset - page.limit)}>; rel="prev"`);
  return links.length ? { Link: links.join(', ') } : undefined;
}
