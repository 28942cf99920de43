// Accounts as API entities, with the follower/following counts we keep (remote accounts show what their server
// declares when it declared anything).
import type { Config } from '../../config/schema.js';
import { type AccountCounts, type AccountEntity, accountEntity, credentialAccountEntity } from '../entities/account.js';
import type { Account } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { LocalUser } from '../store/users.js';

export type { AccountEntity };

export class AccountViews {
  constructor(
    private readonly follows: FollowStore,
    private readonly config: Config,
  ) {}

  async one(a: Account) {
    return (await this.many([a]))[0]!;
  }

  /** The member's own account (verify_credentials), with the follow requests waiting for them. */
  async credential(u: LocalUser) {
    const [counts, own] = await Promise.all([this.follows.countsFor([u.accountId]), this.follows.counts(u.accountId)]);
    return credentialAccountEntity(u, this.config, { ...counts.get(u.accountId)!, requests: own.requests });
  }

  /** An account without counts (the rendered-status cache keeps it; withAccountCounts adds them per page). */
  bare(a: Account): AccountEntity {
    return accountEntity(a, this.config);
  }

  /** An account with counts already loaded (a page's render bundle). */
  withCounts(a: Account, counts: AccountCounts | undefined): AccountEntity {
    return accountEntity(a, this.config, counts);
  }

  async many(list: readonly Account[]) {
    const counts = await this.follows.countsFor(list.map((a) => a.id));
    return list.map((a) => accountEntity(a, this.config, counts.get(a.id)));
  }
}
