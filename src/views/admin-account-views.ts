// Accounts as moderators see them (Admin::Account): each with its member's sign-in side, loaded once per page.
import { adminAccountEntity, type AdminAccountEntity } from '../entities/report.js';
import type { Account } from '../store/accounts.js';
import type { UserStore } from '../store/users.js';
import type { AccountViews } from './account-views.js';

export class AdminAccountViews {
  constructor(
    private readonly users: UserStore,
    private readonly accountViews: AccountViews,
  ) {}

  /** Admin::Account entities, in the order given. */
  async many(accounts: readonly Account[]): Promise<AdminAccountEntity[]> {
    const [members, entities] = await Promise.all([this.users.forModeration(accounts.map((a) => a.id)), this.accountViews.many(accounts)]);
    const memberOf = new Map(members.map((u) => [u.accountId, u]));
    return accounts.map((a, i) => adminAccountEntity(a, memberOf.get(a.id), entities[i]));
  }

  async one(a: Account): Promise<AdminAccountEntity> {
    return (await this.many([a]))[0]!;
  }
}
