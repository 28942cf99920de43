// A hashtag's URL (/tags/name, the `href` of every Hashtag we send and the `url` of Mastodon's Tag entity): for
// ActivityPub clients, as Mastodon serves it, an OrderedCollection of the ids of our recent public posts with the tag
// (20, older ones by max_id); for browsers, the tag's page (web/tag-page.ts).
import type { Request } from '../http/request.js';
import { PUBLIC, type Reply, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import type { TimelineStore } from '../store/timelines.js';
import type { LocalUris } from '../urls/local-uris.js';
import { AS_CONTEXT } from './activities.js';
import { activityJson, wantsActivityJson } from './actor-routes.js';

/** Mastodon's TagsController::LIMIT. */
const COLLECTION_SIZE = 20;
/** What a hashtag may be (as the tag timeline takes it); anything else names no tag and has no posts. */
export const TAG_NAME = /^[\p{L}\p{M}\p{N}_]{1,100}$/u;

export interface TagRouteDeps {
  readonly accounts: AccountStore;
  readonly timelines: TimelineStore;
  readonly uris: LocalUris;
  /** The tag's page for browsers. */
  readonly tagPage?: (req: Request, name: string) => Promise<Reply>;
}

export function tagPageRoutes(d: TagRouteDeps): Route[] {
  const collection = async (req: Request, name: string): Promise<Reply> => {
    const id = d.uris.tag(name);
    if (!TAG_NAME.test(name)) return activityJson({ '@context': AS_CONTEXT, id, type: 'OrderedCollection', totalItems: 0, orderedItems: [] });
    const max = req.query['max_id'];
    const page = { maxId: typeof max === 'string' && isId(max) ? max : undefined, limit: COLLECTION_SIZE };
    const [list, total] = await Promise.all([d.timelines.tagged(name, page, 'local'), d.timelines.countLocalTagged(name)]);
    const authors = new Map((await d.accounts.byIds([...new Set(list.map((s) => s.accountId))])).map((a) => [a.id, a]));
    const items = list.flatMap((s) => {
      const author = authors.get(s.accountId);
      return s.uri ? [s.uri] : author ? [d.uris.status(author.username, s.id)] : [];
    });
    return activityJson({ '@context': AS_CONTEXT, id, type: 'OrderedCollection', totalItems: total, orderedItems: items });
  };
  return [
    {
      method: 'GET',
      path: '/tags/:name',
      auth: PUBLIC,
      handler: (req) => {
        const name = req.params['name']!;
        return wantsActivityJson(req) || !d.tagPage ? collection(req, name) : d.tagPage(req, name);
      },
    },
  ];
}
