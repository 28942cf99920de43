// Notifications as Mastodon's Notification entities, for the REST list and for streaming.
import type { Notification } from '../store/notifications.js';
import type { RenderBundle } from '../store/render-bundle.js';
import type { ReportStore } from '../store/reports.js';
import type { ReportViews } from './report-views.js';
import type { StatusViews } from './status-views.js';
import { statusJson } from './status-json.js';

export interface NotificationViewDeps {
  readonly statusViews: StatusViews;
  readonly reports: ReportStore;
  readonly reportViews: ReportViews;
}

/** What a page of notifications shows, each with its sender, status and report as loaded. */
async function loadNotifications(d: NotificationViewDeps, items: readonly Notification[], viewerId: string, dynamics: RenderBundle | null = null) {
  // Senders and statuses in one statement with everything the statuses show (the page's render bundle).
  const { statuses: statusEntities, accounts } = await d.statusViews.page(
    [...new Map(items.flatMap((n) => (n.statusRef ? [[n.statusRef.id, n.statusRef] as const] : []))).values()],
    [...new Set(items.map((n) => n.fromAccountId))],
    viewerId,
    'notifications',
    dynamics,
  );
  const reportIds = [...new Set(items.flatMap((n) => (n.reportId ? [n.reportId] : [])))];
  const reports = reportIds.length ? await d.reportViews.plain(await d.reports.byIds(reportIds)) : new Map();
  return items.flatMap((n) => {
    const account = accounts.get(n.fromAccountId);
    if (!account) return [];
    const status = n.statusId ? statusEntities.get(n.statusId) : undefined;
    if (n.statusId && !status) return [];
    const report = n.reportId ? reports.get(n.reportId) : undefined;
    if (n.reportId && !report) return [];
    return [{ n, account, status, report }];
  });
}

/**
 * Notifications as entities (the store has left out those whose account is gone or status unreadable; one whose
 * status the member's filters hide in notifications is left out here).
 */
export async function renderNotifications(d: NotificationViewDeps, items: readonly Notification[], viewerId: string) {
  return (await loadNotifications(d, items, viewerId)).map(({ n, account, status, report }) => ({
    id: n.id,
    type: n.type,
    created_at: n.createdAt.toISOString(),
    group_key: n.groupKey ?? `ungrouped-${n.id}`,
    account: account.entity(),
    ...(status ? { status } : {}),
    ...(report ? { report } : {}),
  }));
}

/**
 * The same page as JSON text, as JSON.stringify(renderNotifications(…)) writes it, but with each sender written from
 * its kept JSON (PageAccount.json) instead of made as an object and serialised again (issue 19: forty accounts a page).
 * As pieces, one a notification, sent unjoined (http/text-pieces.ts).
 */
export async function renderNotificationsText(
  d: NotificationViewDeps,
  items: readonly Notification[],
  viewerId: string,
  dynamics: RenderBundle | null = null,
): Promise<string[]> {
  // A page is mostly favourites and boosts of a few statuses: each is written once.
  const statusText = new Map<string, string>();
  const parts = (await loadNotifications(d, items, viewerId, dynamics)).map(({ n, account, status, report }, i) => {
    // As JSON.stringify writes the entity's first keys (an id is digits; the rest is escaped as it would be).
    let text = `${i ? ',' : '['}{"id":"${n.id}","type":${JSON.stringify(n.type)},"created_at":"${n.createdAt.toISOString()}","group_key":${JSON.stringify(n.groupKey ?? `ungrouped-${n.id}`)},"account":${account.json()}`;
    if (status) {
      let st = statusText.get(status.id);
      if (st === undefined) statusText.set(status.id, (st = statusJson(status)));
      text += `,"status":${st}`;
    }
    if (report) text += `,"report":${JSON.stringify(report)}`;
    return `${text}}`;
  });
  if (parts.length === 0) parts.push('[');
  parts.push(']');
  return parts;
}
