// Mastodon 4.3 grouped notifications (/api/v2/notifications): pages of groups with their accounts and statuses
// listed once (REST::DedupNotificationGroupSerializer), one group, its accounts, dismissing a group, clearing all,
// and the unread counts behind the notifications marker (v2 counts groups, v1 notifications).
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks, type Keep } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json, jsonPieces } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { MarkerStore } from '../store/markers.js';
import { groupKeyOf, type GroupData, type NotificationGroupStore } from '../store/notification-groups.js';
import { GROUPABLE_TYPES, type Notification, type NotificationFilter, type NotificationStore } from '../store/notifications.js';
import type { StatusStore } from '../store/statuses.js';
import { isId } from '../store/ids.js';
import type { AccountViews } from '../views/account-views.js';
import { flag, stringList } from './params.js';
import type { StatusViews } from '../views/status-views.js';
import { idsAsNumbers } from '../views/id-numbers.js';
import { pushStatusesJson } from '../views/status-json.js';
import type { ReportStore } from '../store/reports.js';
import type { ReportViews } from '../views/report-views.js';
import type { RenderBundle } from '../store/render-bundle.js';

/** Types whose group names a status (status_id, and the status in `statuses`). */
const STATUS_TYPES = new Set(['favourite', 'reblog', 'status', 'mention', 'poll', 'update', 'quote']);
/** Group keys are ours ("favourite-1-2", "follow-3", "ungrouped-4", "admin.sign_up-5"); anything else names nothing. */
const GROUP_KEY = /^[a-z_.]{1,30}(-\d{1,19}){1,2}$/;

export interface GroupedNotificationApiDeps {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly notifications: NotificationStore;
  readonly groups: NotificationGroupStore;
  readonly markers: MarkerStore;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
  readonly reports: ReportStore;
  readonly reportViews: ReportViews;
}

type Expand = 'full' | 'partial_avatars';

function expandParam(v: unknown): Expand {
  if (v === undefined || v === 'full') return 'full';
  if (v === 'partial_avatars') return 'partial_avatars';
  throw Errors.badRequest(`Invalid value for 'expand_accounts': '${String(v)}', allowed values are 'full' and 'partial_avatars'`);
}

/** grouped_types[]: only types that are grouped count; absent, all of them are. */
function groupedTypesParam(v: unknown): readonly string[] {
  const given = stringList(v)?.filter((t) => t !== '');
  return given?.length ? given.filter((t) => GROUPABLE_TYPES.includes(t)) : GROUPABLE_TYPES;
}

function filterParams(q: Request['query']): NotificationFilter {
  const from = typeof q['account_id'] === 'string' ? q['account_id'] : undefined;
  // An account_id that is no id names nobody: nothing matches it.
  return {
    types: stringList(q['types']),
    excludeTypes: stringList(q['exclude_types']),
    fromAccountId: from === undefined ? undefined : isId(from) ? from : '0',
    includeFiltered: flag(q['include_filtered']),
  };
}

export function groupedNotificationRoutes(d: GroupedNotificationApiDeps): Route[] {
  const groupKeyParam = (req: Request): string => {
    const key = req.params['group_key']!;
    if (!GROUP_KEY.test(key)) throw Errors.notFound();
    return key;
  };

  /**
   * The response of every v2 read: groups, with the accounts and statuses they name listed once. The full accounts
   * (~200 on a page) are written from their kept JSON with this moment's counts (status-views.ts PageAccount), the
   * text JSON.stringify would give for their entities; partial ones are cut from the kept entities without counts.
   */
  const render = async (
    viewer: string,
    items: readonly Notification[],
    data: Map<string, GroupData>,
    grouped: readonly string[],
    expand: Expand,
    paged: boolean,
    dynamics: RenderBundle | null = null,
  ) => {
    const groups = items.map((n) => {
      const key = groupKeyOf(n, grouped);
      const g = data.get(key);
      const one = !g;
      return {
        n,
        key,
        count: one ? 1 : g.count,
        mostRecentId: one ? n.id : g.mostRecentId,
        samples: one ? [n.fromAccountId] : g.sampleAccountIds,
        pageMinId: one ? n.id : (g.pageMinId ?? n.id),
        latestAt: one ? n.createdAt : (g.latestAt ?? n.createdAt),
        statusId: n.statusId && STATUS_TYPES.has(n.type) ? n.statusId : null,
      };
    });
    const loaded = await d.statusViews.page(
      [...new Map(groups.flatMap((g) => (g.statusId && g.n.statusRef ? [[g.statusId, g.n.statusRef] as const] : []))).values()],
      [...new Set(groups.flatMap((g) => g.samples))],
      viewer,
      'notifications',
      dynamics,
    );
    const statuses = loaded.statuses;
    const accounts = new Map([...loaded.accounts.values()].filter((a) => !a.row.deletedAt).map((a) => [a.row.id, a]));
    // admin.report is never grouped: its one notification names the report, shown in full as v1 shows it.
    const reportIds = [...new Set(groups.flatMap((g) => (g.n.reportId ? [g.n.reportId] : [])))];
    const reports = reportIds.length ? await d.reportViews.plain(await d.reports.byIds(reportIds)) : new Map<string, unknown>();
    // A group whose status, report or accounts went away between the queries is left out, as v1 leaves them out.
    const shown = groups.filter(
      (g) => (!g.statusId || statuses.has(g.statusId)) && (!g.n.reportId || reports.has(g.n.reportId)) && g.samples.some((id) => accounts.has(id)),
    );

    const full = new Set<string>();
    const partial = new Set<string>();
    for (const g of shown) {
      const samples = g.samples.filter((id) => accounts.has(id));
      if (expand === 'full') for (const id of samples) full.add(id);
      else full.add(samples[0]!);
    }
    if (expand === 'partial_avatars') for (const g of shown) for (const id of g.samples) if (accounts.has(id) && !full.has(id)) partial.add(id);
    const partialEntity = (id: string) => {
      const a = accounts.get(id)!.bare;
      return {
        id: a.id,
        acct: a.acct,
        locked: a.locked,
        bot: a.bot,
        url: a.url,
        avatar: a.avatar,
        avatar_static: a.avatar_static,
        avatar_description: a.avatar_description,
      };
    };
    const shownStatuses = [...new Set(shown.flatMap((g) => (g.statusId ? [g.statusId] : [])))].map((id) => statuses.get(id)!);
    const groupEntities = shown.map((g) => ({
      group_key: g.key,
      notifications_count: g.count,
      type: g.n.type,
      // A number, as Mastodon's serializer sends it (its docs say String; Ice Cubes decodes an Int): idsAsNumbers.
      most_recent_notification_id: g.mostRecentId,
      ...(paged ? { page_min_id: g.pageMinId, page_max_id: g.mostRecentId, latest_page_notification_at: g.latestAt.toISOString() } : {}),
      sample_account_ids: g.samples.filter((id) => accounts.has(id)),
      ...(g.statusId ? { status_id: g.statusId } : {}),
      ...(g.n.reportId ? { report: reports.get(g.n.reportId) } : {}),
    }));
    return {
      groups: groupEntities.length,
      // Keys as Mastodon orders them: accounts, partial_accounts, statuses, notification_groups. As pieces, one an
      // account or status, sent unjoined (http/text-pieces.ts).
      parts: (): string[] => {
        const parts = ['{"accounts":['];
        let first = true;
        for (const id of full) {
          parts.push(first ? accounts.get(id)!.json() : `,${accounts.get(id)!.json()}`);
          first = false;
        }
        parts.push(expand === 'partial_avatars' ? `],"partial_accounts":${JSON.stringify([...partial].map(partialEntity))},"statuses":` : '],"statuses":');
        pushStatusesJson(shownStatuses, parts).push(`,"notification_groups":${idsAsNumbers(JSON.stringify(groupEntities), 'most_recent_notification_id')}}`);
        return parts;
      },
    };
  };

  const markerOf = async (accountId: string): Promise<string | undefined> => {
    const [m] = await d.markers.get(accountId, ['notifications']);
    return m && isId(m.lastReadId) ? m.lastReadId : undefined;
  };

  return [
    route({
      method: 'GET',
      path: '/api/v2/notifications',
      auth: { scopes: ['read:notifications'], member: true },
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const page = pageQuery(req.query, 40, 80);
        const expand = expandParam(req.query['expand_accounts']);
        const grouped = groupedTypesParam(req.query['grouped_types']);
        const f = filterParams(req.query);
        // The groups and what they hold in one statement (counted where Mastodon's controller counts them).
        const { items, data, dynamics } = await d.groups.pageWithData(viewer, page, f, grouped);
        const one = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : undefined);
        const keep: Keep = {
          types: stringList(req.query['types']),
          exclude_types: stringList(req.query['exclude_types']),
          grouped_types: stringList(req.query['grouped_types']),
          account_id: one('account_id'),
          expand_accounts: one('expand_accounts'),
          include_filtered: one('include_filtered'),
        };
        return jsonPieces(
          200,
          (await render(viewer, items, data, grouped, expand, true, dynamics)).parts(),
          timelineLinks(
            d.baseUrl + req.path,
            page,
            items.map((n) => n.id),
            keep,
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v2/notifications/unread_count',
      auth: { scopes: ['read:notifications'], member: true },
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const { limit } = pageQuery(req.query, 100, 1000);
        const f = filterParams(req.query);
        return json(200, { count: await d.groups.unreadGroups(viewer, await markerOf(viewer), limit, f, groupedTypesParam(req.query['grouped_types'])) });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/notifications/unread_count',
      auth: { scopes: ['read:notifications'], member: true },
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const { limit } = pageQuery(req.query, 100, 1000);
        return json(200, { count: await d.groups.unread(viewer, await markerOf(viewer), limit, filterParams(req.query)) });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v2/notifications/clear',
      auth: { scopes: ['write:notifications'], member: true },
      body: true,
      handler: async (_req, who) => {
        await d.notifications.clear(who.record.user.accountId);
        return json(200, {});
      },
    }),
    route({
      method: 'GET',
      path: '/api/v2/notifications/:group_key',
      auth: { scopes: ['read:notifications'], member: true },
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const key = groupKeyParam(req);
        const n = await d.groups.newestOf(viewer, key);
        if (!n) throw Errors.notFound();
        const data = await d.groups.data(viewer, key.startsWith('ungrouped-') ? [] : [key]);
        const r = await render(viewer, [n], data, key.startsWith('ungrouped-') ? [] : GROUPABLE_TYPES, 'full', false);
        if (r.groups === 0) throw Errors.notFound();
        return jsonPieces(200, r.parts());
      },
    }),
    route({
      method: 'POST',
      path: '/api/v2/notifications/:group_key/dismiss',
      auth: { scopes: ['write:notifications'], member: true },
      body: true,
      handler: async (req, who) => {
        await d.groups.dismiss(who.record.user.accountId, groupKeyParam(req));
        return json(200, {});
      },
    }),
    route({
      method: 'GET',
      path: '/api/v2/notifications/:group_key/accounts',
      auth: { scopes: ['read:notifications'], member: true },
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const page = pageQuery(req.query, 40, 80);
        const items = await d.groups.members(viewer, groupKeyParam(req), page);
        const byId = new Map((await d.accounts.byIds([...new Set(items.map((n) => n.fromAccountId))])).map((a) => [a.id, a]));
        const rows = items.flatMap((n) => {
          const a = byId.get(n.fromAccountId);
          return a && !a.deletedAt ? [a] : [];
        });
        return json(
          200,
          await d.accountViews.many(rows),
          timelineLinks(
            d.baseUrl + req.path,
            page,
            items.map((n) => n.id),
          ),
        );
      },
    }),
  ];
}
