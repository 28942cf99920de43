// GET routes other servers dereference: actor documents (by content negotiation; browsers get the profile page),
// the instance actor, and the outbox, followers, following, featured and featured-hashtag collections with their pages.
import type { Request } from '../http/request.js';
import { PUBLIC, type Reply, type Route } from '../http/types.js';
import { Errors } from '../errors.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { TagStore } from '../store/tags.js';
import { AS_CONTEXT } from './activities.js';
import type { LocalActors } from './local-actors.js';
import { stringifyWithRaw } from './raw-json.js';

const AP_TYPE = 'application/activity+json; charset=utf-8';
const COLLECTION_PAGE_SIZE = 12;
const MAX_PAGE = 10_000;

export interface ActorRoutesDeps {
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  /** The members' featured hashtags (the featuredTags collection). */
  readonly tags: TagStore;
  readonly actors: LocalActors;
  /** The HTML profile page for browsers; `tagged`: only the posts with that hashtag (/@name/tagged/tag). */
  readonly profilePage: (req: Request, account: Account, tagged?: string) => Promise<Reply>;
  /** The HTML page of a remote account, /@name@host (the handle after /@). */
  readonly remoteProfilePage?: (req: Request, handle: string) => Promise<Reply>;
}

/** Whether the client asked for ActivityStreams rather than a page. */
export function wantsActivityJson(req: Request): boolean {
  const accept = req.headers['accept'] ?? '';
  return accept.includes('application/activity+json') || accept.includes('application/ld+json');
}

export function activityJson(value: unknown, status = 200): Reply {
  return { status, headers: { 'Content-Type': AP_TYPE, Vary: 'Accept', 'Cache-Control': 'max-age=60' }, body: stringifyWithRaw(value) };
}

export function actorRoutes(d: ActorRoutesDeps): Route[] {
  const member = async (name: string): Promise<Account> => {
    const a = await d.accounts.byHandle(name, null);
    if (!a?.hasUser || a.instanceActor) throw Errors.notFound();
    return a;
  };
  const actorOrPage = async (req: Request): Promise<Reply> => {
    const name = req.params['name']!;
    // /@name@host: a remote account's page for browsers (its actor document lives on its own server).
    if (name.includes('@') && req.path.startsWith('/@')) {
      if (!d.remoteProfilePage || wantsActivityJson(req)) throw Errors.notFound();
      return d.remoteProfilePage(req, name);
    }
    const a = await member(name);
    if (!wantsActivityJson(req)) return d.profilePage(req, a);
    return activityJson(await d.actors.document(a));
  };
  const collection =
    (kind: 'followers' | 'following') =>
    async (req: Request): Promise<Reply> => {
      const a = await member(req.params['name']!);
      const id = kind === 'followers' ? d.actors.uris.followers(a.username) : d.actors.uris.following(a.username);
      const counts = await d.follows.counts(a.id);
      const total = kind === 'followers' ? counts.followers : counts.following;
      const page = pageNumber(req);
      if (page === undefined) {
        return activityJson({ '@context': AS_CONTEXT, id, type: 'OrderedCollection', totalItems: total, first: `${id}?page=1` });
      }
      const rows = await d.follows.collectionPage(kind, a.id, COLLECTION_PAGE_SIZE, (page - 1) * COLLECTION_PAGE_SIZE);
      const items = rows.map((r) => r.uri ?? d.actors.uris.actor(r.username));
      const doc: Record<string, unknown> = {
        '@context': AS_CONTEXT,
        id: `${id}?page=${page}`,
        type: 'OrderedCollectionPage',
        totalItems: total,
        partOf: id,
        orderedItems: items,
      };
      if (page * COLLECTION_PAGE_SIZE < total) doc['next'] = `${id}?page=${page + 1}`;
      if (page > 1) doc['prev'] = `${id}?page=${page - 1}`;
      return activityJson(doc);
    };
  // The instance actor posts nothing: its outbox is a real, empty collection (members' outboxes: note-routes.ts).
  const emptyOrdered = (id: string, req: Request): Reply =>
    pageNumber(req) === undefined
      ? activityJson({ '@context': AS_CONTEXT, id, type: 'OrderedCollection', totalItems: 0, first: `${id}?page=true`, last: `${id}?min_id=0&page=true` })
      : activityJson({ '@context': AS_CONTEXT, id: `${id}?page=true`, type: 'OrderedCollectionPage', partOf: id, orderedItems: [] });

  return [
    { method: 'GET', path: '/users/:name', auth: PUBLIC, handler: actorOrPage },
    { method: 'GET', path: '/@:name', auth: PUBLIC, handler: actorOrPage },
    {
      // A featured tag's `url` (Mastodon's profile filtered by tag): the member's page of their posts with the tag;
      // an ActivityPub client gets the actor, as at /@name.
      method: 'GET',
      path: '/@:name/tagged/:tag',
      auth: PUBLIC,
      handler: async (req) => {
        const tag = req.params['tag']!;
        const a = await member(req.params['name']!);
        if (wantsActivityJson(req)) return activityJson(await d.actors.document(a));
        return d.profilePage(req, a, tag);
      },
    },
    { method: 'GET', path: '/actor', auth: PUBLIC, handler: async () => activityJson(await d.actors.document(d.actors.instanceActor)) },
    { method: 'GET', path: '/actor/outbox', auth: PUBLIC, handler: (req) => emptyOrdered(`${d.actors.uris.instanceActor}/outbox`, req) },
    { method: 'GET', path: '/users/:name/followers', auth: PUBLIC, handler: collection('followers') },
    { method: 'GET', path: '/users/:name/following', auth: PUBLIC, handler: collection('following') },
    {
      method: 'GET',
      path: '/users/:name/collections/featured',
      auth: PUBLIC,
      handler: async (req) => {
        const id = d.actors.uris.featured((await member(req.params['name']!)).username);
        return activityJson({ '@context': AS_CONTEXT, id, type: 'OrderedCollection', totalItems: 0, orderedItems: [] });
      },
    },
    {
      // The member's featured hashtags as Mastodon's collections/tags: an unordered Collection of Hashtags, each
      // pointing at the member's posts with it (ActivityPub::HashtagSerializer on a FeaturedTag).
      method: 'GET',
      path: '/users/:name/collections/tags',
      auth: PUBLIC,
      handler: async (req) => {
        const a = await member(req.params['name']!);
        const items = (await d.tags.featured(a.id)).map((t) => ({ type: 'Hashtag', href: d.actors.uris.taggedBy(a.username, t.name), name: `#${t.name}` }));
        return activityJson({
          '@context': [AS_CONTEXT, { Hashtag: 'as:Hashtag' }],
          id: d.actors.uris.featuredTags(a.username),
          type: 'Collection',
          totalItems: items.length,
          items,
        });
      },
    },
  ];
}

/** `?page=N` (1-based) or `?page=true` (the first page); undefined for the collection itself. */
function pageNumber(req: Request): number | undefined {
  const raw = req.query['page'];
  if (raw === undefined) return undefined;
  if (raw === 'true') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw Errors.badRequest('page must be a positive integer');
  return n;
}
