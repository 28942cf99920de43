// Notifications: the member's list (types[] / exclude_types[] / account_id filters, Link-header pages), one by id,
// dismissing one and clearing all. An admin.report notification carries the Report entity.
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json, jsonPieces } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { Notification, NotificationStore } from '../store/notifications.js';
import type { StatusStore } from '../store/statuses.js';
import type { AccountViews } from '../views/account-views.js';
import type { StatusViews } from '../views/status-views.js';
import type { ReportStore } from '../store/reports.js';
import type { ReportViews } from '../views/report-views.js';
import { isId } from '../store/ids.js';
import { renderNotifications, renderNotificationsText } from '../views/notification-views.js';
import { flag } from './params.js';

export interface NotificationApiDeps {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly notifications: NotificationStore;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
  readonly reports: ReportStore;
  readonly reportViews: ReportViews;
}

function list(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}

export function notificationRoutes(d: NotificationApiDeps): Route[] {
  const render = (items: readonly Notification[], viewerId: string) => renderNotifications(d, items, viewerId);
  const id = (req: Request): string => {
    const v = req.params['id']!;
    if (!isId(v)) throw Errors.notFound();
    return v;
  };

  return [
    route({
      method: 'GET',
      path: '/api/v1/notifications',
      auth: { scopes: ['read:notifications'], member: true },
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const page = pageQuery(req.query, 40, 80);
        const from = typeof req.query['account_id'] === 'string' ? req.query['account_id'] : undefined;
        if (from !== undefined && !isId(from)) return json(200, []);
        const types = list(req.query['types']);
        const excludeTypes = list(req.query['exclude_types']);
        const includeFiltered = flag(req.query['include_filtered']);
        const { items, dynamics } = await d.notifications.list(viewer, page, { types, excludeTypes, fromAccountId: from, includeFiltered });
        const keep: Record<string, string | undefined> = { account_id: from, include_filtered: includeFiltered ? 'true' : undefined };
        const links = timelineLinks(
          d.baseUrl + req.path,
          page,
          items.map((n) => n.id),
          keep,
        );
        // Repeated parameters (types[]) are carried over as written.
        const extra = [
          ...(types ?? []).map((t) => `types[]=${encodeURIComponent(t)}`),
          ...(excludeTypes ?? []).map((t) => `exclude_types[]=${encodeURIComponent(t)}`),
        ].join('&');
        if (links && extra) links['Link'] = links['Link']!.replace(/\?limit=/g, `?${extra}&limit=`);
        return jsonPieces(200, await renderNotificationsText(d, items, viewer, dynamics), links);
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/notifications/:id',
      auth: { scopes: ['read:notifications'], member: true },
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const n = await d.notifications.one(viewer, id(req));
        const [entity] = n ? await render([n], viewer) : [];
        if (!entity) throw Errors.notFound();
        return json(200, entity);
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/notifications/:id/dismiss',
      auth: { scopes: ['write:notifications'], member: true },
      body: true,
      handler: async (req, who) => {
        // Another member's notification, or one already dismissed, is not found (Mastodon's find raises).
        if (!(await d.notifications.dismiss(who.record.user.accountId, id(req)))) throw Errors.notFound();
        return json(200, {});
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/notifications/clear',
      auth: { scopes: ['write:notifications'], member: true },
      body: true,
      handler: async (_req, who) => {
        await d.notifications.clear(who.record.user.accountId);
        return json(200, {});
      },
    }),
  ];
}
