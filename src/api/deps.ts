// What the OAuth endpoints, the authorization pages and authenticated API routes share, gathered once in app.ts.
import type { Config } from '../../config/schema.js';
import type { Clock } from '../clock.js';
import type { Throttle } from '../http/throttle.js';
import type { Logger } from '../log.js';
import type { BearerAuth } from '../http/auth.js';
import type { AuthEventListener } from '../store/auth-events.js';
import type { AppStore } from '../store/oauth-apps.js';
import type { CodeStore } from '../store/oauth-codes.js';
import type { TokenStore } from '../store/oauth-tokens.js';
import type { FollowService } from '../services/follow-service.js';
import type { RemoteActors } from '../federation/remote-actors.js';
import type { AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { UserStore } from '../store/users.js';
import type { AccountViews } from './account-views.js';

export interface OAuthDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  readonly apps: AppStore;
  readonly codes: CodeStore;
  readonly tokens: TokenStore;
  readonly bearer: BearerAuth;
  readonly authEvents: AuthEventListener;
  readonly appRegistrationThrottle: Throttle;
}

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
