// Reports as API entities: the Report a reporter (and an admin.report notification) shows, and the Admin::Report
// moderators read, with its accounts, members and statuses loaded once per page.
import { adminReportEntity, reportEntity, type AdminAccountEntity } from '../entities/report.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { ruleEntity } from '../entities/instance-extras.js';
import type { InstanceRuleStore } from '../store/instance-rules.js';
import type { Report } from '../store/reports.js';
import type { StatusStore } from '../store/statuses.js';
import type { AccountViews } from './account-views.js';
import type { AdminAccountViews } from './admin-account-views.js';
import type { StatusViews } from './status-views.js';

export class ReportViews {
  constructor(
    private readonly accounts: AccountStore,
    private readonly adminAccounts: AdminAccountViews,
    private readonly statuses: StatusStore,
    private readonly accountViews: AccountViews,
    private readonly statusViews: StatusViews,
    private readonly rules: InstanceRuleStore,
  ) {}

  /** Reports as the Report entity, by id; a report whose target is gone is left out. */
  async plain(reports: readonly Report[]): Promise<Map<string, ReturnType<typeof reportEntity>>> {
    const targets = await this.accounts.byIds([...new Set(reports.map((r) => r.targetAccountId))]);
    const rendered = await this.accountViews.many(targets);
    const byId = new Map(targets.map((a, i) => [a.id, rendered[i]]));
    return new Map(
      reports.flatMap((r) => {
        const target = byId.get(r.targetAccountId);
        return target ? [[r.id, reportEntity(r, target)] as const] : [];
      }),
    );
  }

  async admin(r: Report, viewerId: string) {
    return (await this.adminMany([r], viewerId))[0]!;
  }

  /**
   * Admin::Report entities. The reported statuses are shown to the moderator whatever their visibility and even
   * when deleted since (they are the evidence), rendered as the moderator would see them otherwise.
   */
  async adminMany(reports: readonly Report[], viewerId: string) {
    const ids = new Set<string>();
    for (const r of reports) {
      ids.add(r.accountId).add(r.targetAccountId);
      if (r.assignedAccountId) ids.add(r.assignedAccountId);
      if (r.actionTakenByAccountId) ids.add(r.actionTakenByAccountId);
    }
    const [accounts, statuses, rules] = await Promise.all([
      this.accounts.byIds([...ids]),
      this.statuses.byIds([...new Set(reports.flatMap((r) => r.statusIds))]),
      this.rules.byIds([...new Set(reports.flatMap((r) => r.ruleIds ?? []))]),
    ]);
    const ruleEntities = rules.map(ruleEntity);
    const rendered = await this.adminAccounts.many(accounts);
    const admins = new Map<string, AdminAccountEntity>(accounts.map((a: Account, i) => [a.id, rendered[i]!]));
    const statusEntities = new Map((await this.statusViews.many(statuses, viewerId)).map((e) => [e.id, e]));
    return reports.flatMap((r) => {
      const account = admins.get(r.accountId);
      const targetAccount = admins.get(r.targetAccountId);
      if (!account || !targetAccount) return [];
      return [
        adminReportEntity(r, {
          account,
          targetAccount,
          assignedAccount: (r.assignedAccountId && admins.get(r.assignedAccountId)) || null,
          actionTakenByAccount: (r.actionTakenByAccountId && admins.get(r.actionTakenByAccountId)) || null,
          statuses: r.statusIds.flatMap((id) => statusEntities.get(id) ?? []),
          rules: ruleEntities.filter((x) => r.ruleIds?.includes(x.id)),
        }),
      ];
    });
  }
}
