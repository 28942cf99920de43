// What the server-rendered pages need, gathered once in app.ts (startApp) and handed to routes.ts.
import type { Config } from '../../config/schema.js';
import type { Throttle } from '../http/throttle.js';
import type { Logger } from '../log.js';
import type { UserStore } from '../store/users.js';
import type { WebAuth } from './session.js';

export interface WebDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly auth: WebAuth;
  readonly users: UserStore;
  readonly signInThrottle: Throttle;
  readonly signUpThrottle: Throttle;
}
