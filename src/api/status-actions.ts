// What a member does to a status: favourite, boost, bookmark, pin, mute its thread (and their undoing), who favourited or boosted
// it, and the member's own favourites and bookmarks. Every action first checks the member may see the status.
import { z } from 'zod';
import { Errors } from '../errors.js';
import type { InteractionService } from '../services/interaction-service.js';
import { linkHeader, pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Principal, type Reply, type Route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { InteractionStore } from '../store/interactions.js';
import { VISIBILITIES, type Status, type StatusStore } from '../store/statuses.js';
import type { AccountViews } from '../views/account-views.js';
import { given, invalid } from './params.js';
import type { StatusViews } from '../views/status-views.js';
import { memberAccount } from './callers.js';

const ReblogBody = z.object({ visibility: z.enum(VISIBILITIES).optional() });

export interface StatusActionDeps {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly interactions: InteractionStore;
  readonly service: InteractionService;
  readonly views: StatusViews;
  readonly accountViews: AccountViews;
}

export function statusActionRoutes(d: StatusActionDeps): Route[] {
  /** throughBoost: a boost's id stands for the boosted status (not for pins: a boost itself cannot be pinned). */
  const visible = async (req: Request, viewerId: string | null, throughBoost = true): Promise<Status> => {
    const s = await d.statuses.readable(req.params['id']!, viewerId, throughBoost);
    if (!s) throw Errors.notFound();
    return s;
  };
  type MemberHandler = (req: Request, who: MemberPrincipal) => Promise<Reply>;
  /** An action on a status the member can see (404 otherwise, and nothing changes), answered with the status as it now is. */
  const act =
    (fn: (me: Account, s: Status, req: Request) => Promise<Status | void>, throughBoost = true): MemberHandler =>
    async (req, who) => {
      const me = await memberAccount(d.accounts, who);
      const s = await visible(req, me.id, throughBoost);
      const shown = (await fn(me, s, req)) ?? s;
      return json(200, await d.views.one((await d.statuses.byId(shown.id)) ?? shown, me.id));
    };
  // Mastodon's StatusPinValidator and its messages: one's own posts (private ones too), not boosts nor direct posts.
  const pin = async (me: Account, s: Status) => {
    if (s.reblogOfId) throw Errors.validation('A boost cannot be pinned');
    if (s.accountId !== me.id) throw Errors.validation("Someone else's post cannot be pinned");
    if (s.visibility === 'direct') throw Errors.validation('Posts that are only visible to mentioned users cannot be pinned');
    if (!(await d.interactions.pin(me.id, s.id))) throw Errors.validation('You have already pinned the maximum number of posts');
  };
  const actors =
    (kind: 'favouritedBy' | 'rebloggedBy') =>
    async (req: Request, who: Principal | null): Promise<Reply> => {
      const viewer = who?.record.user?.accountId ?? null;
      const s = await visible(req, viewer);
      const page = pageQuery(req.query, 40, 80);
      const rows = await d.interactions[kind](s.id, viewer, page);
      const accounts = new Map((await d.accounts.byIds(rows.map((r) => r[1]))).map((a) => [a.id, a]));
      const list = rows.map((r) => accounts.get(r[1])).filter((a): a is Account => !!a);
      return json(
        200,
        await d.accountViews.many(list),
        linkHeader(
          d.baseUrl + req.path,
          page,
          rows.map((r) => r[0]),
        ),
      );
    };
  // Mastodon's favourites and bookmarks link prev by min_id (the page just newer), unlike its account lists.
  const mine =
    (kind: 'favouritesOf' | 'bookmarksOf'): MemberHandler =>
    async (req, who) => {
      const me = await memberAccount(d.accounts, who);
      const page = pageQuery(req.query, 20, 40);
      const rows = await d.interactions[kind](me.id, page);
      const byId = new Map((await d.statuses.byIds(rows.map((r) => r[1]))).map((s) => [s.id, s]));
      const list = rows.map((r) => byId.get(r[1])).filter((s): s is Status => !!s);
      return json(
        200,
        await d.views.many(list, me.id),
        timelineLinks(
          d.baseUrl + req.path,
          page,
          rows.map((r) => r[0]),
        ),
      );
    };

  return [
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/favourite',
      auth: { scopes: ['write:favourites'], member: true },
      body: true,
      handler: act((me, s) => d.service.favourite(me, s)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/unfavourite',
      auth: { scopes: ['write:favourites'], member: true },
      body: true,
      handler: act((me, s) => d.service.unfavourite(me, s)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/reblog',
      auth: { scopes: ['write:statuses'], member: true },
      body: true,
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, who);
        const s = await visible(req, me.id);
        const body = ReblogBody.safeParse(given(req.fields));
        if (!body.success) throw invalid(body.error);
        const boost = await d.service.reblog(me, s, body.data.visibility ?? 'public');
        // The answer is the boost itself, and Mastodon marks it reblogged for its booster (Account#reblogged? reads
        // the boosted post): Mastodon.py and megalodon read the top-level flag.
        return json(200, { ...(await d.views.one(boost, me.id)), reblogged: true });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/unreblog',
      auth: { scopes: ['write:statuses'], member: true },
      body: true,
      handler: act((me, s) => d.service.unreblog(me, s)),
    }),
    // Mastodon's conversation mute: any status of the thread the member can see stands for the thread.
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/mute',
      auth: { scopes: ['write:mutes'], member: true },
      body: true,
      handler: act((me, s) => d.interactions.muteThread(me.id, s.id)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/unmute',
      auth: { scopes: ['write:mutes'], member: true },
      body: true,
      handler: act((me, s) => d.interactions.unmuteThread(me.id, s.id)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/bookmark',
      auth: { scopes: ['write:bookmarks'], member: true },
      body: true,
      handler: act((me, s) => d.interactions.bookmark(me.id, s.id)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/unbookmark',
      auth: { scopes: ['write:bookmarks'], member: true },
      body: true,
      handler: act((me, s) => d.interactions.unbookmark(me.id, s.id)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/pin',
      auth: { scopes: ['write:accounts'], member: true },
      body: true,
      handler: act(pin, false),
    }),
    // Unpinning what is not pinned (someone else's post included) changes nothing and answers the status, as Mastodon.
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/unpin',
      auth: { scopes: ['write:accounts'], member: true },
      body: true,
      handler: act((me, s) => d.interactions.unpin(me.id, s.id), false),
    }),
    // Lists of accounts: read:accounts, as Mastodon's FavouritedByAccountsController asks.
    route({
      method: 'GET',
      path: '/api/v1/statuses/:id/favourited_by',
      auth: { scopes: ['read:accounts'], optional: true },
      handler: actors('favouritedBy'),
    }),
    route({
      method: 'GET',
      path: '/api/v1/statuses/:id/reblogged_by',
      auth: { scopes: ['read:accounts'], optional: true },
      handler: actors('rebloggedBy'),
    }),
    route({
      method: 'GET',
      path: '/api/v1/favourites',
      auth: { scopes: ['read:favourites'], member: true },
      handler: mine('favouritesOf'),
    }),
    route({
      method: 'GET',
      path: '/api/v1/bookmarks',
      auth: { scopes: ['read:bookmarks'], member: true },
      handler: mine('bookmarksOf'),
    }),
  ];
}
