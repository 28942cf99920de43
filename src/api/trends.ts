// Mastodon's Trends API (Api::V1::Trends::*): the trending tags, statuses and links as the last refresh ranked them
// (store/trends.ts), shown as the operator's settings allow (off: []; "trends need review": approved ones only).
// Public: anonymous callers are served, and a token of any scope is accepted (Mastodon asks none); a signed-in
// viewer's trending statuses leave out the accounts they block or mute, and their trending tags say whether they
// follow and feature each (as /api/v1/tags/:id, views/tag-views.ts). Pages by offset, with Link headers.
import { linkEntity } from '../entities/trends.js';
import { offsetLinks, offsetQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Principal, type Route } from '../http/types.js';
import type { StatusStore } from '../store/statuses.js';
import type { TrendStore } from '../store/trends.js';
import type { StatusViews } from '../views/status-views.js';
import type { TagViews } from '../views/tag-views.js';
import { viewerOf } from './callers.js';

export interface TrendApiDeps {
  readonly baseUrl: string;
  readonly trends: TrendStore;
  readonly statuses: StatusStore;
  readonly views: StatusViews;
  /** The Tag entity as /api/v1/tags/:id shows it (a member's `following` and `featuring` too). */
  readonly tagViews: TagViews;
}

/** Mastodon's limits: tags and links 10 (at most 20), statuses 20 (at most 40). */
const TAGS = { limit: 10, max: 20 };
const LINKS = { limit: 10, max: 20 };
const STATUSES = { limit: 20, max: 40 };

/** Any token, or none (Mastodon's trends controllers ask no scope). */
const OPEN = { scopes: [], optional: true } as const;

export function trendRoutes(d: TrendApiDeps): Route[] {
  const tags = async (req: Request, who: Principal | null) => {
    const page = offsetQuery(req.query, TAGS.limit, TAGS.max);
    const rows = await d.trends.tags(page.limit, page.offset);
    return json(
      200,
      await d.tagViews.many(
        rows.map((t) => ({ id: t.itemId, name: t.name, history: t.history })),
        viewerOf(who),
      ),
      offsetLinks(d.baseUrl + req.path, page, rows.length),
    );
  };
  return [
    route({ method: 'GET', path: '/api/v1/trends/tags', auth: OPEN, handler: tags }),
    // The deprecated name of trends/tags (Mastodon 3.0).
    route({ method: 'GET', path: '/api/v1/trends', auth: OPEN, handler: tags }),
    route({
      method: 'GET',
      path: '/api/v1/trends/statuses',
      auth: OPEN,
      handler: async (req, who) => {
        const viewerId = viewerOf(who);
        const page = offsetQuery(req.query, STATUSES.limit, STATUSES.max);
        const rows = await d.trends.statuses(page.limit, page.offset, viewerId);
        const byId = new Map((await d.statuses.byIds(rows.map((r) => r.itemId))).map((s) => [s.id, s]));
        const ranked = rows.flatMap((r) => byId.get(r.itemId) ?? []);
        return json(200, await d.views.inContext(ranked, viewerId, 'public'), offsetLinks(d.baseUrl + req.path, page, rows.length));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/trends/links',
      auth: OPEN,
      handler: async (req) => {
        const page = offsetQuery(req.query, LINKS.limit, LINKS.max);
        const rows = await d.trends.links(page.limit, page.offset);
        return json(
          200,
          rows.map((l) => linkEntity(l, d.baseUrl)),
          offsetLinks(d.baseUrl + req.path, page, rows.length),
        );
      },
    }),
  ];
}
