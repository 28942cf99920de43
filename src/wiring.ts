// Builds the parts of the application from a Config and an open database: every store, the federation machinery
// and the member-action services, with the wake-up ports that connect those who queue work to the actors that do
// it. Nothing here runs anything: supervision.ts starts the actors, app.ts the HTTP front end, routes.ts maps URLs
// to handlers. wire() hands them out as named groups, each to the one that uses it: the lifecycle (`app`),
// streaming's fan-out, the supervision tree (`tree`) and the route table (`api`, one group per route module, made by
// api-groups.ts), so what a module depends on is read where its group is built.
import type { Config } from '../config/schema.js';
import { ImagePool } from '../actors/image-pool.js';
import { VerifyPool } from '../actors/verify-pool.js';
import { AccountViews } from './views/account-views.js';
import { RenderBundleStore } from './store/render-bundle.js';
import { ReportViews } from './views/report-views.js';
import { AdminAccountViews } from './views/admin-account-views.js';
import { AnnouncementViews } from './views/announcement-views.js';
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
import { CommunityActors } from './federation/community-actors.js';
import type { Account } from './store/accounts.js';
import { CommunityInbox } from './federation/community-inbox.js';
import { RemoteActors } from './federation/remote-actors.js';
import { RemoteStatements } from './federation/remote-statements.js';
import { RsaSigner } from './federation/rsa.js';
import type { Logger } from './log.js';
import { MediaFiles } from './media/media-files.js';
import type { MediaStorage } from './media/storage.js';
import { tempDirOf } from './media/temp-files.js';
import { TokenCache } from './oauth/token-cache.js';
import { TokenUsage } from './oauth/token-usage.js';
import { FollowService } from './services/follow-service.js';
import { InteractionService } from './services/interaction-service.js';
import { PollService } from './services/poll-service.js';
import { StatusService } from './services/status-service.js';
import { LinkCards } from './services/link-cards.js';
import { ScheduledPosts } from './services/scheduled-posts.js';
import type { Database } from './store/db.js';
import { MediaFetchLocks } from './store/media-fetch-locks.js';
import { LinkRankRefresh } from './store/link-rank-refresh.js';
import { FilterCache } from './views/filter-apply.js';
import { newVapidKeys, VAPID_SETTING, type VapidKeys } from './push/vapid.js';
import { LocalUris } from './urls/local-uris.js';
import { MediaUrls } from './urls/media-urls.js';
import { HistoryRunner } from './history/history-runner.js';
import { STOA_VERSION } from './version.js';
import { workWakes } from './wake.js';
import { StreamFilters } from './api/streaming/stream-filters.js';
import { stores } from './store/stores.js';
import { CommunityService } from './services/community-service.js';
import { apiGroups } from './api-groups.js';
import type { CommunityActions } from './services/community-actions.js';

export type Wiring = Awaited<ReturnType<typeof wire>>;

export async function wire(config: Config, log: Logger, db: Database, clock: Clock, storage: MediaStorage, communityActions?: CommunityActions) {
  // Wake-ups from those who queue work to the actors that do it, connected when each actor starts (supervision.ts).
  // Each wake waits for the transaction that queued the work (if any) to commit.
  const afterCommit = (fn: () => void) => db.afterCommit(fn);
  const wakes = workWakes(afterCommit);
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
  // A Group stored is filed as a community; its moderators are resolved through `remote` (made next).
  const communityActors = new CommunityActors({
    log: fedLog,
    store: s.linkAggregator,
    http: httpClient,
    signer: localActors.instanceSigner,
    resolve: (uri): Promise<Account> => remote.byUri(uri),
  });
  const remote = new RemoteActors({
    config,
    log: fedLog,
    accounts: s.accounts,
    http: httpClient,
    uris,
    signer: localActors.instanceSigner,
    statements: remoteStatements,
    communities: communityActors,
  });
  const publisher = new Publisher(s.deliveries, s.follows, config, wakes.deliveryDue);
  const localNotes = new LocalNotes({ config, statuses: s.statuses, accounts: s.accounts, media: s.media, polls: s.polls, uris, links: s.linkAggregator });
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
  const followService = new FollowService(s.follows, s.blocks, localActors, publisher, s.notifications, s.accountDomainBlocks);
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
  const scheduledPosts = new ScheduledPosts({
    db,
    log: log.child({ component: 'scheduled' }),
    scheduled: s.scheduledStatuses,
    accounts: s.accounts,
    statuses: s.statuses,
    service: statusService,
    minOffsetMs: config.scheduled.minOffsetMs,
    publishHoldMs: config.scheduled.publishHoldMs,
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
  const communityService = new CommunityService({
    config,
    db,
    accounts: s.accounts,
    statuses: s.statuses,
    follows: s.follows,
    interactions: s.interactions,
    links: s.linkAggregator,
    rules: s.communityRules,
    notifier: s.notifications,
    notes: localNotes,
    publisher,
    uris,
    followService,
    suspended: async (host) => (await s.domainBlocks.policyFor(host)).suspend,
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
    domainBlocks: s.accountDomainBlocks,
    communities: new CommunityInbox({
      log: fedLog,
      db,
      accounts: s.accounts,
      follows: s.follows,
      statuses: s.statuses,
      remote,
      links: s.linkAggregator,
      media: s.media,
      polls: s.polls,
      notifier: s.notifications,
      uris,
      http: httpClient,
      signer: localActors.instanceSigner,
      suspended: async (host) => (await s.domainBlocks.policyFor(host)).suspend,
      downvotes: config.linkAggregator.downvotes,
    }),
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
  const reportViews = new ReportViews(s.accounts, adminAccountViews, s.statuses, accountViews, statusViews, s.instanceRules);
  const announcementViews = new AnnouncementViews({
    baseUrl: config.baseUrl,
    localDomain: config.localDomain,
    uris,
    announcements: s.announcements,
    accounts: s.accounts,
    statuses: s.statuses,
  });

  const api = apiGroups({
    config,
    log,
    fedLog,
    db,
    clock,
    s,
    wakes,
    uris,
    rsa,
    verifyPool,
    mediaFiles,
    mediaFetchLocks,
    imagePool,
    localActors,
    httpClient,
    remote,
    notes,
    localNotes,
    publisher,
    followService,
    statusService,
    scheduledPosts,
    pollService,
    interactionService,
    communities: communityService,
    accountViews,
    statusViews,
    adminAccountViews,
    reportViews,
    mediaUrls,
    vapid,
    pushTokenKey,
    accountCache,
    announcementViews,
    // A test may stand in for the service to drive the routes alone.
    communityActions: communityActions ?? communityService,
  });
  const listed = { accounts: s.accounts, statuses: s.statuses, accountViews, statusViews };

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
      instanceRules: s.instanceRules,
      queueStats: s.queueStats,
      verifyPool,
      historyJobs: s.historyJobs,
      homeFeedJobs: s.homeFeedJobs,
      historySettings: s.historySettings,
      historyRunner,
      federation: {
        accounts: s.accounts,
        follows: s.follows,
        deliveries: s.deliveries,
        remote,
        statements: s.statements,
        history: historyRunner,
        communities: communityService,
        links: s.linkAggregator,
      },
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
      announcements: s.announcements,
      announcementViews,
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
      scheduledPosts,
      // Link preview cards, fetched in the background (the card-fetcher child).
      linkCards: new LinkCards({
        cards: s.previewCards,
        http: httpClient,
        files: mediaFiles,
        images: imagePool,
        tempDir: tempDirOf(config.dataDir),
        log: log.child({ component: 'link-cards' }),
        baseUrl: config.baseUrl,
      }),
      mediaFiles,
      mediaJobs: s.mediaJobs,
      homeFeedJobs: s.homeFeedJobs,
      leases: s.leases,
      trends: s.trends,
      // The link aggregator's rank decay (the lemmy-ranks child).
      linkRanks: new LinkRankRefresh(db, s.linkAggregator),
    },
    /** The route table's (routes.ts): one group per module, or per line of modules that share one. */
    api,
  };
}
