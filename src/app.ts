// The application's lifecycle: open the database, wire the parts (wiring.ts), start the actors under the root
// supervisor, serve the route table (routes.ts) over HTTP, and stop() it all in reverse. main.ts and the tests both
// start the server through here.
import type { HistoryRunner } from './history/history-runner.js';
import type { Config } from '../config/schema.js';
import { DeliveryScheduler } from '../actors/delivery-scheduler.js';
import { RunDeadlineError } from '../actors/history-origin.js';
import { HistoryScheduler } from '../actors/history-scheduler.js';
import { NodeWatch } from '../actors/node-watch.js';
import { Slots } from '../actors/slots.js';
import { startInboxWorker } from '../actors/inbox-worker.js';
import { exponentialBackoff } from '../actors/policy.js';
import { startHistorySweep } from '../actors/history-sweep.js';
import { startPollCloser } from '../actors/poll-closer.js';
import type { Poller } from '../actors/poller.js';
import { Supervisor } from '../actors/supervisor.js';
import type { VerifyPool } from '../actors/verify-pool.js';
import type { OAuthDeps } from './http/oauth-deps.js';
import { InstanceDocuments } from './api/instance.js';
import { createStreaming, type Streaming } from './api/streaming/streaming.js';
import { StreamFilters } from './api/streaming/stream-filters.js';
import { ensureFirstAdmin, openDatabase, type FirstAdmin } from './bootstrap.js';
import { systemClock, type Clock } from './clock.js';
import { deliverer } from './federation/deliver.js';
import { pushSender } from './push/push-sender.js';
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
import { AuthEventListener, LISTENER_RECONNECT_MAX_MS, liveNodes } from './store/auth-events.js';
import type { Released } from './store/leases.js';
import type { Database } from './store/db.js';
import type { DeliveryStore } from './store/deliveries.js';
import type { FollowStore } from './store/follows.js';
import type { HistoryJobRunner, HistoryJobStore } from './store/history-jobs.js';
import { DOMAIN_BLOCKS_KEY } from './store/domain-blocks.js';
import { HISTORY_SETTINGS_KEY, type HistorySettingsStore } from './store/history-settings.js';
import { HISTORY_LIMITS, type ClaimedJob, type JobOutcome } from './store/history-types.js';
import type { IdentityStatementStore } from './store/identity-statements.js';
import type { WebDeps } from './web/deps.js';
import { errorPage } from './web/layout.js';
import { WebAuth } from './web/session.js';
import { mediaStorage, wire } from './wiring.js';

/** The retention sweep of remote history runs this often, on one node of the cluster. */
const HISTORY_SWEEP_EVERY_MS = 3_600_000;
/** A run that threw (a bug, the database away) is retried after this, growing with its attempts, at most a day. */
const historyRetry = exponentialBackoff({ baseMs: 60_000, maxMs: 24 * 3_600_000, jitter: 0.2 });

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
}

export async function startApp(config: Config, log: Logger, opts: StartOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  // Before anything else: a server that cannot keep uploads must not start and fail on each one later.
  const storage = mediaStorage(config);
  await storage.check();
  log.info({ kind: storage.kind, where: storage.where }, 'media storage ready');
  const { db, stopEmbedded } = await openDatabase(config, log, { dieWithProcess: opts.embeddedDiesWithProcess ?? false });
  const w = await wire(config, log, db, clock, storage);
  const firstAdmin = await ensureFirstAdmin(w.users, config);
  const { fedLog } = w;

  // Streaming exists before the listener that feeds it: events may arrive as soon as it listens.
  const bearer = new BearerAuth(w.tokens, w.tokenCache, w.tokenUsage, clock);
  const streaming = createStreaming({
    ...w,
    audience: w.streamAudience,
    streamFilters: new StreamFilters(w.filterCache),
    bearer,
    maxBuffered: config.limits.streamingBufferedBytes,
    heartbeatMs: config.limits.streamingHeartbeatMs,
    log: log.child({ component: 'streaming' }),
  });

  // The actors, each connected to the wake-up port of those who queue its work.
  let authEvents!: AuthEventListener;
  const startAuthEvents = async () =>
    (authEvents = await AuthEventListener.start(
      db.connectionString,
      {
        onEvent: (e) => {
          if (e.kind === 'token') w.tokenCache.dropToken(e.id);
          else if (e.kind === 'user') w.tokenCache.dropUser(e.id);
          else w.tokenCache.dropGrant(e.userId, e.appId);
          streaming.hub.onAuthEvent(e);
        },
        onStream: (payload) => streaming.fanout.heard(payload),
        onCache: (e) => {
          if (e.kind === 'status') w.statusCache.dropStatus(e.id);
          else if (e.kind === 'account') {
            w.statusCache.dropAccount(e.id);
            w.accountCache.drop(e.id);
          } else w.filterCache.drop(e.id);
        },
        // Work queued on any node (this one too, which its own wake ports have already told).
        onWork: (e) => {
          if (e.kind === 'inbox') w.wakes.inboxQueued.wake();
          else if (e.kind === 'delivery') w.wakes.deliveryDue.wake([e.host]);
          else if (e.kind === 'push') w.wakes.pushDue.wake([e.host]);
          else if (e.kind === 'history') w.wakes.historyDue.wake();
          else if (e.key === DOMAIN_BLOCKS_KEY) w.domainBlocks.invalidate();
          else if (e.key === HISTORY_SETTINGS_KEY) {
            w.historySettings.invalidate();
            // The feature may have been switched on: queued jobs wait for a round.
            w.wakes.historyDue.wake();
          }
        },
        onReset: (connected) => {
          w.tokenCache.reset(connected);
          w.historySettings.reset(connected);
          w.statusCache.reset(connected);
          w.accountCache.reset(connected);
          w.filterCache.reset(connected);
          w.domainBlocks.reset(connected);
          // Events raised while this node was not listening are lost to its streams; health says so meanwhile.
          streaming.hub.listening = connected;
          // Notifications sent while this node was not listening are lost: look for their work now.
          if (connected) {
            // A node may have died meanwhile, unseen: its leases are looked for now.
            nodeWatch?.recheck();
            w.wakes.inboxQueued.wake();
            w.wakes.deliveryDue.wake([]);
            w.wakes.pushDue.wake([]);
            w.wakes.historyDue.wake();
          }
        },
      },
      log.child({ component: 'auth-events' }),
    ));
  let nodeName = '';
  const startInbox = () => {
    const worker = startInboxWorker({
      queue: w.inboxJobs,
      handle: (job) => w.inboxHandlers.process(job),
      owner: nodeName,
      // Small batches under a long lease: a job may wait on remote fetches (10 s each), and an expired lease would
      // let another node process the same activity. A dead node's jobs are given back at once (node-watch).
      leaseMs: config.federation.inboxLeaseMs,
      batch: 4,
      backoff: exponentialBackoff({ baseMs: 1_000, maxMs: 60_000, maxAttempts: 5 }),
      onFailure: (job, err, willRetry) => fedLog.warn({ err, activity: job.activityId, willRetry }, 'inbox activity failed'),
      onError: (err) => fedLog.error({ err }, 'inbox worker round failed'),
    });
    w.wakes.inboxQueued.connect(() => worker.kick());
    return worker;
  };
  const startDelivery = async () => {
    const { supervisor: deliverySup, scheduler } = await DeliveryScheduler.start({
      queue: w.deliveries,
      send: deliverer(w.httpClient, w.accounts, w.localActors),
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
    w.wakes.deliveryDue.connect((hosts) => scheduler.kick(hosts));
    return deliverySup;
  };
  // Web Push: the delivery machinery over the push queue, one actor per push service host.
  const startPush = async () => {
    const { supervisor: pushSup, scheduler } = await DeliveryScheduler.start({
      name: 'push',
      queue: w.pushDeliveries,
      send: pushSender({
        config,
        http: w.httpClient,
        vapid: w.vapid,
        tokenKey: w.pushTokenKey,
        pushes: w.pushDeliveries,
        subscriptions: w.pushSubscriptions,
        accounts: w.accounts,
        statuses: w.statuses,
      }),
      backoff: exponentialBackoff({ baseMs: config.federation.deliveryRetryBaseMs, maxMs: 6 * 3_600_000, jitter: 0.2 }),
      owner: nodeName,
      concurrency: config.federation.deliveryConcurrency,
      leaseMs: config.federation.deliveryLeaseMs,
      liveNodes: () => liveNodes(db.pool, nodeName),
      maxHosts: 64,
      hostIdleMs: 30_000,
      onGiveUp: (p, error) => fedLog.info({ host: new URL(p.inboxUrl).host, notification: p.notificationId, attempts: p.attempts, error }, 'push given up'),
      onError: (err) => fedLog.error({ err }, 'push scheduler round failed'),
      onExpired: (count) => fedLog.info({ count }, 'pushes given up unsent (past their give-up time)'),
    });
    w.wakes.pushDue.connect((hosts) => scheduler.kick(hosts));
    return pushSup;
  };
  let historyScheduler: HistoryScheduler | undefined;
  const historyRunner: HistoryJobRunner = opts.historyRunner ?? w.historyRunner;
  const startHistory = async () => {
    const { supervisor: historySup, scheduler } = await HistoryScheduler.start({
      jobs: w.historyJobs,
      ledger: w.historyJobs,
      runner: historyRunner,
      owner: nodeName,
      leaseMs: config.federation.historyLeaseMs,
      jobMs: HISTORY_LIMITS.jobMs,
      enabled: async () => (await w.historySettings.current()).enabled,
      failed: (job: ClaimedJob, err: unknown): JobOutcome => {
        fedLog.error({ err, origin: job.origin, account: job.accountId }, 'remote history job failed');
        const delay = historyRetry(job.attempts + 1) ?? 24 * 3_600_000;
        return { kind: 'backoff', reason: err instanceof RunDeadlineError ? 'timeout' : 'transport', retryAt: new Date(Date.now() + delay), originWide: false };
      },
      liveNodes: () => liveNodes(db.pool, nodeName),
      maxOrigins: 256,
      slots: new Slots(config.federation.historyJobsPerNode),
      originIdleMs: 30_000,
      onError: (err) => fedLog.error({ err }, 'history scheduler round failed'),
    });
    historyScheduler = scheduler;
    w.wakes.historyDue.connect(() => scheduler.kick());
    return historySup;
  };
  let pollCloser: Poller | undefined;
  const startPolls = () => {
    const closer = startPollCloser({
      polls: w.polls,
      sendDueUpdates: (limit) =>
        w.polls.sendDueUpdates(
          limit,
          { ms: config.federation.pollUpdateLeaseMs, owner: nodeName },
          (p) => w.pollService.sendUpdate(p),
          (poll, err) => fedLog.warn({ err, poll }, 'poll update not sent; retried later'),
        ),
      onClosed: (count) => fedLog.info({ count }, 'polls ended'),
      onError: (err) => fedLog.error({ err }, 'poll closer round failed'),
    });
    pollCloser = closer;
    w.wakes.pollsDue.connect(() => closer.kick());
    return closer;
  };
  let historySweep: Poller | undefined;
  const startSweep = () => {
    const sweep = startHistorySweep({
      claim: () => w.historyPrune.claimSweep(new Date(clock.now()), HISTORY_SWEEP_EVERY_MS, nodeName),
      sweep: async () => {
        const swept = await w.historyPrune.prune('sweep', (await w.historySettings.current()).retentionDays, new Date(clock.now()));
        await w.historyPrune.sweepDone(nodeName);
        return swept;
      },
      cleanup: async (limit) => {
        const names = await w.historyPrune.pendingCleanup(limit);
        for (const name of names) await w.mediaFiles.remove(name);
        await w.historyPrune.cleaned(names);
        return names.length;
      },
      onSwept: (r) => {
        if (r.removed > 0) fedLog.info(r, 'remote history swept');
      },
      onError: (err) => fedLog.error({ err }, 'history sweep round failed'),
    });
    historySweep = sweep;
    w.wakes.mediaCleanupQueued.connect(() => sweep.kick());
    return sweep;
  };
  // Gives back the work of nodes that are gone. Inbox jobs, deliveries, pushes and history jobs freed are notified
  // as newly queued work (every node wakes for them); poll Updates and the sweep wake this node's actors.
  let nodeWatch: NodeWatch<Released> | undefined;
  const startNodeWatch = () => {
    nodeWatch = new NodeWatch<Released>({
      liveNodes: () => liveNodes(db.pool, nodeName),
      release: (live) => w.leases.releaseExcept(live),
      everyMs: config.federation.nodeCheckMs,
      graceMs: LISTENER_RECONNECT_MAX_MS + 1_000,
      onReleased: (released, gone) => {
        if (Object.keys(released).length === 0) return;
        fedLog.info({ released, gone }, 'work of nodes that are gone given back');
        if (released.polls) w.wakes.pollsDue.wake();
        if (released.sweep) historySweep?.kick();
      },
      onError: (err) => fedLog.error({ err }, 'node watch round failed'),
    });
    return nodeWatch.poller;
  };
  const supLog = log.child({ component: 'supervisor' });
  const supervisor = await Supervisor.start(
    'root',
    { strategy: 'one_for_one', intensity: 5, periodMs: 30_000 },
    [
      { id: 'verify-pool', start: () => w.verifyPool, restart: 'temporary', shutdownMs: 5_000 },
      { id: 'image-pool', start: () => w.imagePool, restart: 'temporary', shutdownMs: 5_000 },
      { id: 'auth-events', start: startAuthEvents, restart: 'temporary', shutdownMs: 2_000 },
      { id: 'token-usage', start: () => w.tokenUsage, restart: 'temporary', shutdownMs: 5_000 },
      {
        id: 'inbox-worker',
        start: () => {
          nodeName = authEvents.node;
          return startInbox();
        },
        restart: 'permanent',
        shutdownMs: 5_000,
      },
      { id: 'delivery', start: startDelivery, restart: 'permanent', shutdownMs: 10_000 },
      { id: 'push', start: startPush, restart: 'permanent', shutdownMs: 10_000 },
      { id: 'history', start: startHistory, restart: 'permanent' as const, shutdownMs: 10_000 },
      { id: 'poll-closer', start: startPolls, restart: 'permanent', shutdownMs: 5_000 },
      { id: 'history-sweep', start: startSweep, restart: 'permanent', shutdownMs: 5_000 },
      { id: 'node-watch', start: startNodeWatch, restart: 'permanent', shutdownMs: 5_000 },
    ],
    { onEvent: (e) => supLog.warn({ ...e, reason: e.reason?.kind }, `supervisor ${e.kind}`) },
  );

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
    w,
    oauth,
    web,
    instanceDocs: new InstanceDocuments(w.instanceCounts, config, w.vapid.publicKey),
    authEvents,
    metrics,
    streamingRoutes: streaming.routes,
  });
  const http = new HttpServer({
    config,
    log: log.child({ component: 'http' }),
    routes,
    authenticate: (req, rule) => oauth.bearer.authenticate(req, rule),
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
      if (nodeName) await w.historyJobs.releaseAll(nodeName).catch((err: unknown) => log.warn({ err }, 'history leases not released'));
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
  const federation = {
    accounts: w.accounts,
    follows: w.follows,
    deliveries: w.deliveries,
    remote: w.remote,
    statements: w.statements,
    history: w.historyRunner,
  };
  const bodyBytesInFlight = () => http.bodyBudget.inUse;
  return {
    config,
    port,
    url,
    db,
    verifyPool: w.verifyPool,
    supervisor,
    routes,
    pollCloser: () => pollCloser,
    historySweep: () => historySweep,
    history: { jobs: w.historyJobs, settings: w.historySettings, scheduler: () => historyScheduler },
    authEvents,
    firstAdmin,
    bodyBytesInFlight,
    streaming,
    stop,
    federation,
    metricsPort: metricsListener?.port ?? null,
  };
}
