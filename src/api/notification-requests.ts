// Notification filtering (Mastodon 4.3+): the member's policy (v2, and v1's yes/no shape), the requests holding
// what it filtered, one per sender (Link-header pages), accepting or dismissing one or many, and whether accepted
// notifications are merged yet (here always once the accept has answered: it merges in its own transaction).
import { z } from 'zod';
import { Errors } from '../errors.js';
import { linkHeader, pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route, updateRoute } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import { POLICY_VALUES, type NotificationPolicy, type NotificationRequest, type NotificationRequestStore } from '../store/notification-requests.js';
import type { StatusStore } from '../store/statuses.js';
import type { AccountViews } from '../views/account-views.js';
import { given, idParam, invalid, railsBool } from './params.js';
import type { StatusViews } from '../views/status-views.js';

export interface NotificationRequestApiDeps {
  readonly baseUrl: string;
  readonly requests: NotificationRequestStore;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
}

const value = z.enum(POLICY_VALUES);
const PolicyV2 = z.object({
  for_not_following: value.optional(),
  for_not_followers: value.optional(),
  for_new_accounts: value.optional(),
  for_private_mentions: value.optional(),
  for_limited_accounts: value.optional(),
});
// v1 speaks yes/no: yes is `filter`, no is `accept` (Mastodon's V1::NotificationPolicy).
const yesNo = railsBool.transform((b) => (b ? 'filter' : 'accept') as 'filter' | 'accept');
const PolicyV1 = z.object({
  filter_not_following: yesNo.optional(),
  filter_not_followers: yesNo.optional(),
  filter_new_accounts: yesNo.optional(),
  filter_private_mentions: yesNo.optional(),
});
const Ids = z.object({ id: z.union([idParam, z.array(idParam).max(100)]).transform((v) => (Array.isArray(v) ? v : [v])) });

const summary = (p: NotificationPolicy) => ({
  pending_requests_count: p.pendingRequestsCount,
  pending_notifications_count: p.pendingNotificationsCount,
});
const v2 = (p: NotificationPolicy) => ({
  for_not_following: p.forNotFollowing,
  for_not_followers: p.forNotFollowers,
  for_new_accounts: p.forNewAccounts,
  for_private_mentions: p.forPrivateMentions,
  for_limited_accounts: p.forLimitedAccounts,
  summary: summary(p),
});
const v1 = (p: NotificationPolicy) => ({
  filter_not_following: p.forNotFollowing !== 'accept',
  filter_not_followers: p.forNotFollowers !== 'accept',
  filter_new_accounts: p.forNewAccounts !== 'accept',
  filter_private_mentions: p.forPrivateMentions !== 'accept',
  summary: summary(p),
});

export function notificationRequestRoutes(d: NotificationRequestApiDeps): Route[] {
  const render = async (items: readonly NotificationRequest[], viewer: string) => {
    const accounts = new Map((await d.accounts.byIds([...new Set(items.map((r) => r.fromAccountId))])).map((a) => [a.id, a]));
    const statusIds = items.map((r) => r.lastStatusId).filter((x): x is string => x !== null);
    const readable = await d.statuses.visibleAmong(statusIds, viewer);
    const statusViews = new Map((await d.statusViews.many(readable, viewer)).map((s) => [String((s as { id: unknown }).id), s]));
    const accountViews = new Map((await d.accountViews.many([...accounts.values()])).map((a) => [String((a as unknown as { id: unknown }).id), a] as const));
    return items.flatMap((r) => {
      const account = accountViews.get(r.fromAccountId);
      if (!account) return [];
      const last = r.lastStatusId ? statusViews.get(r.lastStatusId) : undefined;
      return [
        {
          id: r.id,
          created_at: r.createdAt.toISOString(),
          updated_at: r.updatedAt.toISOString(),
          account,
          notifications_count: String(r.notificationsCount),
          ...(last ? { last_status: last } : {}),
        },
      ];
    });
  };
  const idOf = (req: Request): string => {
    const v = req.params['id']!;
    if (!isId(v)) throw Errors.notFound();
    return v;
  };
  const idsOf = (req: Request): string[] => {
    const p = Ids.safeParse(given({ ...req.query, ...req.fields }));
    if (!p.success) throw invalid(p.error);
    return p.data.id;
  };
  const read = { scopes: ['read:notifications'], member: true } as const;
  const write = { scopes: ['write:notifications'], member: true } as const;

  return [
    route({
      method: 'GET',
      path: '/api/v2/notifications/policy',
      auth: read,
      handler: async (_req, who) => json(200, v2(await d.requests.policy(who.record.user.accountId))),
    }),
    // Rails' `resource ... only: :update` answers PUT and PATCH alike (masto sends PUT).
    ...updateRoute({
      path: '/api/v2/notifications/policy',
      auth: write,
      body: true,
      handler: async (req, who) => {
        const p = PolicyV2.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const b = p.data;
        return json(
          200,
          v2(
            await d.requests.updatePolicy(who.record.user.accountId, {
              forNotFollowing: b.for_not_following,
              forNotFollowers: b.for_not_followers,
              forNewAccounts: b.for_new_accounts,
              forPrivateMentions: b.for_private_mentions,
              forLimitedAccounts: b.for_limited_accounts,
            }),
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/notifications/policy',
      auth: read,
      handler: async (_req, who) => json(200, v1(await d.requests.policy(who.record.user.accountId))),
    }),
    ...updateRoute({
      path: '/api/v1/notifications/policy',
      auth: write,
      body: true,
      handler: async (req, who) => {
        const p = PolicyV1.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const b = p.data;
        return json(
          200,
          v1(
            await d.requests.updatePolicy(who.record.user.accountId, {
              forNotFollowing: b.filter_not_following,
              forNotFollowers: b.filter_not_followers,
              forNewAccounts: b.filter_new_accounts,
              forPrivateMentions: b.filter_private_mentions,
            }),
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/notifications/requests',
      auth: read,
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const page = pageQuery(req.query, 40, 80);
        const items = await d.requests.list(viewer, page);
        return json(
          200,
          await render(items, viewer),
          linkHeader(
            d.baseUrl + req.path,
            page,
            items.map((r) => r.id),
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/notifications/requests/merged',
      auth: read,
      // Accepting merges before it answers, so nothing is ever left to merge (Mastodon counts pending workers).
      handler: async () => json(200, { merged: true }),
    }),
    route({
      method: 'POST',
      path: '/api/v1/notifications/requests/accept',
      auth: write,
      body: true,
      handler: async (req, who) => {
        await d.requests.accept(who.record.user.accountId, idsOf(req));
        return json(200, {});
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/notifications/requests/dismiss',
      auth: write,
      body: true,
      handler: async (req, who) => {
        await d.requests.dismiss(who.record.user.accountId, idsOf(req));
        return json(200, {});
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/notifications/requests/:id',
      auth: read,
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const r = await d.requests.one(viewer, idOf(req));
        const [entity] = r ? await render([r], viewer) : [];
        if (!entity) throw Errors.notFound();
        return json(200, entity);
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/notifications/requests/:id/accept',
      auth: write,
      body: true,
      handler: async (req, who) => {
        if ((await d.requests.accept(who.record.user.accountId, [idOf(req)])) === 0) throw Errors.notFound();
        return json(200, {});
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/notifications/requests/:id/dismiss',
      auth: write,
      body: true,
      handler: async (req, who) => {
        if ((await d.requests.dismiss(who.record.user.accountId, [idOf(req)])) === 0) throw Errors.notFound();
        return json(200, {});
      },
    }),
  ];
}
