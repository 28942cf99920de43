// Mastodon's Admin::Reports API: moderators list reports (unresolved unless resolved=true; by reporter or reported
// account; Link-header pages), read one, change its category, take it on or let it go, resolve and reopen it.
// Every route needs an admin:*:reports scope and a member whose role may manage reports.
import { z } from 'zod';
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Route, updateRoute } from '../http/types.js';
import { memberIdOf } from './callers.js';
import type { Logger } from '../log.js';
import { isId } from '../store/ids.js';
import type { InstanceRuleStore } from '../store/instance-rules.js';
import { REPORT_CATEGORIES, type Report, type ReportStore } from '../store/reports.js';
import { given, idParam, railsBool } from './params.js';
import type { ReportViews } from '../views/report-views.js';

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
  rule_ids: z
    .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional(),
});

export interface AdminReportApiDeps {
  readonly baseUrl: string;
  readonly log: Logger;
  readonly reports: ReportStore;
  readonly views: ReportViews;
  readonly rules: InstanceRuleStore;
}

export function adminReportRoutes(d: AdminReportApiDeps): Route[] {
  const reportId = (req: Request): string => {
    const id = req.params['id']!;
    if (!isId(id)) throw Errors.notFound();
    return id;
  };
  const answer = async (r: Report | undefined, me: string) => {
    if (!r) throw Errors.notFound();
    return json(200, await d.views.admin(r, me));
  };

  /** The handler of POST /api/v1/admin/reports/:id/<action>: run the action as the moderator, answer the report. */
  const act = (action: string, run: (id: string, me: string) => Promise<Report | undefined>) => async (req: Request, who: MemberPrincipal) => {
    const me = memberIdOf(who);
    const id = reportId(req);
    const r = await run(id, me);
    if (r) d.log.info({ report: id, by: me, action }, 'report handled');
    return answer(r, me);
  };

  return [
    route({
      method: 'GET',
      path: '/api/v1/admin/reports',
      auth: { scopes: ['admin:read:reports'], member: true, permission: 'manageReports' },
      handler: async (req, who) => {
        const me = memberIdOf(who);
        const q = ListQuery.safeParse(given(req.query));
        if (!q.success) throw Errors.badRequest(`${q.error.issues[0]!.path.join('.')} is invalid`);
        const page = pageQuery(req.query, DEFAULT_LIMIT, MAX_LIMIT);
        const reports = await d.reports.list({ resolved: q.data.resolved, accountId: q.data.account_id, targetAccountId: q.data.target_account_id }, page);
        const keep = {
          resolved: typeof req.query['resolved'] === 'string' ? req.query['resolved'] : undefined,
          account_id: q.data.account_id,
          target_account_id: q.data.target_account_id,
        };
        return json(
          200,
          await d.views.adminMany(reports, me),
          timelineLinks(
            d.baseUrl + req.path,
            page,
            reports.map((r) => r.id),
            keep,
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/admin/reports/:id',
      auth: { scopes: ['admin:read:reports'], member: true, permission: 'manageReports' },
      handler: async (req, who) => {
        const me = memberIdOf(who);
        return answer(await d.reports.byId(reportId(req)), me);
      },
    }),
    ...updateRoute({
      path: '/api/v1/admin/reports/:id',
      auth: { scopes: ['admin:write:reports'], member: true, permission: 'manageReports' },
      body: true,
      handler: async (req, who) => {
        const me = memberIdOf(who);
        const id = reportId(req);
        const p = UpdateBody.safeParse(given(req.fields));
        if (!p.success) throw Errors.validation(p.error.issues[0]!.message);
        // Each id must name one of the server's rules (Mastodon's message for ids that name none).
        const ruleIds = p.data.rule_ids && [...new Set(p.data.rule_ids.map(String))];
        if (ruleIds?.length && (!ruleIds.every(isId) || (await d.rules.byIds(ruleIds)).length !== ruleIds.length))
          throw Errors.validation('Rule ids does not reference valid rules');
        if (!(await d.reports.byId(id))) throw Errors.notFound();
        if (ruleIds) await d.reports.setRules(id, ruleIds);
        const r = p.data.category ? await d.reports.setCategory(id, p.data.category) : await d.reports.byId(id);
        if (r && (p.data.category || ruleIds)) d.log.info({ report: id, by: me, category: p.data.category, rules: ruleIds }, 'report updated');
        return answer(r, me);
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/reports/:id/assign_to_self',
      auth: { scopes: ['admin:write:reports'], member: true, permission: 'manageReports' },
      body: true,
      handler: act('assign_to_self', (id, me) => d.reports.assign(id, me)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/reports/:id/unassign',
      auth: { scopes: ['admin:write:reports'], member: true, permission: 'manageReports' },
      body: true,
      handler: act('unassign', (id) => d.reports.assign(id, null)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/reports/:id/resolve',
      auth: { scopes: ['admin:write:reports'], member: true, permission: 'manageReports' },
      body: true,
      handler: act('resolve', (id, me) => d.reports.resolve(id, me)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/reports/:id/reopen',
      auth: { scopes: ['admin:write:reports'], member: true, permission: 'manageReports' },
      body: true,
      handler: act('reopen', (id) => d.reports.reopen(id)),
    }),
  ];
}
