// What the account and relationship routes share, gathered once in routes.ts.
import type { Config } from '../../config/schema.js';
import type { Logger } from '../log.js';
import type { AuthEventListener } from '../store/auth-events.js';
import type { FollowService } from '../services/follow-service.js';
import type { RemoteActors } from '../federation/remote-actors.js';
import type { AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { UserStore } from '../store/users.js';
import type { AccountViews } from '../views/account-views.js';

/** What the account and relationship routes share. */
export interface AccountApiDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly authEvents: AuthEventListener;
  readonly users: UserStore;
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly remote: RemoteActors;
  readonly followService: FollowService;
  readonly views: AccountViews;
}
