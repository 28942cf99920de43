// Builds the parts of the application from a Config and an open database: every store, the federation machinery
// and the member-action services, with the wake-up ports that connect those who queue work to the actors that do
// it. Nothing here runs anything: app.ts starts the actors and the HTTP front end, routes.ts maps URLs to handlers.
// wire() hands them out as named groups, each to the one that uses it: the lifecycle (`app`), streaming's fan-out,
// the supervision tree (`tree`) and the route table (`api`, one group per route module), so what a module depends on
// is read where its group is built.
import type { Config } from '../config/schema.js';
import { ImagePool } from '../actors/image-pool.js';
import { VerifyPool } from '../actors/verify-pool.js';
import { AccountViews } from './views/account-views.js';
import { RenderBundleStore } from './store/render-bundle.js';
import { ReportViews } from './views/report-views.js';
import { AdminAccountViews } from './views/admin-account-views.js';
import { StatusViews } from './views/status-views.js';
import { StatusCache } from './views/status-cache.js';
import { AccountCache } from './views/account-cache.js';
import type { Clock } from './clock.js';
import { HttpClient } from './federation/http-client.js';
import { InboxHandlers } from './federation/inbox-handlers.js';
import { LocalActors } from './federation/local-actors.js';
import { LocalNotes } from './federation/local-notes.js';
import { NoteHandlers } from './federation/note-handlers.js';
import { Publisher } from './federation/publisher.js';
import { RemoteActors } from './federation/remote-actors.js';
import { RemoteStatements } from './federation/remote-statements.js';
import { RsaSigner } from './federation/rsa.js';
import type { Logger } from './log.js';
import { LocalStorage } from './media/local-storage.js';
import { MediaFiles } from './media/media-files.js';
import { S3Storage } from './media/s3-storage.js';
import type { MediaStorage } from './media/storage.js';
import { sweepStaleTempFiles, tempDirOf } from './media/temp-files.js';
import { TokenCache } from './oauth/token-cache.js';
import { TokenUsage } from './oauth/token-usage.js';
import { FollowService } from './services/follow-service.js';
import { InteractionService } from './services/interaction-service.js';
import { PollService } from './services/poll-service.js';
import { StatusService } from './services/status-service.js';
import { AccountStore } from './store/accounts.js';
import { BlockStore } from './store/blocks.js';
import { ConversationStore } from './store/conversations.js';
import type { Database } from './store/db.js';
import { DeliveryStore } from './store/deliveries.js';
import { HistoryJobStore } from './store/history-jobs.js';
import { FollowStore } from './store/follows.js';
import { HistoryPruneStore } from './store/history-prune.js';
import { MediaFetchLocks } from './store/media-fetch-locks.js';
import { HistorySettingsStore } from './store/history-settings.js';
import { IdentityStatementStore } from './store/identity-statements.js';
import { CachedInstanceCounts } from './store/instance-stats.js';
import { InboxJobStore } from './store/inbox-jobs.js';
import { LeaseStore } from './store/leases.js';
import { InteractionStore } from './store/interactions.js';
import { ListStore } from './store/lists.js';
import { FilterStore } from './store/filters.js';
import { FilterCache } from './views/filter-apply.js';
import { MarkerStore } from './store/markers.js';
import { MediaStore } from './store/media.js';
import { MuteStore } from './store/mutes.js';
import { NotificationGroupStore } from './store/notification-groups.js';
import { NotificationRequestStore } from './store/notification-requests.js';
import { NotificationStore } from './store/notifications.js';
import { AppStore } from './store/oauth-apps.js';
import { CodeStore } from './store/oauth-codes.js';
import { TokenStore } from './store/oauth-tokens.js';
import { PollStore } from './store/polls.js';
import { ThrottleCounterStore } from './store/throttle-counters.js';
import { CachedQueueStats } from './store/queue-stats.js';
import { ReactionStore } from './store/reactions.js';
import { RemoteHistoryStore } from './store/remote-history.js';
import { RemoteImageStore } from './store/remote-images.js';
import { ReportStore } from './store/reports.js';
import { SessionStore } from './store/sessions.js';
import { SettingsStore } from './store/settings.js';
import { StatusStore } from './store/statuses.js';
import { StreamAudienceStore } from './store/stream-audience.js';
import { TimelineStore } from './store/timelines.js';
import { ThreadStore } from './store/threads.js';
import { REF_PAGES } from './store/ref-pages.js';
import { UserStore } from './store/users.js';
import { MemberPreferenceStore } from './store/member-preferences.js';
import { DomainBlockStore } from './store/domain-blocks.js';
import { AccountModerationStore } from './store/account-moderation.js';
import { PushDeliveryStore } from './store/push-deliveries.js';
import { PushSubscriptionStore } from './store/push-subscriptions.js';
import { newVapidKeys, VAPID_SETTING, type VapidKeys } from './push/vapid.js';
import { LocalUris } from './urls/local-uris.js';
import { MediaUrls } from './urls/media-urls.js';
import { HistoryRunner } from './history/history-runner.js';
import { STOA_VERSION } from './version.js';
import { Wake } from './wake.js';
import { profileViewed } from './api/remote-history.js';
import { StreamFilters } from './api/streaming/stream-filters.js';

export type Wiring = Awaited<ReturnType<typeof wire>>;

/** Every store over the one database. */
function stores(db: Database, config: Config, pollsDue: Wake) {
  return {
    users: new UserStore(db),
    settings: new SettingsStore(db),
    sessions: new SessionStore(db),
    apps: new AppStore(db),
    codes: new CodeStore(db),
    tokens: new TokenStore(db),
    accounts: new AccountStore(db),
    follows: new FollowStore(db),
    blocks: new BlockStore(db),
    mutes: new MuteStore(db),
    inboxJobs: new InboxJobStore(db),
    deliveries: new DeliveryStore(db),
    historyJobs: new HistoryJobStore(db, undefined, config.federation.historyDbConnections),
    statements: new IdentityStatementStore(db),
    statuses: new StatusStore(db),
    threads: new ThreadStore(db),
    timelines: new TimelineStore(db),
    // The client API's timelines name their statuses by row version (ref-pages.ts): the render cache answers for rows.
    timelineRefs: new TimelineStore(db, REF_PAGES),
    interactions: new InteractionStore(db),
    notifications: new NotificationStore(db),
    notificationGroups: new NotificationGroupStore(db),
    notificationRequests: new NotificationRequestStore(db),
    conversations: new ConversationStore(db),
    // Streaming: who among this node's clients is shown an event.
    streamAudience: new StreamAudienceStore(db),
    markers: new MarkerStore(db),
    lists: new ListStore(db),
    filters: new FilterStore(db),
    reports: new ReportStore(db),
    media: new MediaStore(db),
    polls: new PollStore(db, { updateDelayMs: config.federation.pollUpdateDelayMs }, pollsDue),
    reactions: new ReactionStore(db),
    remoteImages: new RemoteImageStore(db),
    memberPreferences: new MemberPreferenceStore(db),
    // Remote history: the operator's settings (cached, invalidated across nodes) and the per-actor records.
    historySettings: new HistorySettingsStore(db),
    remoteHistories: new RemoteHistoryStore(db),
    historyPrune: new HistoryPruneStore(db),
    // Federation policy: the operator's domain blocks (cached, invalidated across nodes).
    domainBlocks: new DomainBlockStore(db),
    accountModeration: new AccountModerationStore(db),
    // Web Push: the members' subscriptions and the queue of pushes (filled by a trigger on notifications).
    pushSubscriptions: new PushSubscriptionStore(db),
    pushDeliveries: new PushDeliveryStore(db),
    instanceCounts: new CachedInstanceCounts(db, config.instance.statsMaxAgeMs),
    // Read only by /metrics: at most one count of the queue tables every 5 s, however often it is scraped.
    queueStats: new CachedQueueStats(db, 5_000),
    // The cluster: throttle counters every node shares, and the leases a node that is gone leaves behind.
    throttleCounters: new ThrottleCounterStore(db),
    leases: new LeaseStore(db),
  };
}

/** A temporary file untouched for this long belongs to no live request. */
const STALE_TEMP_MS = 60 * 60_000;

/** The configured media storage (a directory, or an S3-compatible bucket), shared by every node of a cluster. */
export function mediaStorage(config: Config): MediaStorage {
  const s = config.media.storage;
  return s.kind === 'local' ? new LocalStorage(s.dir) : new S3Storage(s);
}

export async function wire(config: Config, log: Logger, db: Database, clock: Clock, storage = mediaStorage(config)) {
  // Wake-ups from those who queue work to the actors that do it, connected when each actor starts (app.ts).
  // Each wake waits for the transaction that queued the work (if any) to commit.
  const afterCommit = (fn: () => void) => db.afterCommit(fn);
  const wakes = {
    deliveryDue: new Wake<[hosts: readonly string[]]>(afterCommit),
    pollsDue: new Wake(afterCommit),
    inboxQueued: new Wake(afterCommit),
    // Remote history jobs queued or given back, or the feature switched on: the history scheduler looks for work.
    historyDue: new Wake(afterCommit),
    // A manual prune queued media files: the history sweep deletes them now rather than within the minute.
    mediaCleanupQueued: new Wake(afterCommit),
    // Pushes queued for these push service hosts (heard on stoa_work: the trigger that queues them notifies).
    pushDue: new Wake<[hosts: readonly string[]]>(),
  };
  const s = stores(db, config, wakes.pollsDue);
  const tokenCache = new TokenCache();
  db.onMembersChanged = (accountIds) => tokenCache.dropAccounts(accountIds);
  const tokenUsage = new TokenUsage(s.tokens, log.child({ component: 'token-usage' }));
  const verifyPool = new VerifyPool(config.verifyPool);
  const uris = new LocalUris(config);
  const rsa = new RsaSigner(config.verifyPool.maxQueue);
  const mediaFiles = new MediaFiles(storage);
  // First fetches of remote files, once for the cluster: a quarter of the pool at most (each holds a connection),
  // a wait as long as another node's fetch may take (the fetch's bound, and time to store it).
  const mediaFetchLocks = new MediaFetchLocks(db, Math.max(1, Math.floor(config.databasePoolMax / 4)), config.federation.fetchTimeoutMs + 5_000);
  // Re-encoding uploaded images: one thread is plenty for a small server, two at most beside the event loop.
  const imagePool = new ImagePool({ maxThreads: Math.min(2, config.verifyPool.maxThreads), maxQueue: 64, idleTimeoutMs: 60_000 });
  // Temporary files a killed process left (uploads in flight); in the background, as nothing waits on it.
  void sweepStaleTempFiles(tempDirOf(config.dataDir), STALE_TEMP_MS).then(
    (removed) => removed > 0 && log.info({ removed }, 'removed stale temporary upload files'),
    (err: unknown) => log.warn({ err }, 'could not sweep temporary upload files'),
  );

  // Federation: our actors and their keys, the one outbound client, remote actors, sending and receiving.
  const localActors = new LocalActors(s.accounts, rsa, uris, config, s.statements, clock);
  await localActors.start();
  const httpClient = new HttpClient({
    policy: { allow: config.federation.allowPrivate },
    timeoutMs: config.federation.fetchTimeoutMs,
    maxBytes: config.federation.maxResponseBytes,
    userAgent: `Stoa/${STOA_VERSION} (+${config.baseUrl})`,
    // Nothing is fetched from, or delivered to, a suspended domain.
    refusesHost: async (host) => (await s.domainBlocks.policyFor(host)).suspend,
  });
  const fedLog = log.child({ component: 'federation' });
  const remoteStatements = new RemoteStatements({ pool: verifyPool, statements: s.statements, clock, log: fedLog });
  const remote = new RemoteActors({
    config,
    log: fedLog,
    accounts: s.accounts,
    http: httpClient,
    uris,
    signer: localActors.instanceSigner,
    statements: remoteStatements,
  });
  const publisher = new Publisher(s.deliveries, s.follows, config, wakes.deliveryDue);
  const localNotes = new LocalNotes({ config, statuses: s.statuses, accounts: s.accounts, media: s.media, polls: s.polls, uris });
  const notes = new NoteHandlers({
    db,
    log: fedLog,
    accounts: s.accounts,
    follows: s.follows,
    statuses: s.statuses,
    interactions: s.interactions,
    remote,
    notifier: s.notifications,
    media: s.media,
    polls: s.polls,
    reactions: s.reactions,
    uris,
    http: httpClient,
    signer: localActors.instanceSigner,
  });

  // What members do: follow, post, interact, vote.
  const followService = new FollowService(s.follows, s.blocks, localActors, publisher, s.notifications);
  const statusService = new StatusService({
    config,
    db,
    log: fedLog,
    statuses: s.statuses,
    accounts: s.accounts,
    remote,
    publisher,
    uris,
    notifier: s.notifications,
    media: s.media,
    polls: s.polls,
    notes: localNotes,
  });
  const pollService = new PollService({ log: fedLog, db, polls: s.polls, accounts: s.accounts, statuses: s.statuses, publisher, uris, statusService, notes });
  const interactionService = new InteractionService({
    db,
    accounts: s.accounts,
    statuses: s.statuses,
    interactions: s.interactions,
    publisher,
    uris,
    notifier: s.notifications,
    reactions: s.reactions,
    notes: localNotes,
  });
  const inboxHandlers = new InboxHandlers({
    log: fedLog,
    accounts: s.accounts,
    follows: s.follows,
    blocks: s.blocks,
    remote,
    actors: localActors,
    publisher,
    notes,
    notifier: s.notifications,
    reports: s.reports,
    statuses: s.statuses,
    rejectsReportsFrom: async (host) => (await s.domainBlocks.policyFor(host)).rejectReports,
  });

  // Remote history: one job's walk of an outbox and its imports (the scheduler that runs jobs holds it).
  const historyRunner = new HistoryRunner({
    log: log.child({ component: 'history' }),
    http: httpClient,
    signer: localActors.instanceSigner,
    accounts: s.accounts,
    statuses: s.statuses,
    media: s.media,
    polls: s.polls,
    uris,
    settings: s.historySettings,
  });

  // How clients see it: entities rendered a page at a time.
  const accountViews = new AccountViews(s.follows, config);
  const mediaUrls = new MediaUrls(config.baseUrl, await s.settings.secret('media_proxy_secret'), config.media.publicUrl);
  // Web Push: one VAPID key pair for the cluster, and the key that seals subscriptions' access tokens.
  const vapid = await s.settings.generated<VapidKeys>(VAPID_SETTING, newVapidKeys);
  const pushTokenKey = await s.settings.secret('push_token_key');
  const statusCache = new StatusCache(config.statusCache.maxEntries, config.statusCache.maxBytes);
  // Members' content filters, kept per node (dropped on every node when one changes, api/filter-apply.ts).
  const filterCache = new FilterCache(s.filters);
  // Accounts rendered without counts, per node, under the same bounds (api/account-cache.ts).
  const accountCache = new AccountCache(config.statusCache.maxEntries, config.statusCache.maxBytes);
  const statusViews = new StatusViews(
    accountViews,
    s.statuses,
    uris,
    s.media,
    mediaUrls,
    s.polls,
    new RenderBundleStore(db),
    statusCache,
    filterCache,
    accountCache,
  );
  const adminAccountViews = new AdminAccountViews(s.users, accountViews);
  const reportViews = new ReportViews(s.accounts, adminAccountViews, s.statuses, accountViews, statusViews);

  // An operator's Prune now (API and admin page): one batch under the current retention, at the clock's time.
  const manualPrune = async (byAccountId: string) => {
    const r = await s.historyPrune.prune('manual', (await s.historySettings.current()).retentionDays, new Date(clock.now()), byAccountId);
    if (r.mediaQueued > 0) wakes.mediaCleanupQueued.wake();
    return r;
  };

  // The route modules' dependencies, one group per line of the route table (routes.ts adds what exists only once
  // the node runs: the auth-event listener, the web and OAuth state, the instance documents).
  const apiLog = log.child({ component: 'api' });
  const mediaLog = log.child({ component: 'media' });
  const { baseUrl } = config;
  const uploads = { files: mediaFiles, images: imagePool, tempDir: tempDirOf(config.dataDir) };
  const listed = { accounts: s.accounts, statuses: s.statuses, accountViews, statusViews };
  const historyApi = {
    log: apiLog,
    accounts: s.accounts,
    histories: s.remoteHistories,
    settings: s.historySettings,
    // A switched-on feature: this node's scheduler looks for queued jobs at once (other nodes hear the NOTIFY).
    onSettingsChanged: () => wakes.historyDue.wake(),
    prune: manualPrune,
  };
  const searchApi = { config, log: apiLog, follows: s.follows, timelines: s.timelines, remote, notes, uris, ...listed };
  const notificationViews = { baseUrl, notifications: s.notifications, reports: s.reports, reportViews, ...listed };
  const api = {
    db,
    metricsToken: config.metrics.token,
    discovery: { config, counts: s.instanceCounts, accounts: s.accounts, uris },
    actors: { accounts: s.accounts, follows: s.follows, actors: localActors },
    remoteProfile: {
      accounts: s.accounts,
      timelines: s.timelines,
      histories: s.remoteHistories,
      settings: s.historySettings,
      statusViews,
      profileViewed: profileViewed(historyApi),
    },
    inbox: {
      log: fedLog,
      accounts: s.accounts,
      remote,
      jobs: s.inboxJobs,
      rsa,
      maxBodyBytes: config.limits.bodyBytes,
      queued: () => wakes.inboxQueued.wake(),
      suspended: async (host: string) => (await s.domainBlocks.policyFor(host)).suspend,
    },
    notes: { accounts: s.accounts, statuses: s.statuses, timelines: s.timelines, notes: localNotes, uris },
    accounts: { config, log: apiLog, users: s.users, accounts: s.accounts, follows: s.follows, remote, followService, views: accountViews },
    blocks: { mutes: s.mutes },
    uploads,
    identityStatements: { clock, pool: verifyPool, statements: s.statements, accounts: s.accounts, uris, followService },
    preferences: { markers: s.markers, memberPreferences: s.memberPreferences },
    statuses: { accounts: s.accounts, statuses: s.statuses, threads: s.threads, service: statusService, views: statusViews, interactions: interactionService },
    statusActions: {
      baseUrl,
      accounts: s.accounts,
      statuses: s.statuses,
      interactions: s.interactions,
      service: interactionService,
      views: statusViews,
      accountViews,
    },
    reactions: { accounts: s.accounts, statuses: s.statuses, reactions: s.reactions, service: interactionService, views: statusViews, accountViews },
    polls: { accounts: s.accounts, statuses: s.statuses, polls: s.polls, service: pollService },
    media: { baseUrl, publicUrl: config.media.publicUrl, multipartBytes: config.limits.multipartBytes, media: s.media, ...uploads },
    mediaProxy: {
      log: mediaLog,
      media: s.media,
      statuses: s.statuses,
      files: mediaFiles,
      locks: mediaFetchLocks,
      urls: mediaUrls,
      http: httpClient,
      signer: localActors.instanceSigner,
      rejectsMedia: async (accountId: string, url: string) =>
        s.domainBlocks.rejectsMediaFrom([(await s.accounts.byId(accountId))?.domain ?? null, DomainBlockStore.hostOf(url)]),
      retryMs: config.federation.mediaProxyRetryMs,
      cacheMaxBytes: config.federation.mediaProxyCacheMaxBytes,
    },
    remoteImages: {
      config,
      log: mediaLog,
      accounts: s.accounts,
      images: s.remoteImages,
      files: mediaFiles,
      locks: mediaFetchLocks,
      http: httpClient,
      signer: localActors.instanceSigner,
      rejectsMediaFrom: (hosts: readonly (string | null)[]) => s.domainBlocks.rejectsMediaFrom(hosts),
    },
    timelines: {
      baseUrl,
      accounts: s.accounts,
      accountCache,
      statuses: s.statuses,
      timelines: s.timelineRefs,
      views: statusViews,
      profileViewed: profileViewed(historyApi),
    },
    lists: { baseUrl, lists: s.lists, timelines: s.timelineRefs, ...listed },
    search: searchApi,
    filters: { filters: s.filters, statuses: s.statuses },
    filtersV1: { filters: s.filters },
    notifications: notificationViews,
    groupedNotifications: { ...notificationViews, groups: s.notificationGroups, markers: s.markers },
    notificationRequests: { baseUrl, requests: s.notificationRequests, ...listed },
    push: { subscriptions: s.pushSubscriptions, serverKey: vapid.publicKey, tokenKey: pushTokenKey, allowPrivate: config.federation.allowPrivate },
    conversations: { baseUrl, conversations: s.conversations, ...listed },
    reports: {
      accounts: s.accounts,
      statuses: s.statuses,
      reports: s.reports,
      accountViews,
      publisher,
      actors: localActors,
      uris,
      notifier: s.notifications,
    },
    history: historyApi,
    adminReports: { baseUrl, log: apiLog, reports: s.reports, views: reportViews },
    domainBlocks: { baseUrl, log: apiLog, blocks: s.domainBlocks },
    adminAccounts: {
      baseUrl,
      log: apiLog,
      accounts: s.accounts,
      users: s.users,
      moderation: s.accountModeration,
      reports: s.reports,
      views: adminAccountViews,
    },
    // Pages.
    preferencesPage: s.memberPreferences,
    statusPage: { accounts: s.accounts, statuses: s.statuses, media: s.media, mediaUrls, memberPreferences: s.memberPreferences },
    reportPage: { reports: s.reports, accounts: s.accounts, statuses: s.statuses },
    adminHistoryPage: { settings: s.historySettings, prune: s.historyPrune, onSettingsChanged: historyApi.onSettingsChanged, pruneNow: manualPrune },
    domainBlocksPage: { blocks: s.domainBlocks },
  };

  // What the cluster's events reach on this node (cluster-events.ts): the per-node caches and the wake ports.
  const cluster = { tokenCache, statusCache, accountCache, filterCache, domainBlocks: s.domainBlocks, historySettings: s.historySettings, wakes };

  return {
    /** The lifecycle's (app.ts): the front end's state (OAuth, sessions, throttles), metrics' sources, what tests reach. */
    app: {
      users: s.users,
      tokens: s.tokens,
      tokenCache,
      tokenUsage,
      apps: s.apps,
      codes: s.codes,
      sessions: s.sessions,
      settings: s.settings,
      throttleCounters: s.throttleCounters,
      vapid,
      instanceCounts: s.instanceCounts,
      queueStats: s.queueStats,
      verifyPool,
      historyJobs: s.historyJobs,
      historySettings: s.historySettings,
      historyRunner,
      federation: { accounts: s.accounts, follows: s.follows, deliveries: s.deliveries, remote, statements: s.statements, history: historyRunner },
    },
    /** Streaming's fan-out (api/streaming/): who is shown an event, and how it is rendered. */
    streaming: {
      users: s.users,
      audience: s.streamAudience,
      streamFilters: new StreamFilters(filterCache),
      notifications: s.notifications,
      conversations: s.conversations,
      reports: s.reports,
      reportViews,
      ...listed,
    },
    /** The supervision tree's children (supervision.ts): the queues and what works them, and the cluster's events. */
    tree: {
      fedLog,
      wakes,
      cluster,
      verifyPool,
      imagePool,
      tokenUsage,
      inboxJobs: s.inboxJobs,
      inboxHandlers,
      deliveries: s.deliveries,
      httpClient,
      accounts: s.accounts,
      statuses: s.statuses,
      localActors,
      pushDeliveries: s.pushDeliveries,
      pushSubscriptions: s.pushSubscriptions,
      vapid,
      pushTokenKey,
      historyJobs: s.historyJobs,
      historySettings: s.historySettings,
      historyPrune: s.historyPrune,
      polls: s.polls,
      pollService,
      mediaFiles,
      leases: s.leases,
    },
    /** The route table's (routes.ts): one group per module, or per line of modules that share one. */
    api,
  };
}
