// Builds the running application from a Config: database, migrations, pools, the root supervisor and the HTTP
// front end; stop() closes them in reverse. main.ts and the tests both start the server through here.
import type { Config } from '../config/schema.js';
import { Supervisor } from '../actors/supervisor.js';
import { VerifyPool } from '../actors/verify-pool.js';
import { accountRoutes } from './api/accounts.js';
import { appRoutes } from './api/apps.js';
import type { OAuthDeps } from './api/deps.js';
import { InstanceDocuments, instanceRoutes } from './api/instance.js';
import { oauthRoutes } from './api/oauth.js';
import { systemClock, type Clock } from './clock.js';
import { ensureFirstAdmin, openDatabase, type FirstAdmin } from './bootstrap.js';
import { HttpServer } from './http/server.js';
import { Throttle } from './http/throttle.js';
import type { Route } from './http/types.js';
import type { Logger } from './log.js';
import { BearerAuth } from './oauth/bearer.js';
import { TokenCache } from './oauth/token-cache.js';
import { TokenUsage } from './oauth/token-usage.js';
import { AuthEventListener } from './store/auth-events.js';
import type { Database } from './store/db.js';
import { AppStore } from './store/oauth-apps.js';
import { CodeStore } from './store/oauth-codes.js';
import { TokenStore } from './store/oauth-tokens.js';
import { SessionStore } from './store/sessions.js';
import { SettingsStore } from './store/settings.js';
import { UserStore } from './store/users.js';
import { authPageRoutes } from './web/auth-pages.js';
import { authorizedAppsPageRoutes } from './web/authorized-apps-page.js';
import { authorizePageRoutes } from './web/authorize-page.js';
import type { WebDeps } from './web/deps.js';
import { errorPage } from './web/layout.js';
import { registrationPageRoutes } from './web/registration-pages.js';
import { WebAuth } from './web/session.js';
import { staticPageRoutes } from './web/static-pages.js';

export interface App {
  readonly config: Config;
  readonly port: number;
  readonly url: string;
  readonly db: Database;
  readonly verifyPool: VerifyPool;
  readonly supervisor: Supervisor;
  /** Publishes changes that invalidate token caches and waits until every node has applied them. */
  readonly authEvents: AuthEventListener;
  readonly firstAdmin: FirstAdmin | null;
  /** Graceful shutdown: stop accepting, drain, stop actors in reverse order, close the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly onFatal?: (e: unknown) => void;
  /** Time for expiry decisions (authorization codes); tests move it. */
  readonly clock?: Clock;
}

export async function startApp(config: Config, log: Logger, opts: StartOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const { db, stopEmbedded } = await openDatabase(config, log);
  const users = new UserStore(db);
  const settings = new SettingsStore(db);
  const firstAdmin = await ensureFirstAdmin(users, config);
  const tokens = new TokenStore(db);
  const tokenCache = new TokenCache();
  const tokenUsage = new TokenUsage(tokens, log.child({ component: 'token-usage' }));

  const verifyPool = new VerifyPool(config.verifyPool);
  let authEvents!: AuthEventListener;
  const startAuthEvents = async () =>
    (authEvents = await AuthEventListener.start(
      db.connectionString,
      {
        onEvent: (e) => {
          if (e.kind === 'token') tokenCache.dropToken(e.id);
          else if (e.kind === 'user') tokenCache.dropUser(e.id);
          else tokenCache.dropGrant(e.userId, e.appId);
        },
        onReset: (connected) => tokenCache.reset(connected),
      },
      log.child({ component: 'auth-events' }),
    ));
  const supLog = log.child({ component: 'supervisor' });
  const supervisor = await Supervisor.start(
    'root',
    { strategy: 'one_for_one', intensity: 5, periodMs: 30_000 },
    [
      { id: 'verify-pool', start: () => verifyPool, restart: 'temporary', shutdownMs: 5_000 },
      { id: 'auth-events', start: startAuthEvents, restart: 'temporary', shutdownMs: 2_000 },
      { id: 'token-usage', start: () => tokenUsage, restart: 'temporary', shutdownMs: 5_000 },
    ],
    { onEvent: (e) => supLog.warn({ ...e, reason: e.reason?.kind }, `supervisor ${e.kind}`) },
  );
  const oauth: OAuthDeps = {
    config,
    log: log.child({ component: 'oauth' }),
    clock,
    apps: new AppStore(db),
    codes: new CodeStore(db),
    tokens,
    bearer: new BearerAuth(tokens, tokenCache, tokenUsage, clock),
    authEvents,
    appRegistrationThrottle: new Throttle(300, 5 * 60_000),
  };

  const secure = config.baseUrl.startsWith('https:');
  const instanceDocs = new InstanceDocuments(db, config);
  const web: WebDeps = {
    config,
    log: log.child({ component: 'web' }),
    auth: new WebAuth(new SessionStore(db), users, await settings.secret('csrf_secret'), secure),
    users,
    signInThrottle: new Throttle(10, 5 * 60_000),
    signUpThrottle: new Throttle(5, 30 * 60_000),
  };
  const routes: Route[] = [
    ...instanceRoutes(instanceDocs, db),
    ...appRoutes(oauth),
    ...oauthRoutes(oauth),
    ...accountRoutes(oauth.bearer, config),
    ...authPageRoutes(web),
    ...authorizePageRoutes(web, oauth),
    ...authorizedAppsPageRoutes(web, oauth),
    ...registrationPageRoutes(web, () => instanceDocs.invalidate()),
    ...staticPageRoutes(web),
  ];
  const http = new HttpServer({ config, log: log.child({ component: 'http' }), routes, errorPage: errorPage(config.instance.title) });
  const port = await http.listen();

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      http.stopAccepting();
      const drained = await http.drain(config.shutdownGraceMs);
      if (!drained) log.warn('shutdown grace period ended with requests in flight');
      await supervisor.stop();
      await db.close();
      await stopEmbedded();
      log.info('stopped');
    })());

  supervisor.onExit((reason) => {
    if (reason.kind !== 'crash') return;
    log.fatal({ err: reason.error }, 'root supervisor gave up');
    opts.onFatal?.(reason.error);
  });

  return { config, port, url: config.port === 0 ? config.baseUrl.replace(/:0$/, `:${port}`) : config.baseUrl, db, verifyPool, supervisor, authEvents, firstAdmin, stop };
}
