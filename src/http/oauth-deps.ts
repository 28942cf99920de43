// What the OAuth endpoints of both front ends share (token and app registration in api/, the consent and
// authorized-apps pages in web/), gathered once in app.ts.
import type { Config } from '../../config/schema.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { AuthEventListener } from '../store/auth-events.js';
import type { AppStore } from '../store/oauth-apps.js';
import type { CodeStore } from '../store/oauth-codes.js';
import type { TokenStore } from '../store/oauth-tokens.js';
import type { BearerAuth } from './auth.js';
import type { Throttle } from './throttle.js';

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
  /** The VAPID public key, shown as an application's vapid_key. */
  readonly vapidKey: string;
}
