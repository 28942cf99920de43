// What the OAuth endpoints, the authorization pages and authenticated API routes share, gathered once in app.ts.
import type { Config } from '../../config/schema.js';
import type { Clock } from '../clock.js';
import type { Throttle } from '../http/throttle.js';
import type { Logger } from '../log.js';
import type { BearerAuth } from '../oauth/bearer.js';
import type { AuthEventListener } from '../store/auth-events.js';
import type { AppStore } from '../store/oauth-apps.js';
import type { CodeStore } from '../store/oauth-codes.js';
import type { TokenStore } from '../store/oauth-tokens.js';

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
