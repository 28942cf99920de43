// The application's lifecycle: open the database, wire the parts (wiring.ts), start the supervision tree
// (supervision.ts), serve the route table (routes.ts) over HTTP, and stop() it all in reverse. main.ts and the tests
// both start the server through here.
import type { HistoryRunner } from './history/history-runner.js';
import type { Config } from '../config/schema.js';
import type { HistoryScheduler } from '../actors/history-scheduler.js';
import type { Poller } from '../actors/poller.js';
import type { Supervisor } from '../actors/supervisor.js';
import type { VerifyPool } from '../actors/verify-pool.js';
import type { OAuthDeps } from './http/oauth-deps.js';
import { InstanceDocuments } from './api/instance.js';
import { createStreaming, type Streaming } from './api/streaming/streaming.js';
import { ruleEntity } from './entities/instance-extras.js';
import { ensureFirstAdmin, openDatabase, type FirstAdmin } from './bootstrap.js';
import { systemClock, type Clock } from './clock.js';
import type { CommunityService } from './services/community-service.js';
import type { LinkAggregatorStore } from './store/link-aggregator.js';
import type { RemoteActors } from './federation/remote-actors.js';
import { BearerAuth } from './http/auth.js';
import { HttpServer } from './http/server.js';
import { Throttle } from './http/throttle.js';
import type { Route } from './http/types.js';
import type { Logger } from './log.js';
import { registerCollectors } from './metrics/collectors.js';
import { type MetricsListener, startMetricsListener } from './metrics/listener.js';
import { Metrics } from './metrics/registry.js';
import { allRoutes } from './routes.js';
import type { AccountStore } from './store/accounts.js';
import { type AuthEventListener, newNodeName } from './store/auth-events.js';
import type { Database } from './store/db.js';
import type { DeliveryStore } from './store/deliveries.js';
import type { FollowStore } from './store/follows.js';
import type { HistoryJobRunner, HistoryJobStore } from './store/history-jobs.js';
import type { HistorySettingsStore } from './store/history-settings.js';
import type { IdentityStatementStore } from './store/identity-statements.js';
import type { CommunityActions } from './services/community-actions.js';
import { startTree } from './supervision.js';
import type { WebDeps } from './web/deps.js';
import { errorPage } from './web/layout.js';
import { WebAuth } from './web/session.js';
import { LocalStorage } from './media/local-storage.js';
import { S3Storage } from './media/s3-storage.js';
import type { MediaStorage } from './media/storage.js';
import { sweepStaleTempFiles, tempDirOf } from './media/temp-files.js';
import { wire } from './wiring.js';

export interface App {
  readonly config: Config;
  readonly port: number;
  readonly url: string;
  readonly db: Database;
  readonly verifyPool: VerifyPool;
  readonly supervisor: Supervisor;
  /** Every route served, as the table built them (tests read their declared rules). */
  readonly routes: readonly Route[];
  /** The federation stores and the remote-actor resolver, for tests and tools. */
  readonly federation: {
    readonly accounts: AccountStore;
    readonly follows: FollowStore;
    readonly deliveries: DeliveryStore;
    readonly remote: RemoteActors;
    readonly statements: IdentityStatementStore;
    /** Runs one remote-history job (tests drive it directly with their own ledger). */
    readonly history: HistoryRunner;
    /** A member's actions in link-aggregator communities, and their records (tests drive them directly). */
    readonly communities: CommunityService;
    readonly links: LinkAggregatorStore;
  };
  /** Remote history: its jobs and settings, and the scheduler (absent without a runner, or before it started). */
  readonly history: {
    readonly jobs: HistoryJobStore;
    readonly settings: HistorySettingsStore;
    readonly scheduler: () => HistoryScheduler | undefined;
  };
  /** The hourly retention sweep of remote history; tests kick it after moving the clock. */
  readonly historySweep: () => Poller | undefined;
  /** Announces ended polls; tests kick it after moving a poll's end into the past. */
  readonly pollCloser: () => Poller | undefined;
  /** Publishes changes that invalidate token caches and waits until every node has applied them. */
  readonly authEvents: AuthEventListener;
  readonly firstAdmin: FirstAdmin | null;
  /** The port of the separate metrics listener (METRICS_LISTEN), null when there is none. */
  readonly metricsPort: number | null;
  /** Streaming: this node's clients and fan-out (tests wait on subscriptions and measure). */
  readonly streaming: Streaming;
  /** Bytes of request bodies held in memory now (MAX_BODY_BYTES_IN_FLIGHT bounds them); tests wait on it. */
  readonly bodyBytesInFlight: () => number;
  /** Graceful shutdown: stop accepting, drain, stop actors in reverse order, close the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly onFatal?: (e: unknown) => void;
  /** Time for expiry decisions (authorization codes); tests move it. */
  readonly clock?: Clock;
  /** An embedded PostgreSQL stops as soon as this process dies, however it dies (tests). */
  readonly embeddedDiesWithProcess?: boolean;
  /** Runs remote history jobs instead of the real runner (tests inject their own). */
  readonly historyRunner?: HistoryJobRunner;
  /** What members do in communities through /api/v3, in place of the node's own (tests of the routes). */
  readonly communityActions?: CommunityActions;
}

/** A temporary file untouched for this long belongs to no live request. */
const STALE_TEMP_MS = 60 * 60_000;

export async function startApp(config: Config, log: Logger, opts: StartOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  // Before anything else: a server that cannot keep uploads must not start and fail on each one later.
  const storage = mediaStorage(config);
  await storage.check();
  // Temporary files a killed process left (uploads in flight); in the background, as nothing waits on it.
  void sweepStaleTempFiles(tempDirOf(config.dataDir), STALE_TEMP_MS).then(
    (removed) => removed > 0 && log.info({ removed }, 'removed stale temporary upload files'),
    (err: unknown) => log.warn({ err }, 'could not sweep temporary upload files'),
  );
  log.info({ kind: storage.kind, where: storage.where }, 'media storage ready');
  const { db, stopEmbedded } = await openDatabase(config, log, { dieWithProcess: opts.embeddedDiesWithProcess ?? false });
  const { app: w, streaming: fanout, tree: work, api } = await wire(config, log, db, clock, storage, opts.communityActions);
  const firstAdmin = await ensureFirstAdmin(w.users, config);

  // Streaming exists before the listener that feeds it: events may arrive as soon as it listens.
  const bearer = new BearerAuth(w.tokens, w.tokenCache, w.tokenUsage, clock);
  const streaming = createStreaming({
    ...fanout,
    bearer,
    maxBuffered: config.limits.streamingBufferedBytes,
    heartbeatMs: config.limits.streamingHeartbeatMs,
    log: log.child({ component: 'streaming' }),
  });

  // The actors under the root supervisor (supervision.ts). The node's name is decided first: the listener registers
  // under it and every lease its actors take names it.
  const node = newNodeName();
  const tree = await startTree({ config, log, db, clock, w: work, streaming, node, historyRunner: opts.historyRunner ?? w.historyRunner });
  const { supervisor, authEvents } = tree;

  // The front end: OAuth and session state (they need the running auth-event listener), the route table, HTTP.
  const oauth: OAuthDeps = {
    config,
    log: log.child({ component: 'oauth' }),
    clock,
    apps: w.apps,
    codes: w.codes,
    tokens: w.tokens,
    bearer,
    authEvents,
    appRegistrationThrottle: new Throttle(w.throttleCounters, 'apps', 300, 5 * 60_000),
    vapidKey: w.vapid.publicKey,
  };
  const web: WebDeps = {
    config,
    log: log.child({ component: 'web' }),
    auth: new WebAuth(w.sessions, w.users, await w.settings.secret('csrf_secret'), config.baseUrl.startsWith('https:')),
    users: w.users,
    signInThrottle: new Throttle(w.throttleCounters, 'signin', 10, 5 * 60_000),
    signUpThrottle: new Throttle(w.throttleCounters, 'signup', 5, 30 * 60_000),
  };
  // Metrics exist only when an operator asked for them (a token, or a listen address): otherwise nothing is recorded.
  const { metrics: metricsConfig } = config;
  const metrics = metricsConfig.token !== undefined || metricsConfig.listen !== undefined ? new Metrics() : null;
  if (metrics) registerCollectors(metrics.registry, { supervisor, verifyPool: w.verifyPool, db, queues: w.queueStats });
  const routes = allRoutes({
    api,
    oauth,
    web,
    instanceDocs: new InstanceDocuments(w.instanceCounts, config, w.vapid.publicKey, async () => (await w.instanceRules.list()).map(ruleEntity)),
    authEvents,
    metrics,
    streamingRoutes: streaming.routes,
  });
  const http = new HttpServer({
    config,
    log: log.child({ component: 'http' }),
    routes,
    authenticate: (req, rule) => oauth.bearer.authenticate(req, rule),
    pages: web.auth,
    errorPage: errorPage(config.instance.title),
    websockets: streaming.websockets,
    ...(metrics && { onFinished: (route, method, status, ms) => metrics.observeRequest(route, method, status, ms) }),
  });
  let port: number;
  let metricsListener: MetricsListener | null = null;
  try {
    port = await http.listen();
    if (metrics && metricsConfig.listen) {
      metricsListener = await startMetricsListener(metrics, metricsConfig.listen, metricsConfig.token, log.child({ component: 'metrics' }));
    }
  } catch (e) {
    // A port in use ends the start: what was started for it stops, so nothing is left running in this process.
    http.stopAccepting();
    await supervisor.stop();
    await db.close();
    await stopEmbedded();
    throw e;
  }

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      http.stopAccepting();
      // Streams never end by themselves: closed now, so neither draining nor the event loop waits on them.
      streaming.hub.closeAll();
      await metricsListener?.close();
      const drained = await http.drain(config.shutdownGraceMs);
      if (!drained) log.warn('shutdown grace period ended with requests in flight');
      await supervisor.stop();
      // Jobs whose run outlived its shutdown time go back to the queue now, for another node to take at once.
      await w.historyJobs.releaseAll(node).catch((err: unknown) => log.warn({ err }, 'history leases not released'));
      await w.homeFeedJobs.releaseAll(node).catch((err: unknown) => log.warn({ err }, 'home fan-out leases not released'));
      await db.close();
      await stopEmbedded();
      log.info('stopped');
    })());

  supervisor.onExit((reason) => {
    if (reason.kind !== 'crash') return;
    log.fatal({ err: reason.error }, 'root supervisor gave up');
    opts.onFatal?.(reason.error);
  });

  const url = config.port === 0 ? config.baseUrl.replace(/:0$/, `:${port}`) : config.baseUrl;
  const bodyBytesInFlight = () => http.bodyBudget.inUse;
  return {
    config,
    port,
    url,
    db,
    verifyPool: w.verifyPool,
    supervisor,
    routes,
    pollCloser: tree.pollCloser,
    historySweep: tree.historySweep,
    history: { jobs: w.historyJobs, settings: w.historySettings, scheduler: tree.historyScheduler },
    authEvents,
    firstAdmin,
    bodyBytesInFlight,
    streaming,
    stop,
    federation: w.federation,
    metricsPort: metricsListener?.port ?? null,
  };
}

/** The configured media storage (a directory, or an S3-compatible bucket), shared by every node of a cluster. */
export function mediaStorage(config: Config): MediaStorage {
  const s = config.media.storage;
  return s.kind === 'local' ? new LocalStorage(s.dir) : new S3Storage(s);
}
