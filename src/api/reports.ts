// Reports: a member reports an account (and some of its statuses they can see) to the moderators; for a remote
// account the report can be forwarded to its server as a Flag from our instance actor. Moderators are notified.
import { z } from 'zod';
import { Errors } from '../errors.js';
import { flagActivity } from '../federation/activities.js';
import type { LocalActors } from '../federation/local-actors.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { Publisher } from '../federation/publisher.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { Notifier } from '../store/notifications.js';
import { reportEntity } from '../entities/report.js';
import type { InstanceRuleStore } from '../store/instance-rules.js';
import { REPORT_CATEGORIES, type ReportStore } from '../store/reports.js';
import { isId } from '../store/ids.js';
import type { StatusStore } from '../store/statuses.js';
import type { AccountViews } from '../views/account-views.js';
import { given, idParam, invalid, railsBool } from './params.js';

const id = idParam;

const ReportBody = z.object({
  account_id: id,
  status_ids: z
    .union([id, z.array(id).max(100)])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional(),
  comment: z.string().max(1000, 'Comment is too long (maximum is 1000 characters)').optional(),
  forward: railsBool.optional(),
  category: z.enum(REPORT_CATEGORIES).optional(),
  rule_ids: z
    .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()])).max(100)])
    .transform((v) => [...new Set((Array.isArray(v) ? v : [v]).map(String))])
    .optional(),
});

export interface ReportApiDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly reports: ReportStore;
  readonly accountViews: AccountViews;
  readonly publisher: Publisher;
  readonly actors: LocalActors;
  readonly uris: LocalUris;
  readonly notifier: Notifier;
  readonly rules: InstanceRuleStore;
}

export function reportRoutes(d: ReportApiDeps): Route[] {
  return [
    route({
      method: 'POST',
      path: '/api/v1/reports',
      auth: { scopes: ['write:reports'], member: true },
      body: true,
      handler: async (req, who) => {
        const me = who.record.user.accountId;
        const p = ReportBody.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const target = await d.accounts.byId(p.data.account_id);
        if (!target || target.deletedAt || target.instanceActor || (target.domain === null && !target.hasUser)) throw Errors.notFound();
        if (target.id === me) throw Errors.validation('You cannot report yourself');
        // Only the reported account's statuses that the member may read; any other id is not found (as Mastodon's
        // ReportService, whose find raises RecordNotFound), and nothing is stored.
        const wanted = [...new Set(p.data.status_ids ?? [])];
        const found = new Map((await d.statuses.visibleAmong(wanted, me)).filter((s) => s.accountId === target.id).map((s) => [s.id, s]));
        const statuses = wanted.flatMap((id) => found.get(id) ?? []);
        if (statuses.length !== wanted.length) throw Errors.notFound();
        // Mastodon's ReportService: rules cited make it a violation, and each must be one of the server's rules.
        const ruleIds = p.data.rule_ids?.length ? p.data.rule_ids : null;
        if (ruleIds && (!ruleIds.every(isId) || (await d.rules.byIds(ruleIds)).length !== ruleIds.length))
          throw Errors.validation('Rule ids does not reference valid rules');
        const forward = (p.data.forward ?? false) && target.domain !== null;
        const report = (await d.reports.create({
          accountId: me,
          targetAccountId: target.id,
          statusIds: statuses.map((s) => s.id),
          comment: p.data.comment ?? '',
          category: ruleIds ? 'violation' : (p.data.category ?? 'other'),
          forwarded: forward,
          ruleIds,
        }))!;
        await d.notifier.reportFiled(report);
        if (forward) {
          const uris = statuses.map((s) => s.uri ?? d.uris.status(target.username, s.id));
          await d.publisher.sendTo(flagActivity(d.uris, target, uris, report.comment, report.id), d.actors.instanceActor, target);
        }
        return json(200, reportEntity(report, await d.accountViews.one(target)));
      },
    }),
  ];
}
