// The moderators' report pages: every report (open ones first) and one report with the reported posts, where a
// moderator takes it on or lets it go, resolves or reopens it. For members whose role may manage reports.
import { htmlToPlainText } from '../text/plain-text.js';
import { Errors } from '../errors.js';
import { redirect } from '../http/respond.js';
import { type Route, route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import type { Report, ReportStore } from '../store/reports.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { WebDeps } from './deps.js';
import { html, type Html } from './html.js';
import { csrfField, formPost, pageReply, staff } from './layout.js';
import type { PageContext } from './session.js';

export interface ReportPageDeps {
  readonly reports: ReportStore;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
}

// The page lists this many; the API pages through all of them.
const PAGE_SIZE = 200;

const ACTIONS = ['assign_to_self', 'unassign', 'resolve', 'reopen'] as const;

export function reportPageRoutes(d: WebDeps, r: ReportPageDeps): Route[] {
  const title = d.config.instance.title;
  const handle = (a: Account | undefined) => (a ? `@${a.username}@${a.domain ?? d.config.localDomain}` : '(gone)');
  const when = (t: Date) => t.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const accountsOf = async (reports: readonly Report[]) => {
    const ids = new Set(
      reports.flatMap((x) => [x.accountId, x.targetAccountId, x.assignedAccountId, x.actionTakenByAccountId]).filter((id): id is string => id !== null),
    );
    return new Map((await r.accounts.byIds([...ids])).map((a) => [a.id, a]));
  };
  const state = (x: Report, accounts: Map<string, Account>): string =>
    x.actionTakenAt
      ? `Resolved ${when(x.actionTakenAt)}${x.actionTakenByAccountId ? ` by ${handle(accounts.get(x.actionTakenByAccountId))}` : ''}`
      : `Open${x.assignedAccountId ? `, assigned to ${handle(accounts.get(x.assignedAccountId))}` : ''}`;
  // Posts are shown as text: a moderator's page carries no markup from the reported account.
  const postText = (s: Status): Html[] =>
    s.content
      .split(/<\/p>|<br\s*\/?>/i)
      .map(htmlToPlainText)
      .filter((p) => p !== '')
      .map((p) => html`<p>${p}</p>`);
  const button = (ctx: PageContext, id: string, action: (typeof ACTIONS)[number], label: string, secondary = false) =>
    html`<form class="inline" method="post" action="/admin/reports/${id}/${action}">${csrfField(ctx)}<button${secondary ? html` class="secondary"` : ''} type="submit">${label}</button></form>`;

  const STAFF = staff('manageReports');
  return [
    route({
      method: 'GET',
      path: '/admin/reports',
      auth: STAFF,
      handler: async (_req, ctx) => {
        const reports = await r.reports.queue(PAGE_SIZE);
        const accounts = await accountsOf(reports);
        return pageReply(
          200,
          'Reports',
          html`
          <nav><strong>Reports</strong><a href="/">Home</a></nav>
          ${
            reports.length === 0
              ? html`<p id="no-reports">No reports have been filed.</p>`
              : html`
          <table><thead><tr><th>Reported</th><th>By</th><th>Category</th><th>State</th></tr></thead><tbody>
          ${reports.map(
            (x) => html`<tr data-report-id="${x.id}" data-state="${x.actionTakenAt ? 'resolved' : 'open'}">
            <td><a href="/admin/reports/${x.id}">${handle(accounts.get(x.targetAccountId))}</a></td>
            <td>${handle(accounts.get(x.accountId))}</td><td>${x.category}</td><td>${state(x, accounts)}</td></tr>`,
          )}
          </tbody></table>`
          }`,
          title,
          ctx,
        );
      },
    }),
    route({
      method: 'GET',
      path: '/admin/reports/:id',
      auth: STAFF,
      handler: async (req, ctx) => {
        const id = req.params['id']!;
        const x = isId(id) ? await r.reports.byId(id) : undefined;
        if (!x) throw Errors.notFound();
        const accounts = await accountsOf([x]);
        const byId = new Map((await r.statuses.byIds(x.statusIds)).map((s) => [s.id, s]));
        const posts = x.statusIds.flatMap((sid) => byId.get(sid) ?? []);
        const mine = x.assignedAccountId === ctx.user.accountId;
        return pageReply(
          200,
          `Report ${x.id}`,
          html`
          <nav><strong>Report ${x.id}</strong><a href="/admin/reports">All reports</a></nav>
          <table id="report"><tbody>
            <tr><th>Reported account</th><td id="target">${handle(accounts.get(x.targetAccountId))}</td></tr>
            <tr><th>Reported by</th><td id="reporter">${handle(accounts.get(x.accountId))}</td></tr>
            <tr><th>Category</th><td>${x.category}</td></tr>
            <tr><th>Filed</th><td>${when(x.createdAt)}${x.forwarded ? ' (forwarded to their server)' : ''}</td></tr>
            <tr><th>State</th><td id="state">${state(x, accounts)}</td></tr>
          </tbody></table>
          <h2>Comment</h2>
          ${x.comment ? html`<p id="comment">${x.comment}</p>` : html`<p id="comment">(none)</p>`}
          <h2>Reported posts</h2>
          ${
            posts.length === 0
              ? html`<p>None.</p>`
              : posts.map(
                  (s) => html`<article class="reported-post" data-status-id="${s.id}">
            <p><small>${when(s.createdAt)}${s.deletedAt ? ' · deleted since' : ''}${s.url ? html` · <a href="${s.url}" rel="noopener noreferrer">original</a>` : ''}</small></p>
            ${s.spoilerText ? html`<p><strong>CW: ${s.spoilerText}</strong></p>` : ''}${postText(s)}</article>`,
                )
          }
          <p>
            ${x.actionTakenAt ? button(ctx, x.id, 'reopen', 'Reopen') : button(ctx, x.id, 'resolve', 'Resolve')}
            ${mine ? button(ctx, x.id, 'unassign', 'Unassign', true) : button(ctx, x.id, 'assign_to_self', 'Assign to me', true)}
          </p>`,
          title,
          ctx,
        );
      },
    }),
    ...ACTIONS.map((action) =>
      route({
        ...formPost(d.config, `/admin/reports/:id/${action}`),
        auth: STAFF,
        handler: async (req, ctx) => {
          const id = req.params['id']!;
          if (!isId(id)) throw Errors.notFound();
          const me = ctx.user.accountId;
          const done =
            action === 'resolve'
              ? await r.reports.resolve(id, me)
              : action === 'reopen'
                ? await r.reports.reopen(id)
                : await r.reports.assign(id, action === 'assign_to_self' ? me : null);
          if (!done) throw Errors.notFound();
          d.log.info({ report: id, by: me, action }, 'report handled');
          return redirect(`/admin/reports/${id}`, undefined, 303);
        },
      }),
    ),
  ];
}
