// What the adapter's site, sign-in, people, community and search routes share (/api/v3; api-groups.ts builds it,
// routes.ts adds the sign-in's throttle and token store), and who is calling as Lemmy says it.
import type { Config } from '../../../config/schema.js';
import { Errors } from '../../errors.js';
import type { MemberPrincipal, Principal } from '../../http/types.js';
import type { Logger } from '../../log.js';
import type { CommunityActions } from '../../services/community-actions.js';
import type { Account, AccountStore } from '../../store/accounts.js';
import type { LinkAggregatorStore } from '../../store/link-aggregator.js';
import type { LinkSiteStore } from '../../store/link-site.js';
import type { StatusStore } from '../../store/statuses.js';
import type { CommentViews } from '../../views/lemmy/comment-views.js';
import type { LemmyObjects } from '../../views/lemmy/objects.js';
import type { PersonViews } from '../../views/lemmy/person-views.js';
import type { PostViews } from '../../views/lemmy/post-views.js';
import type { SiteView } from '../../views/lemmy/site-view.js';
import type { Finder } from './finder.js';

export interface LemmySiteDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly links: LinkAggregatorStore;
  readonly site: LinkSiteStore;
  readonly finder: Finder;
  readonly objects: LemmyObjects;
  readonly people: PersonViews;
  readonly postViews: PostViews;
  readonly commentViews: CommentViews;
  readonly siteView: SiteView;
  /** Following a community (the community service, CommunityActions). */
  readonly communities: Pick<CommunityActions, 'follow'>;
}

/** The member behind a token, or Lemmy's 401 `not_logged_in` for an anonymous call. */
export function lemmyMember(who: MemberPrincipal | null): MemberPrincipal {
  if (who === null) throw Errors.lemmy(401, 'not_logged_in');
  return who;
}

/** The viewing member's account id, or null (anonymous, or an application token). */
export function viewerOf(who: Principal | null): string | null {
  return who?.record.user?.accountId ?? null;
}

/** The signed-in member's account (one deleted since: not logged in). */
export async function memberAccount(accounts: AccountStore, who: MemberPrincipal): Promise<Account> {
  const a = await accounts.byId(who.record.user.accountId);
  if (!a) throw Errors.lemmy(401, 'not_logged_in');
  return a;
}
