// A member blocking a whole domain (Mastodon's block_domain! and AfterBlockDomainFromAccountService): the block is
// stored, the member's notifications from the domain go, the member stops following its accounts (each told with an
// Undo{Follow}), its accounts following the member are removed and each told with a Reject{Follow}, and its waiting
// follow requests are rejected the same way. What the block hides from reads is in store/visibility.ts.
import { answerFollowActivity } from '../federation/activities.js';
import type { Publisher } from '../federation/publisher.js';
import type { AccountDomainBlockStore } from '../store/account-domain-blocks.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { FollowService } from './follow-service.js';

export interface DomainBlockServiceDeps {
  readonly blocks: AccountDomainBlockStore;
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly followService: FollowService;
  readonly publisher: Publisher;
  readonly uris: LocalUris;
}

export class DomainBlockService {
  constructor(private readonly d: DomainBlockServiceDeps) {}

  /** Blocks `domain` (already normalised) for `me` and severs every follow between them. */
  async block(me: Account, domain: string): Promise<void> {
    await this.d.blocks.block(me.id, domain);
    const r = await this.d.blocks.relations(me.id, domain);
    const accounts = new Map((await this.d.accounts.byIds([...r.following, ...r.followers, ...r.requesters])).map((a) => [a.id, a]));
    for (const id of r.following) {
      const target = accounts.get(id);
      if (target) await this.d.followService.unfollow(me, target);
    }
    for (const id of r.requesters) {
      const requester = accounts.get(id);
      if (requester) await this.d.followService.reject(me, requester);
    }
    for (const id of r.followers) {
      const follower = accounts.get(id);
      if (follower) await this.rejectFollower(me, follower);
    }
  }

  async unblock(me: Account, domain: string): Promise<void> {
    await this.d.blocks.unblock(me.id, domain);
  }

  /** Ends a follower's follow and tells its server with a Reject of the Follow it sent (Mastodon's reject_follow!). */
  private async rejectFollower(me: Account, follower: Account): Promise<void> {
    const row = await this.d.follows.remove('follows', follower.id, me.id);
    if (!row || follower.domain === null) return;
    await this.d.publisher.sendTo(answerFollowActivity('Reject', this.d.uris, me, follower, row.uri, row.id), me, follower);
  }
}
