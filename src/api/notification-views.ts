// Notifications as Mastodon's Notification entities, for the REST list and for streaming.
import type { AccountStore } from '../store/accounts.js';
import type { Notification } from '../store/notifications.js';
import type { ReportStore } from '../store/reports.js';
import type { StatusStore } from '../store/statuses.js';
import type { AccountViews } from './account-views.js';
import type { ReportViews } from './report-views.js';
import type { StatusViews } from './status-views.js';

export interface NotificationViewDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
  readonly reports: ReportStore;
  readonly reportViews: ReportViews;
}

/** Notifications as entities (the store has left out those whose account is gone or status unreadable). */
export async function renderNotifications(d: NotificationViewDeps, items: readonly Notification[], viewerId: string) {
  const senders = await d.accounts.byIds([...new Set(items.map((n) => n.fromAccountId))]);
  const accountEntities = new Map(senders.map((a, i) => [a.id, i]));
  const rendered = await d.accountViews.many(senders);
  const statuses = await d.statuses.byIds([...new Set(items.flatMap((n) => (n.statusId ? [n.statusId] : [])))]);
  const statusEntities = new Map((await d.statusViews.many(statuses, viewerId)).map((e) => [e.id, e]));
  const reportIds = [...new Set(items.flatMap((n) => (n.reportId ? [n.reportId] : [])))];
  const reports = reportIds.length ? await d.reportViews.plain(await d.reports.byIds(reportIds)) : new Map();
  return items.flatMap((n) => {
    const i = accountEntities.get(n.fromAccountId);
    if (i === undefined) return [];
    const status = n.statusId ? statusEntities.get(n.statusId) : undefined;
    if (n.statusId && !status) return [];
    const report = n.reportId ? reports.get(n.reportId) : undefined;
    if (n.reportId && !report) return [];
    return [
      {
        id: n.id,
        type: n.type,
        created_at: n.createdAt.toISOString(),
        group_key: n.groupKey ?? `ungrouped-${n.id}`,
        account: rendered[i],
        ...(status ? { status } : {}),
        ...(report ? { report } : {}),
      },
    ];
  });
}
