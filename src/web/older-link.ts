// The paging of the public pages' lists (a profile's posts, a tag's): newest first, 20 at a time, older ones by
// `max_id` (an "Older posts" link), any other cursor or limit ignored, a max_id that is no id the first page.
import { isId } from '../store/ids.js';
import type { PageQuery } from '../store/paging.js';
import type { Request } from '../http/request.js';

export const PAGE_POSTS = 20;

export function olderPage(req: Request): PageQuery {
  const max = req.query['max_id'];
  return { maxId: typeof max === 'string' && isId(max) ? max : undefined, sinceId: undefined, minId: undefined, limit: PAGE_POSTS };
}
