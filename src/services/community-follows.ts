// A member following a community (a Group account filed in lemmy_communities) through the ordinary follow service:
// a Follow to the Group, pending until its Accept. The community service (CommunityActions) does this and more; this
// is the follow alone, for a node wired without it.
import { Errors } from '../errors.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { LinkAggregatorStore } from '../store/link-aggregator.js';
import type { CommunityActions, SubscribedType } from './community-actions.js';
import type { FollowService } from './follow-service.js';

export interface CommunityFollowDeps {
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly links: LinkAggregatorStore;
  readonly followService: FollowService;
}

export function communityFollows(d: CommunityFollowDeps): Pick<CommunityActions, 'follow'> {
  return {
    async follow(me: Account, communityId: number, follow: boolean): Promise<SubscribedType> {
      const accountId = await d.links.communityAccount(communityId);
      const group = accountId === undefined ? undefined : await d.accounts.byId(accountId);
      if (!group || group.deletedAt || group.suspendedAt) throw Errors.lemmy(404, 'couldnt_find_community');
      if (follow) await d.followService.follow(me, group);
      else await d.followService.unfollow(me, group);
      if (await d.follows.find('follows', me.id, group.id)) return 'Subscribed';
      return (await d.follows.find('follow_requests', me.id, group.id)) ? 'Pending' : 'NotSubscribed';
    },
  };
}
