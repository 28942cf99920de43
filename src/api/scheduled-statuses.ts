// Scheduled posts (Mastodon's Api::V1::ScheduledStatusesController): the member's list (paged by id, Link headers),
// one, a new time (PUT takes scheduled_at only, under the rules it was scheduled by), and cancelling one (its uploads
// become free again). Scheduling itself is POST /api/v1/statuses with scheduled_at (statuses.ts).
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Route, updateRoute } from '../http/types.js';
import type { Request } from '../http/request.js';
import type { ScheduledPosts } from '../services/scheduled-posts.js';
import type { AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import type { ScheduledStatus, ScheduledStatusStore } from '../store/scheduled-statuses.js';
import type { ScheduledViews } from '../views/scheduled-views.js';
import { memberAccount } from './callers.js';
import { given } from './params.js';
import { parseScheduledAt } from './scheduled-at.js';

/** Mastodon's DEFAULT_STATUSES_LIMIT; limit_param caps at twice that. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 40;

export interface ScheduledStatusApiDeps {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly store: ScheduledStatusStore;
  readonly service: ScheduledPosts;
  readonly views: ScheduledViews;
}

export function scheduledStatusRoutes(d: ScheduledStatusApiDeps): Route[] {
  const own = async (req: Request, who: MemberPrincipal): Promise<ScheduledStatus> => {
    const id = req.params['id']!;
    const s = isId(id) ? await d.store.byId(who.record.user.accountId, id) : undefined;
    if (!s) throw Errors.notFound();
    return s;
  };
  const read = { scopes: ['read:statuses'], member: true } as const;
  const write = { scopes: ['write:statuses'], member: true } as const;
  return [
    route({
      method: 'GET',
      path: '/api/v1/scheduled_statuses',
      auth: read,
      handler: async (req, who) => {
        const page = pageQuery(req.query, DEFAULT_LIMIT, MAX_LIMIT);
        const list = await d.store.page(who.record.user.accountId, page);
        const ids = list.map((s) => s.id);
        return json(200, await d.views.many(list), timelineLinks(d.baseUrl + req.path, page, ids));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/scheduled_statuses/:id',
      auth: read,
      handler: async (req, who) => json(200, await d.views.one(await own(req, who))),
    }),
    // Rails' `resources :scheduled_statuses … :update`: PUT and PATCH alike.
    ...updateRoute({
      path: '/api/v1/scheduled_statuses/:id',
      auth: write,
      body: true,
      handler: async (req, who) => {
        const s = await own(req, who);
        const at = parseScheduledAt(given(req.fields)['scheduled_at']);
        // Nothing to change: Mastodon's update! with no attributes answers the post as it is.
        if (at === undefined) return json(200, await d.views.one(s));
        const me = await memberAccount(d.accounts, who);
        return json(200, await d.views.one(await d.service.reschedule(me, s.id, at)));
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/scheduled_statuses/:id',
      auth: write,
      handler: async (req, who) => {
        const s = await own(req, who);
        if (!(await d.store.remove(s.accountId, s.id))) throw Errors.notFound();
        return json(200, {});
      },
    }),
  ];
}
