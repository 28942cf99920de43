// Mastodon's Admin::Trends API: the candidates of the last refresh, reviewed or not (`requires_review`), and a
// moderator's approve or reject of a tag, status or link (Manage taxonomies, as Mastodon's review? policies); the
// link publishers (Mastodon's preview card providers), whose verdict holds for each of their links without its own.
// Mastodon keeps the two trend settings among its server settings (Discovery: trends, trendable_by_default); ours
// are read and changed at /api/v1/admin/trends/settings (Manage settings), as remote history's are.
import { z } from 'zod';
import { adminLinkEntity, adminTagEntity, publisherEntity } from '../entities/trends.js';
import { Errors } from '../errors.js';
import { offsetLinks, offsetQuery, pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { Logger } from '../log.js';
import { isId } from '../store/ids.js';
import type { StatusStore } from '../store/statuses.js';
import type { Publisher, TrendPublisherStore } from '../store/trend-publishers.js';
import type { TrendKind, TrendSettings, TrendStore } from '../store/trends.js';
import type { StatusViews } from '../views/status-views.js';
import { memberIdOf } from './callers.js';
import { given, invalid, railsBool } from './params.js';

export interface AdminTrendApiDeps {
  readonly baseUrl: string;
  readonly log: Logger;
  readonly trends: TrendStore;
  readonly publishers: TrendPublisherStore;
  readonly statuses: StatusStore;
  readonly views: StatusViews;
  readonly tagUrl: (name: string) => string;
}

const READ = { scopes: ['admin:read'], member: true, permission: 'manageTaxonomies' } as const;
const WRITE = { scopes: ['admin:write'], member: true, permission: 'manageTaxonomies' } as const;

const SettingsBody = z.object({ enabled: railsBool.optional(), review_required: railsBool.optional() });

/** The publishers' Link header as Mastodon's controller writes it: next only after a full page, prev by min_id. */
function publisherLinks(url: string, limit: number, rows: readonly Publisher[]): Record<string, string> | undefined {
  if (rows.length === 0) return undefined;
  const links = [`<${url}?limit=${limit}&min_id=${rows[0]!.id}>; rel="prev"`];
  if (rows.length === limit) links.unshift(`<${url}?limit=${limit}&max_id=${rows.at(-1)!.id}>; rel="next"`);
  return { Link: links.join(', ') };
}

const settingsEntity = (s: TrendSettings) => ({ enabled: s.enabled, review_required: s.reviewRequired });

export function adminTrendRoutes(d: AdminTrendApiDeps): Route[] {
  const idOf = (req: Request): string => {
    const id = req.params['id']!;
    if (!isId(id)) throw Errors.notFound();
    return id;
  };
  const tag = async (id: string) => {
    const [t, settings] = await Promise.all([d.trends.tag(id), d.trends.settings()]);
    if (!t) throw Errors.notFound();
    return adminTagEntity(t, d.tagUrl, settings.reviewRequired);
  };
  const link = async (id: string) => {
    const l = await d.trends.link(id);
    if (!l) throw Errors.notFound();
    return adminLinkEntity(l, d.baseUrl);
  };
  const status = async (id: string, viewerId: string, requiresReview: boolean) => {
    const s = await d.statuses.byId(id);
    if (!s || s.deletedAt) throw Errors.notFound();
    const [entity] = await d.views.inContext([s], viewerId, null);
    return { ...entity!, requires_review: requiresReview };
  };
  /** approve and reject of one kind: the review recorded, the item answered as the list shows it. */
  const reviews = (kind: TrendKind, plural: string, answer: (id: string, by: string) => Promise<unknown>, exists: (id: string) => Promise<boolean>) =>
    (['approve', 'reject'] as const).map((verb) =>
      route({
        method: 'POST',
        path: `/api/v1/admin/trends/${plural}/:id/${verb}`,
        auth: WRITE,
        handler: async (req, who) => {
          const by = memberIdOf(who);
          const id = idOf(req);
          if (!(await exists(id))) throw Errors.notFound();
          await d.trends.review(kind, id, verb === 'approve', by);
          d.log.info({ by, kind, id, verb }, 'trend reviewed');
          return json(200, await answer(id, by));
        },
      }),
    );

  return [
    route({
      method: 'GET',
      path: '/api/v1/admin/trends/tags',
      auth: READ,
      handler: async (req) => {
        const page = offsetQuery(req.query, 10, 20);
        const [rows, settings] = await Promise.all([d.trends.tags(page.limit, page.offset, true), d.trends.settings()]);
        return json(
          200,
          rows.map((t) => adminTagEntity(t, d.tagUrl, settings.reviewRequired)),
          offsetLinks(d.baseUrl + req.path, page, rows.length),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/admin/trends/statuses',
      auth: READ,
      handler: async (req, who) => {
        const me = memberIdOf(who);
        const page = offsetQuery(req.query, 20, 40);
        const rows = await d.trends.statuses(page.limit, page.offset, null, true);
        const byId = new Map((await d.statuses.byIds(rows.map((r) => r.itemId))).map((s) => [s.id, s]));
        const ranked = rows.flatMap((r) => byId.get(r.itemId) ?? []);
        const review = new Map(rows.map((r) => [r.itemId, r.requiresReview]));
        const entities = await d.views.inContext(ranked, me, null);
        return json(
          200,
          entities.map((e) => ({ ...e, requires_review: review.get(e.id) ?? true })),
          offsetLinks(d.baseUrl + req.path, page, rows.length),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/admin/trends/links',
      auth: READ,
      handler: async (req) => {
        const page = offsetQuery(req.query, 10, 20);
        const rows = await d.trends.links(page.limit, page.offset, true);
        return json(
          200,
          rows.map((l) => adminLinkEntity(l, d.baseUrl)),
          offsetLinks(d.baseUrl + req.path, page, rows.length),
        );
      },
    }),
    ...reviews(
      'tag',
      'tags',
      (id) => tag(id),
      async (id) => (await d.trends.tag(id)) !== undefined,
    ),
    ...reviews(
      'status',
      'statuses',
      async (id, by) => status(id, by, false),
      async (id) => {
        const s = await d.statuses.byId(id);
        return s !== undefined && !s.deletedAt;
      },
    ),
    ...reviews(
      'link',
      'links',
      (id) => link(id),
      async (id) => (await d.trends.link(id)) !== undefined,
    ),
    // Publishers: every one known, newest first by id (Mastodon: 100 a page, at most 200).
    route({
      method: 'GET',
      path: '/api/v1/admin/trends/links/publishers',
      auth: READ,
      handler: async (req) => {
        const page = pageQuery(req.query, 100, 200);
        const rows = await d.publishers.list(page);
        return json(200, rows.map(publisherEntity), publisherLinks(d.baseUrl + req.path, page.limit, rows));
      },
    }),
    ...(['approve', 'reject'] as const).map((verb) =>
      route({
        method: 'POST',
        path: `/api/v1/admin/trends/links/publishers/:id/${verb}`,
        auth: WRITE,
        handler: async (req, who) => {
          const by = memberIdOf(who);
          const p = await d.publishers.review(idOf(req), verb === 'approve', by);
          if (!p) throw Errors.notFound();
          d.log.info({ by, publisher: p.id, domain: p.domain, verb }, 'trend publisher reviewed');
          return json(200, publisherEntity(p));
        },
      }),
    ),
    route({
      method: 'GET',
      path: '/api/v1/admin/trends/settings',
      auth: { scopes: ['admin:read'], member: true, permission: 'manageSettings' },
      handler: async () => json(200, settingsEntity(await d.trends.settings())),
    }),
    route({
      method: 'PUT',
      path: '/api/v1/admin/trends/settings',
      auth: { scopes: ['admin:write'], member: true, permission: 'manageSettings' },
      body: true,
      handler: async (req, who) => {
        const by = memberIdOf(who);
        const p = SettingsBody.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const change: { -readonly [K in keyof TrendSettings]?: TrendSettings[K] } = {};
        if (p.data.enabled !== undefined) change.enabled = p.data.enabled;
        if (p.data.review_required !== undefined) change.reviewRequired = p.data.review_required;
        const next = await d.trends.updateSettings(change);
        d.log.info({ by, change }, 'trend settings changed');
        return json(200, settingsEntity(next));
      },
    }),
  ];
}
