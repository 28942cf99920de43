// Mastodon's Admin::Reports API: moderators list reports (unresolved unless resolved=true; by reporter or reported
// account; Link-header pages), read one, change its category, take it on or let it go, resolve and reopen it.
// Every route needs an admin:*:reports scope and a member whose role may manage reports.
import { z } from 'zod';
import { hasPermission } from '../auth/permissions.js';
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import type { Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { BearerAuth, Requirement } from '../http/auth.js';
import { isId } from '../store/ids.js';
import { REPORT_CATEGORIES, type Report, type ReportStore } from '../store/reports.js';
import { given, idParam, railsBool } from './params.js';
import type { ReportViews } from './report-views.js';

const READ: Requirement = { scopes: ['admin:read:reports'], user: true };
const WRITE: Requirement = { scopes: ['admin:write:reports'], user: true };
// Mastodon's LIMIT, and its limit_param's cap of twice that.
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 200;

const ListQuery = z.object({
  resolved: railsBool.optional(),
  account_id: idParam.optional(),
  target_account_id: idParam.optional(),
});

const UpdateBody = z.object({
  category: z.enum(REPORT_CATEGORIES, { error: `Category must be one of ${REPORT_CATEGORIES.join(', ')}` }).optional(),
  rule_ids: z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))]).transform((v) => (Array.isArray(v) ? v : [v])).optional(),
});

export interface AdminReportApiDeps {
  readonly baseUrl: string;
  readonly log: Logger;
  readonly bearer: BearerAuth;
  readonly reports: ReportStore;
  readonly views: ReportViews;
}

export function adminReportRoutes(d: AdminReportApiDeps): Route[] {
  /** The moderator's account id: the scope first (403 outside it), then the role's Manage reports permission. */
  const moderator = async (req: Request, need: Requirement): Promise<string> => {
    const user = (await d.bearer.authenticate(req, need)).record.user!;
    if (!hasPermission(user.permissions, 'manageReports')) throw Errors.forbidden();
    return user.accountId;
  };
  const reportId = (req: Request): string => {
    const id = req.params['id']!;
    if (!isId(id)) throw Errors.notFound();
    return id;
  };
  const answer = async (r: Report | undefined, me: string) => {
    if (!r) throw Errors.notFound();
    return json(200, await d.views.admin(r, me));
  };

  const actions: Record<string, (id: string, me: string) => Promise<Report | undefined>> = {
    assign_to_self: (id, me) => d.reports.assign(id, me),
    unassign: (id) => d.reports.assign(id, null),
    resolve: (id, me) => d.reports.resolve(id, me),
    reopen: (id) => d.reports.reopen(id),
  };

  return [
    {
      method: 'GET',
      path: '/api/v1/admin/reports',
      handler: async (req) => {
        const me = await moderator(req, READ);
        const q = ListQuery.safeParse(given(req.query));
        if (!q.success) throw Errors.badRequest(`${q.error.issues[0]!.path.join('.')} is invalid`);
        const page = pageQuery(req.query, DEFAULT_LIMIT, MAX_LIMIT);
        const reports = await d.reports.list({ resolved: q.data.resolved, accountId: q.data.account_id, targetAccountId: q.data.target_account_id }, page);
        const keep = { resolved: typeof req.query['resolved'] === 'string' ? req.query['resolved'] : undefined, account_id: q.data.account_id, target_account_id: q.data.target_account_id };
        return json(200, await d.views.adminMany(reports, me), timelineLinks(d.baseUrl + req.path, page, reports.map((r) => r.id), keep));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/admin/reports/:id',
      handler: async (req) => {
        const me = await moderator(req, READ);
        return answer(await d.reports.byId(reportId(req)), me);
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/admin/reports/:id',
      body: true,
      handler: async (req) => {
        const me = await moderator(req, WRITE);
        const id = reportId(req);
        const p = UpdateBody.safeParse(given(req.fields));
        if (!p.success) throw Errors.validation(p.error.issues[0]!.message);
        // The server has no rules, so no rule id can be valid (Mastodon's message for ids that name no rule).
        if (p.data.rule_ids?.length) throw Errors.validation('Rule ids does not reference valid rules');
        const r = p.data.category ? await d.reports.setCategory(id, p.data.category) : await d.reports.byId(id);
        if (r && p.data.category) d.log.info({ report: id, by: me, category: p.data.category }, 'report updated');
        return answer(r, me);
      },
    },
    ...Object.entries(actions).map(([action, run]): Route => ({
      method: 'POST',
      path: `/api/v1/admin/reports/:id/${action}`,
      body: true,
      handler: async (req) => {
        const me = await moderator(req, WRITE);
        const id = reportId(req);
        const r = await run(id, me);
        if (r) d.log.info({ report: id, by: me, action }, 'report handled');
        return answer(r, me);
      },
    })),
  ];
}
