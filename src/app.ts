// Builds the running application from a Config: database, migrations, pools, the root supervisor and the HTTP
// front end; stop() closes them in reverse. main.ts and the tests both start the server through here.
import type { Config } from '../config/schema.js';
import { startPollCloser } from '../actors/poll-closer.js';
import type { Poller } from '../actors/poller.js';
import { Supervisor } from '../actors/supervisor.js';
import { VerifyPool } from '../actors/verify-pool.js';
import { identityStatementRoutes } from './api/identity-statements.js';
import { blockRoutes } from './api/blocks.js';
import { listRoutes } from './api/lists.js';
import { reactionRoutes } from './api/reactions.js';
import { ReactionStore } from './store/reactions.js';
import { pollRoutes } from './api/polls.js';
import { PollService } from './services/poll-service.js';
import { PollStore } from './store/polls.js';
import { mediaRoutes } from './api/media.js';
import { mediaProxyRoutes } from './api/media-proxy.js';
import { MediaUrls } from './urls/media-urls.js';
import { MediaFiles } from './media/media-files.js';
import { MediaStore } from './store/media.js';
import { searchRoutes } from './api/search.js';
import { reportRoutes } from './api/reports.js';
import { adminReportRoutes } from './api/admin-reports.js';
import { ReportViews } from './api/report-views.js';
import { ReportStore } from './store/reports.js';
import { ListStore } from './store/lists.js';
import { notificationRoutes } from './api/notifications.js';
import { groupedNotificationRoutes } from './api/grouped-notifications.js';
import { conversationRoutes } from './api/conversations.js';
import { preferenceRoutes } from './api/preferences.js';
import { MarkerStore } from './store/markers.js';
import { MuteStore } from './store/mutes.js';
import { statusActionRoutes } from './api/status-actions.js';
import { statusRoutes } from './api/statuses.js';
import { StatusViews } from './api/status-views.js';
import { timelineRoutes } from './api/timelines.js';
import { InteractionService } from './services/interaction-service.js';
import { NoteHandlers } from './federation/note-handlers.js';
import { noteRoutes } from './federation/note-routes.js';
import { LocalNotes } from './federation/local-notes.js';
import { StatusService } from './services/status-service.js';
import { InteractionStore } from './store/interactions.js';
import { NotificationStore } from './store/notifications.js';
import { NotificationGroupStore } from './store/notification-groups.js';
import { ConversationStore } from './store/conversations.js';
import { StatusStore } from './store/statuses.js';
import { TimelineStore } from './store/timelines.js';
import { RemoteStatements } from './federation/remote-statements.js';
import { IdentityStatementStore } from './store/identity-statements.js';
import { DeliveryScheduler } from '../actors/delivery-scheduler.js';
import { startInboxWorker } from '../actors/inbox-worker.js';
import { exponentialBackoff } from '../actors/policy.js';
import { AccountViews } from './api/account-views.js';
import { accountRoutes } from './api/accounts.js';
import { profileRoutes } from './api/profile.js';
import { remoteImageRoutes } from './api/remote-images.js';
import { RemoteImageStore } from './store/remote-images.js';
import { followRoutes } from './api/follows.js';
import { actorRoutes } from './federation/actor-routes.js';
import { deliverer } from './federation/deliver.js';
import { discoveryRoutes } from './federation/discovery-routes.js';
import { FollowService } from './services/follow-service.js';
import { HttpClient } from './federation/http-client.js';
import { InboxHandlers } from './federation/inbox-handlers.js';
import { inboxRoutes } from './federation/inbox-route.js';
import { LocalActors } from './federation/local-actors.js';
import { LocalUris } from './urls/local-uris.js';
import { Publisher } from './federation/publisher.js';
import { RemoteActors } from './federation/remote-actors.js';
import { RsaSigner } from './federation/rsa.js';
import { AccountStore } from './store/accounts.js';
import { DeliveryStore } from './store/deliveries.js';
import { BlockStore } from './store/blocks.js';
import { FollowStore } from './store/follows.js';
import { InboxJobStore } from './store/inbox-jobs.js';
import { STOA_VERSION } from './version.js';
import { profilePage } from './web/profile-page.js';
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
import { BearerAuth } from './http/auth.js';
import { TokenCache } from './oauth/token-cache.js';
import { TokenUsage } from './oauth/token-usage.js';
import { AuthEventListener, liveNodes } from './store/auth-events.js';
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
import { reportPageRoutes } from './web/report-pages.js';
import { WebAuth } from './web/session.js';
import { staticPageRoutes } from './web/static-pages.js';

/** A node queueing a poll's Update holds it this long; if the node dies, another sends it after that. */
const POLL_UPDATE_LEASE_MS = 60_000;

export interface App {
  readonly config: Config;
  readonly port: number;
  readonly url: string;
  readonly db: Database;
  readonly verifyPool: VerifyPool;
  readonly supervisor: Supervisor;
  /** The federation stores and the remote-actor resolver, for tests and tools. */
  readonly federation: {
    readonly accounts: AccountStore;
    readonly follows: FollowStore;
    readonly deliveries: DeliveryStore;
    readonly remote: RemoteActors;
    readonly statements: IdentityStatementStore;
  };
  /** Announces ended polls; tests kick it after moving a poll's end into the past. */
  readonly pollCloser: () => Poller | undefined;
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
  /** An embedded PostgreSQL stops as soon as this process dies, however it dies (tests). */
  readonly embeddedDiesWithProcess?: boolean;
}

export async function startApp(config: Config, log: Logger, opts: StartOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const { db, stopEmbedded } = await openDatabase(config, log, { dieWithProcess: opts.embeddedDiesWithProcess ?? false });
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
  const uris = new LocalUris(config);
  const accounts = new AccountStore(db);
  const follows = new FollowStore(db);
  const blocks = new BlockStore(db);
  const inboxJobs = new InboxJobStore(db);
  const deliveries = new DeliveryStore(db);
  const rsa = new RsaSigner(config.verifyPool.maxQueue);
  const statements = new IdentityStatementStore(db);
  const statuses = new StatusStore(db);
  const timelines = new TimelineStore(db);
  const interactions = new InteractionStore(db);
  const notifications = new NotificationStore(db);
  const mutes = new MuteStore(db);
  const markers = new MarkerStore(db);
  const lists = new ListStore(db);
  const reports = new ReportStore(db);
  const media = new MediaStore(db);
  const polls = new PollStore(db, { updateDelayMs: config.federation.pollUpdateDelayMs });
  const reactions = new ReactionStore(db);
  const mediaFiles = new MediaFiles(config.dataDir);
  const localActors = new LocalActors(accounts, rsa, uris, config, statements, clock);
  await localActors.start();
  const httpClient = new HttpClient({
    policy: { allow: config.federation.allowPrivate },
    timeoutMs: config.federation.fetchTimeoutMs,
    maxBytes: config.federation.maxResponseBytes,
    userAgent: `Stoa/${STOA_VERSION} (+${config.baseUrl})`,
  });
  const fedLog = log.child({ component: 'federation' });
  const remoteStatements = new RemoteStatements({ pool: verifyPool, statements, clock, log: fedLog });
  const remote = new RemoteActors({ config, log: fedLog, accounts, http: httpClient, uris, signer: localActors.instanceSigner, statements: remoteStatements });
  const publisher = new Publisher(deliveries, follows, config);
  const followService = new FollowService(follows, blocks, localActors, publisher, notifications);
  const notes = new NoteHandlers({ log: fedLog, accounts, follows, statuses, interactions, remote, notifier: notifications, media, polls, reactions, uris, http: httpClient, signer: localActors.instanceSigner });
  const inboxHandlers = new InboxHandlers({ log: fedLog, accounts, follows, blocks, remote, actors: localActors, publisher, notes, notifier: notifications, reports, statuses });
  let nodeName = '';
  let inboxWorker: ReturnType<typeof startInboxWorker> | null = null;
  const startInbox = () =>
    (inboxWorker = startInboxWorker({
      queue: inboxJobs,
      handle: (job) => inboxHandlers.process(job),
      owner: nodeName,
      // Small batches under a long lease: a job may wait on remote fetches (10 s each), and an expired lease would
      // let another node process the same activity.
      leaseMs: 300_000,
      batch: 4,
      backoff: exponentialBackoff({ baseMs: 1_000, maxMs: 60_000, maxAttempts: 5 }),
      onFailure: (job, err, willRetry) => fedLog.warn({ err, activity: job.activityId, willRetry }, 'inbox activity failed'),
      onError: (err) => fedLog.error({ err }, 'inbox worker round failed'),
    }));
  const startDelivery = async () => {
    const { supervisor: deliverySup, scheduler } = await DeliveryScheduler.start({
      queue: deliveries,
      send: deliverer(httpClient, accounts, localActors),
      backoff: exponentialBackoff({ baseMs: config.federation.deliveryRetryBaseMs, maxMs: 6 * 3_600_000, jitter: 0.2 }),
      owner: nodeName,
      concurrency: config.federation.deliveryConcurrency,
      leaseMs: config.federation.deliveryLeaseMs,
      liveNodes: () => liveNodes(db.pool, nodeName),
      maxHosts: 256,
      hostIdleMs: 30_000,
      onGiveUp: (dl, error) => fedLog.info({ inbox: dl.inboxUrl, activity: dl.activityId, attempts: dl.attempts, error }, 'delivery given up'),
      onError: (err) => fedLog.error({ err }, 'delivery scheduler round failed'),
      onExpired: (count) => fedLog.info({ count }, 'deliveries given up unsent (past their give-up time)'),
    });
    publisher.kick = (hosts) => scheduler.kick(hosts);
    return deliverySup;
  };
  const localNotes = new LocalNotes({ config, statuses, accounts, media, polls, uris });
  const statusService = new StatusService({ config, log: fedLog, statuses, accounts, remote, publisher, uris, notifier: notifications, media, polls, notes: localNotes });
  const pollService = new PollService({ log: fedLog, polls, accounts, statuses, publisher, uris, statusService, notes });
  let pollCloser: Poller | undefined;
  const startPolls = () => {
    pollCloser = startPollCloser({
      polls,
      sendDueUpdates: (limit) =>
        polls.sendDueUpdates(limit, POLL_UPDATE_LEASE_MS, (p) => pollService.sendUpdate(p), (poll, err) => fedLog.warn({ err, poll }, 'poll update not sent; retried later')),
      onClosed: (count) => fedLog.info({ count }, 'polls ended'),
      onError: (err) => fedLog.error({ err }, 'poll closer round failed'),
    });
    polls.onDue = () => pollCloser?.kick();
    return pollCloser;
  };
  const supLog = log.child({ component: 'supervisor' });
  const supervisor = await Supervisor.start(
    'root',
    { strategy: 'one_for_one', intensity: 5, periodMs: 30_000 },
    [
      { id: 'verify-pool', start: () => verifyPool, restart: 'temporary', shutdownMs: 5_000 },
      { id: 'auth-events', start: startAuthEvents, restart: 'temporary', shutdownMs: 2_000 },
      { id: 'token-usage', start: () => tokenUsage, restart: 'temporary', shutdownMs: 5_000 },
      { id: 'inbox-worker', start: () => { nodeName = authEvents.node; return startInbox(); }, restart: 'permanent', shutdownMs: 5_000 },
      { id: 'delivery', start: startDelivery, restart: 'permanent', shutdownMs: 10_000 },
      { id: 'poll-closer', start: startPolls, restart: 'permanent', shutdownMs: 5_000 },
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
  const views = new AccountViews(follows, config);
  const mediaUrls = new MediaUrls(config.baseUrl, await settings.secret('media_proxy_secret'));
  const statusViews = new StatusViews(accounts, views, statuses, interactions, uris, media, mediaUrls, polls, reactions, oauth.apps);
  const reportViews = new ReportViews(accounts, users, statuses, views, statusViews);
  const interactionService = new InteractionService({ accounts, statuses, interactions, publisher, uris, notifier: notifications, reactions, notes: localNotes });
  const accountApi = { config, log: log.child({ component: 'api' }), bearer: oauth.bearer, authEvents, users, accounts, follows, remote, followService, views };
  const routes: Route[] = [
    ...instanceRoutes(instanceDocs, db),
    ...discoveryRoutes({ config, db, accounts, uris }),
    ...actorRoutes({ accounts, follows, actors: localActors, profilePage: profilePage(web, follows) }),
    ...inboxRoutes({ log: fedLog, accounts, remote, jobs: inboxJobs, rsa, maxBodyBytes: config.limits.bodyBytes, queued: () => inboxWorker?.kick() }),
    ...followRoutes(accountApi),
    ...blockRoutes({ ...accountApi, mutes }),
    ...preferenceRoutes({ markers }),
    ...reportRoutes({ bearer: oauth.bearer, accounts, statuses, reports, accountViews: views, publisher, actors: localActors, uris, notifier: notifications }),
    ...adminReportRoutes({ baseUrl: config.baseUrl, log: log.child({ component: 'api' }), bearer: oauth.bearer, reports, views: reportViews }),
    ...searchRoutes({ config, log: log.child({ component: 'api' }), bearer: oauth.bearer, accounts, follows, statuses, timelines, remote, notes, uris, accountViews: views, statusViews }),
    ...mediaRoutes({ baseUrl: config.baseUrl, multipartBytes: config.limits.multipartBytes, bearer: oauth.bearer, media, files: mediaFiles }),
    ...mediaProxyRoutes({ log: log.child({ component: 'media' }), bearer: oauth.bearer, media, statuses, files: mediaFiles, urls: mediaUrls, http: httpClient, signer: localActors.instanceSigner, retryMs: config.federation.mediaProxyRetryMs }),
    ...pollRoutes({ bearer: oauth.bearer, accounts, statuses, polls, service: pollService }),
    ...reactionRoutes({ bearer: oauth.bearer, accounts, statuses, reactions, service: interactionService, views: statusViews, accountViews: views }),
    ...listRoutes({ baseUrl: config.baseUrl, bearer: oauth.bearer, lists, accounts, statuses, timelines, accountViews: views, statusViews }),
    ...appRoutes(oauth),
    ...oauthRoutes(oauth),
    ...identityStatementRoutes({ clock, pool: verifyPool, statements, accounts, uris, followService }),
    ...noteRoutes({ accounts, statuses, timelines, notes: localNotes, uris }),
    ...statusRoutes({ bearer: oauth.bearer, accounts, statuses, service: statusService, views: statusViews, interactions: interactionService }),
    ...statusActionRoutes({ baseUrl: config.baseUrl, bearer: oauth.bearer, accounts, statuses, interactions, service: interactionService, views: statusViews, accountViews: views }),
    ...notificationRoutes({ baseUrl: config.baseUrl, bearer: oauth.bearer, accounts, statuses, notifications, accountViews: views, statusViews, reports, reportViews }),
    ...groupedNotificationRoutes({ baseUrl: config.baseUrl, bearer: oauth.bearer, accounts, statuses, notifications, groups: new NotificationGroupStore(db), markers, accountViews: views, statusViews, reports, reportViews }),
    ...conversationRoutes({ baseUrl: config.baseUrl, bearer: oauth.bearer, accounts, statuses, conversations: new ConversationStore(db), accountViews: views, statusViews }),
    ...timelineRoutes({ baseUrl: config.baseUrl, accounts, statuses, timelines, views: statusViews }),
    ...accountRoutes(accountApi),
    ...profileRoutes({ ...accountApi, files: mediaFiles }),
    ...remoteImageRoutes({ config, log: log.child({ component: 'media' }), accounts, images: new RemoteImageStore(db), files: mediaFiles, http: httpClient, signer: localActors.instanceSigner }),
    ...authPageRoutes(web),
    ...authorizePageRoutes(web, oauth),
    ...authorizedAppsPageRoutes(web, oauth),
    ...registrationPageRoutes(web, () => instanceDocs.invalidate()),
    ...reportPageRoutes(web, { reports, accounts, statuses }),
    ...staticPageRoutes(web),
  ];
  const http = new HttpServer({ config, log: log.child({ component: 'http' }), routes, authenticate: (req, rule) => oauth.bearer.authenticate(req, rule), errorPage: errorPage(config.instance.title) });
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

  return { config, port, url: config.port === 0 ? config.baseUrl.replace(/:0$/, `:${port}`) : config.baseUrl, db, verifyPool, supervisor, pollCloser: () => pollCloser, authEvents, firstAdmin, stop, federation: { accounts, follows, deliveries, remote, statements } };
}
