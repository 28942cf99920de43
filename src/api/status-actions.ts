// What a member does to a status: favourite, boost, bookmark, pin, mute its thread (and their undoing), who favourited or boosted
// it, and the member's own favourites and bookmarks. Every action first checks the member may see the status.
import { z } from 'zod';
import { Errors } from '../errors.js';
import type { InteractionService } from '../services/interaction-service.js';
import { linkHeader, pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import type { Handler, Route } from '../http/types.js';
import type { BearerAuth, Requirement } from '../http/auth.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { InteractionStore } from '../store/interactions.js';
import { VISIBILITIES, type Status, type StatusStore } from '../store/statuses.js';
import type { AccountViews } from './account-views.js';
import { given, invalid } from './params.js';
import type { StatusViews } from './status-views.js';

const need = (scope: string, user = true): Requirement => ({ scopes: [scope], user });
const ReblogBody = z.object({ visibility: z.enum(VISIBILITIES).optional() });

export interface StatusActionDeps {
  readonly baseUrl: string;
  readonly bearer: BearerAuth;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly interactions: InteractionStore;
  readonly service: InteractionService;
  readonly views: StatusViews;
  readonly accountViews: AccountViews;
}

export function statusActionRoutes(d: StatusActionDeps): Route[] {
  const member = async (req: Request, scope: string): Promise<Account> => {
    const me = await d.accounts.byId((await d.bearer.authenticate(req, need(scope))).record.user!.accountId);
    if (!me) throw Errors.notFound();
    return me;
  };
  /** throughBoost: a boost's id stands for the boosted status (not for pins: a boost itself cannot be pinned). */
  const visible = async (req: Request, viewerId: string | null, throughBoost = true): Promise<Status> => {
    const s = await d.statuses.readable(req.params['id']!, viewerId, throughBoost);
    if (!s) throw Errors.notFound();
    return s;
  };
  /** An action on a status the member can see (404 otherwise, and nothing changes), answered with the status as it now is. */
  const act = (scope: string, fn: (me: Account, s: Status, req: Request) => Promise<Status | void>, throughBoost = true): Handler => async (req) => {
    const me = await member(req, scope);
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
  const who = (kind: 'favouritedBy' | 'rebloggedBy'): Handler => async (req) => {
    // Lists of accounts: read:accounts, as Mastodon's FavouritedByAccountsController asks.
    const viewer = req.headers['authorization'] !== undefined ? ((await d.bearer.authenticate(req, need('read:accounts', false))).record.user?.accountId ?? null) : null;
    const s = await visible(req, viewer);
    const page = pageQuery(req.query, 40, 80);
    const rows = await d.interactions[kind](s.id, viewer, page);
    const accounts = new Map((await d.accounts.byIds(rows.map((r) => r[1]))).map((a) => [a.id, a]));
    const list = rows.map((r) => accounts.get(r[1])).filter((a): a is Account => !!a);
    return json(200, await d.accountViews.many(list), linkHeader(d.baseUrl + req.path, page, rows.map((r) => r[0])));
  };
  // Mastodon's favourites and bookmarks link prev by min_id (the page just newer), unlike its account lists.
  const mine = (kind: 'favouritesOf' | 'bookmarksOf', scope: string): Handler => async (req) => {
    const me = await member(req, scope);
    const page = pageQuery(req.query, 20, 40);
    const rows = await d.interactions[kind](me.id, page);
    const byId = new Map((await d.statuses.byIds(rows.map((r) => r[1]))).map((s) => [s.id, s]));
    const list = rows.map((r) => byId.get(r[1])).filter((s): s is Status => !!s);
    return json(200, await d.views.many(list, me.id), timelineLinks(d.baseUrl + req.path, page, rows.map((r) => r[0])));
  };
  const post = (path: string, handler: Handler): Route => ({ method: 'POST', path: `/api/v1/statuses/:id/${path}`, body: true, handler });

  return [
    post('favourite', act('write:favourites', (me, s) => d.service.favourite(me, s))),
    post('unfavourite', act('write:favourites', (me, s) => d.service.unfavourite(me, s))),
    post('reblog', async (req) => {
      const me = await member(req, 'write:statuses');
      const s = await visible(req, me.id);
      const body = ReblogBody.safeParse(given(req.fields));
      if (!body.success) throw invalid(body.error);
      const boost = await d.service.reblog(me, s, body.data.visibility ?? 'public');
      return json(200, await d.views.one(boost, me.id));
    }),
    post('unreblog', act('write:statuses', (me, s) => d.service.unreblog(me, s))),
    // Mastodon's conversation mute: any status of the thread the member can see stands for the thread.
    post('mute', act('write:mutes', (me, s) => d.interactions.muteThread(me.id, s.id))),
    post('unmute', act('write:mutes', (me, s) => d.interactions.unmuteThread(me.id, s.id))),
    post('bookmark', act('write:bookmarks', (me, s) => d.interactions.bookmark(me.id, s.id))),
    post('unbookmark', act('write:bookmarks', (me, s) => d.interactions.unbookmark(me.id, s.id))),
    post('pin', act('write:accounts', pin, false)),
    // Unpinning what is not pinned (someone else's post included) changes nothing and answers the status, as Mastodon.
    post('unpin', act('write:accounts', (me, s) => d.interactions.unpin(me.id, s.id), false)),
    { method: 'GET', path: '/api/v1/statuses/:id/favourited_by', handler: who('favouritedBy') },
    { method: 'GET', path: '/api/v1/statuses/:id/reblogged_by', handler: who('rebloggedBy') },
    { method: 'GET', path: '/api/v1/favourites', handler: mine('favouritesOf', 'read:favourites') },
    { method: 'GET', path: '/api/v1/bookmarks', handler: mine('bookmarksOf', 'read:bookmarks') },
  ];
}
