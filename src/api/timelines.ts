// Timelines: home (the member's own statuses, those of accounts they follow, and direct mentions), public (local,
// remote), a hashtag's, and an account's statuses. Link-header pagination with absolute URLs; none on an empty page.
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { json, jsonPieces } from '../http/respond.js';
import { pageQuery, timelineLinks, type Keep } from '../http/pagination.js';
import { route, type Route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { StatusStore } from '../store/statuses.js';
import type { RefPage } from '../store/ref-pages.js';
import type { TimelineStore } from '../store/timelines.js';
import type { FilterContext } from '../store/filters.js';
import { flag } from './params.js';
import type { StatusViews } from '../views/status-views.js';
import type { AccountCache } from '../views/account-cache.js';
import { isId } from '../store/ids.js';
import { pushStatusesJson } from '../views/status-json.js';
import { viewerOf } from './callers.js';

const TAG = /^[\p{L}\p{M}\p{N}_]{1,100}$/u;

export interface TimelineDeps {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  /** Accounts' rows as this node holds them rendered (dropped on every change, account-cache.ts). */
  readonly accountCache: AccountCache;
  readonly statuses: StatusStore;
  /** Pages named by refs: the rendered-status cache answers for their rows (status-views.ts inContextRefs). */
  readonly timelines: TimelineStore<RefPage>;
  readonly views: StatusViews;
  /** A member viewed the first page of a remote account's statuses (remote history's trigger; never throws). */
  readonly profileViewed?: (a: Account) => Promise<void>;
}

/** Mastodon's paging cursors: a request carrying any of them is not the first page. */
const CURSORS = ['max_id', 'since_id', 'min_id'] as const;

type Scope = 'all' | 'local' | 'remote';

export function timelineRoutes(d: TimelineDeps): Route[] {
  // Links come from the page as read: statuses the viewer's filters hide do not shorten the walk.
  const reply = async (req: Request, list: RefPage, viewerId: string | null, context: FilterContext, keep: Keep = {}) => {
    const page = pageQuery(req.query, 20, 40);
    const links = timelineLinks(
      d.baseUrl + req.path,
      page,
      list.refs.map((s) => s.id),
      keep,
    );
    return jsonPieces(200, pushStatusesJson(await d.views.inContextRefs(list, viewerId, context), []), links);
  };
  const scopeOf = (req: Request): { scope: Scope; keep: Record<string, string | undefined> } => {
    const local = flag(req.query['local']);
    const remote = flag(req.query['remote']);
    return { scope: local ? 'local' : remote ? 'remote' : 'all', keep: { local: local ? 'true' : undefined, remote: remote ? 'true' : undefined } };
  };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

  return [
    route({
      method: 'GET',
      path: '/api/v1/timelines/home',
      auth: { scopes: ['read:statuses'], member: true },
      handler: async (req, who) => {
        const me = who.record.user.accountId;
        return reply(req, await d.timelines.home(me, pageQuery(req.query, 20, 40)), me, 'home');
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/timelines/public',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const viewerId = viewerOf(who);
        const { scope, keep } = scopeOf(req);
        const onlyMedia = flag(req.query['only_media']);
        return reply(req, await d.timelines.publicTimeline(pageQuery(req.query, 20, 40), scope, viewerId, onlyMedia), viewerId, 'public', {
          ...keep,
          only_media: onlyMedia ? 'true' : undefined,
        });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/timelines/tag/:hashtag',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const viewerId = viewerOf(who);
        const { scope, keep } = scopeOf(req);
        const tag = req.params['hashtag']!;
        if (!TAG.test(tag)) return json(200, []);
        const onlyMedia = flag(req.query['only_media']);
        const tags = (k: string) => {
          const v = req.query[k];
          return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === 'string' && TAG.test(x)).slice(0, 4);
        };
        const more = { any: tags('any'), all: tags('all'), none: tags('none'), onlyMedia };
        const list = await d.timelines.tagged(tag, pageQuery(req.query, 20, 40), scope, viewerId, more);
        return reply(req, list, viewerId, 'public', { ...keep, only_media: onlyMedia ? 'true' : undefined, any: more.any, all: more.all, none: more.none });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/accounts/:id/statuses',
      auth: { scopes: ['read:statuses'], optional: true },
      handler: async (req, who) => {
        const viewerId = viewerOf(who);
        const id = req.params['id']!;
        // The account as the rendered-account cache holds it (the page's statuses render it anyway), else its row.
        const a = isId(id) ? (d.accountCache.get(id)?.row ?? (await d.accounts.byId(id))) : undefined;
        if (!a || a.deletedAt || (a.domain === null && !a.hasUser)) throw Errors.notFound();
        if (flag(req.query['pinned'])) {
          // Pinned statuses, newest pin first, as the viewer may see them (one short list: no pages); `tagged` applies.
          const pinned = await d.statuses.pinnedOf(a.id, viewerId, str(req.query['tagged']));
          return json(200, await d.views.inContext(pinned, viewerId, 'account'));
        }
        const excludeReplies = flag(req.query['exclude_replies']);
        const excludeReblogs = flag(req.query['exclude_reblogs']);
        const tagged = str(req.query['tagged']);
        const onlyMedia = flag(req.query['only_media']);
        // A member opening a remote profile: its older posts may be fetched (never for anonymous or paged reads).
        const firstPage = !CURSORS.some((k) => req.query[k] !== undefined);
        const viewed = viewerId !== null && a.domain !== null && firstPage ? d.profileViewed?.(a) : undefined;
        const list = await d.timelines.ofAccount(a.id, viewerId, pageQuery(req.query, 20, 40), { excludeReplies, excludeReblogs, tagged, onlyMedia });
        await viewed;
        const keep = {
          exclude_replies: excludeReplies ? 'true' : undefined,
          exclude_reblogs: excludeReblogs ? 'true' : undefined,
          tagged,
          only_media: onlyMedia ? 'true' : undefined,
        };
        return reply(req, list, viewerId, 'account', keep);
      },
    }),
  ];
}
