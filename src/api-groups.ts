// The route modules' dependencies, one group per line of the route table, built from the node's stores, federation
// machinery, services and views (wiring.ts); routes.ts adds what exists only once the node runs (the auth-event
// listener, the web and OAuth state, the instance documents).
import type { ImagePool } from '../actors/image-pool.js';
import type { VerifyPool } from '../actors/verify-pool.js';
import type { Config } from '../config/schema.js';
import { profileViewed } from './api/remote-history.js';
import type { Clock } from './clock.js';
import type { HttpClient } from './federation/http-client.js';
import type { LocalActors } from './federation/local-actors.js';
import type { LocalNotes } from './federation/local-notes.js';
import type { NoteHandlers } from './federation/note-handlers.js';
import type { Publisher } from './federation/publisher.js';
import type { RemoteActors } from './federation/remote-actors.js';
import type { RsaSigner } from './federation/rsa.js';
import type { Logger } from './log.js';
import type { MediaFiles } from './media/media-files.js';
import { tempDirOf } from './media/temp-files.js';
import { Finder } from './api/lemmy/finder.js';
import type { LemmySiteDeps } from './api/lemmy/deps.js';
import type { CommunityActions } from './services/community-actions.js';
import { AdapterAppStore } from './store/adapter-apps.js';
import { LinkRowStore } from './store/link-rows.js';
import { LinkSiteStore } from './store/link-site.js';
import { CommentViews } from './views/lemmy/comment-views.js';
import { PersonViews } from './views/lemmy/person-views.js';
import { PostViews } from './views/lemmy/post-views.js';
import { SiteView } from './views/lemmy/site-view.js';
import type { VapidKeys } from './push/vapid.js';
import type { CommunityService } from './services/community-service.js';
import { DomainBlockService } from './services/domain-block-service.js';
import type { FollowService } from './services/follow-service.js';
import type { InteractionService } from './services/interaction-service.js';
import type { PollService } from './services/poll-service.js';
import type { StatusService } from './services/status-service.js';
import type { ScheduledPosts } from './services/scheduled-posts.js';
import { ScheduledViews } from './views/scheduled-views.js';
import type { Database } from './store/db.js';
import { LinkPageStore } from './store/link-pages.js';
import { DomainBlockStore } from './store/domain-blocks.js';
import type { MediaFetchLocks } from './store/media-fetch-locks.js';
import type { Stores } from './store/stores.js';
import type { LocalUris } from './urls/local-uris.js';
import type { MediaUrls } from './urls/media-urls.js';
import type { AccountCache } from './views/account-cache.js';
import type { AccountViews } from './views/account-views.js';
import type { AdminAccountViews } from './views/admin-account-views.js';
import type { AnnouncementViews } from './views/announcement-views.js';
import type { ReportViews } from './views/report-views.js';
import type { StatusViews } from './views/status-views.js';
import { TagViews } from './views/tag-views.js';
import type { Wake } from './wake.js';

/** What the route modules' groups are made of (wiring.ts builds each once per node). */
export interface ApiParts {
  readonly config: Config;
  readonly log: Logger;
  readonly fedLog: Logger;
  readonly db: Database;
  readonly clock: Clock;
  readonly s: Stores;
  readonly wakes: { readonly historyDue: Wake; readonly inboxQueued: Wake; readonly mediaCleanupQueued: Wake; readonly mediaQueued: Wake };
  readonly uris: LocalUris;
  readonly rsa: RsaSigner;
  readonly verifyPool: VerifyPool;
  readonly mediaFiles: MediaFiles;
  readonly mediaFetchLocks: MediaFetchLocks;
  readonly imagePool: ImagePool;
  readonly localActors: LocalActors;
  readonly httpClient: HttpClient;
  readonly remote: RemoteActors;
  readonly notes: NoteHandlers;
  readonly localNotes: LocalNotes;
  readonly publisher: Publisher;
  readonly followService: FollowService;
  readonly statusService: StatusService;
  readonly scheduledPosts: ScheduledPosts;
  readonly pollService: PollService;
  readonly interactionService: InteractionService;
  /** A member's posts, comments, votes, follows and saves in link-aggregator communities (the /api/v3 adapter's writes). */
  readonly communities: CommunityService;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
  readonly adminAccountViews: AdminAccountViews;
  readonly reportViews: ReportViews;
  readonly mediaUrls: MediaUrls;
  readonly vapid: VapidKeys;
  readonly pushTokenKey: Buffer;
  readonly accountCache: AccountCache;
  readonly announcementViews: AnnouncementViews;
  /** What a member does in a community through /api/v3: the community service, or a test's stand-in. */
  readonly communityActions: CommunityActions;
}

export function apiGroups(p: ApiParts) {
  const { config, log, fedLog, db, clock, s, wakes, uris, rsa, verifyPool, mediaFiles, mediaFetchLocks, imagePool, localActors, httpClient } = p;
  const { remote, notes, localNotes, publisher, followService, statusService, scheduledPosts, pollService, interactionService } = p;
  const { accountViews, statusViews, adminAccountViews, reportViews, mediaUrls, vapid, pushTokenKey, accountCache } = p;
  // An operator's Prune now (API and admin page): one batch under the current retention, at the clock's time.
  const manualPrune = async (byAccountId: string) => {
    const r = await s.historyPrune.prune('manual', (await s.historySettings.current()).retentionDays, new Date(clock.now()), byAccountId);
    if (r.mediaQueued > 0) wakes.mediaCleanupQueued.wake();
    return r;
  };

  const apiLog = log.child({ component: 'api' });
  const mediaLog = log.child({ component: 'media' });
  const { baseUrl } = config;
  const uploads = { files: mediaFiles, images: imagePool, tempDir: tempDirOf(config.dataDir) };
  const listed = { accounts: s.accounts, statuses: s.statuses, accountViews, statusViews };
  const scheduledViews = new ScheduledViews(s.scheduledStatuses, baseUrl, config.media.publicUrl);
  const historyApi = {
    log: apiLog,
    accounts: s.accounts,
    histories: s.remoteHistories,
    settings: s.historySettings,
    // A switched-on feature: this node's scheduler looks for queued jobs at once (other nodes hear the NOTIFY).
    onSettingsChanged: () => wakes.historyDue.wake(),
    prune: manualPrune,
  };
  const tagViews = new TagViews(s.tags, uris);
  // The link-aggregator adapter (/api/v3): its listings, its batched rows and the views over them.
  const linkRows = new LinkRowStore(db);
  const postViews = new PostViews(linkRows, { config, uris });
  const lemmyReads = { accounts: s.accounts, links: s.linkAggregator, pages: new LinkPageStore(db), rows: linkRows, communities: p.communityActions };
  const searchApi = { config, log: apiLog, follows: s.follows, timelines: s.timelines, remote, notes, uris, tagViews, ...listed };
  // The link-aggregator adapter's site, sign-in, people, communities and search (/api/v3, issue 37).
  const linkSite = new LinkSiteStore(db);
  const lemmyPeople = new PersonViews(postViews.objects, linkSite);
  const lemmySite: LemmySiteDeps = {
    config,
    log: apiLog,
    accounts: s.accounts,
    statuses: s.statuses,
    links: s.linkAggregator,
    site: linkSite,
    finder: new Finder({ config, log: apiLog, accounts: s.accounts, statuses: s.statuses, links: s.linkAggregator, site: linkSite, remote, notes, uris }),
    objects: postViews.objects,
    people: lemmyPeople,
    postViews,
    commentViews: new CommentViews(postViews.objects.rows, postViews),
    siteView: new SiteView({ config, uris, accounts: s.accounts, links: s.linkAggregator, site: linkSite, objects: postViews.objects, people: lemmyPeople }),
    communities: p.communityActions,
  };
  const notificationViews = { baseUrl, notifications: s.notifications, reports: s.reports, reportViews, ...listed };
  const api = {
    db,
    metricsToken: config.metrics.token,
    discovery: { config, counts: s.instanceCounts, accounts: s.accounts, uris },
    actors: { accounts: s.accounts, follows: s.follows, tags: s.tags, actors: localActors },
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
    accountNotes: { accounts: s.accounts, follows: s.follows, notes: s.accountNotes },
    endorsements: { baseUrl, accounts: s.accounts, follows: s.follows, endorsements: s.endorsements, views: accountViews },
    uploads,
    identityStatements: { clock, pool: verifyPool, statements: s.statements, accounts: s.accounts, uris, followService },
    preferences: { markers: s.markers, memberPreferences: s.memberPreferences },
    statuses: {
      accounts: s.accounts,
      statuses: s.statuses,
      threads: s.threads,
      service: statusService,
      views: statusViews,
      interactions: interactionService,
      scheduled: scheduledPosts,
      scheduledViews,
    },
    quotes: { baseUrl, statuses: s.statuses, quotes: s.quotes, views: statusViews },
    scheduledStatuses: { baseUrl, accounts: s.accounts, store: s.scheduledStatuses, service: scheduledPosts, views: scheduledViews },
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
    absentServices: { accounts: s.accounts },
    media: {
      baseUrl,
      log: mediaLog,
      publicUrl: config.media.publicUrl,
      multipartBytes: config.limits.multipartBytes,
      media: s.media,
      mediaJobs: s.mediaJobs,
      mediaQueued: wakes.mediaQueued,
      v1WaitMs: config.media.processing.timeoutMs,
      ...uploads,
    },
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
      images: imagePool,
      tempDir: tempDirOf(config.dataDir),
    },
    cardImages: { cards: s.previewCards, files: mediaFiles },
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
    tags: { baseUrl, accounts: s.accounts, tags: s.tags, views: tagViews, publisher, uris },
    lemmyPosts: { ...lemmyReads, views: postViews },
    lemmyComments: { ...lemmyReads, views: new CommentViews(linkRows, postViews) },
    featuredTags: { accounts: s.accounts, tags: s.tags, views: tagViews, publisher, uris },
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
      rules: s.instanceRules,
    },
    history: historyApi,
    adminReports: { baseUrl, log: apiLog, reports: s.reports, views: reportViews, rules: s.instanceRules },
    domainBlocks: { baseUrl, log: apiLog, blocks: s.domainBlocks },
    trends: { baseUrl, trends: s.trends, statuses: s.statuses, views: statusViews, tagViews },
    adminTrends: {
      baseUrl,
      log: apiLog,
      trends: s.trends,
      publishers: s.trendPublishers,
      statuses: s.statuses,
      views: statusViews,
      tagUrl: (name: string) => uris.tag(name),
    },
    linkTimeline: { baseUrl, trends: s.trends, timelines: s.timelineRefs, views: statusViews },
    lemmySite,
    lemmyLogin: { log: apiLog, users: s.users, adapterApps: new AdapterAppStore(db), maxBodyBytes: config.limits.formBytes },
    // A member's own domain blocks, follow suggestions and the directory (issue 36).
    memberDomainBlocks: {
      baseUrl,
      accounts: s.accounts,
      domainBlocks: s.accountDomainBlocks,
      service: new DomainBlockService({ blocks: s.accountDomainBlocks, accounts: s.accounts, follows: s.follows, followService, publisher, uris }),
    },
    suggestions: { accounts: s.accounts, suggestions: s.suggestions, views: accountViews },
    directory: { accounts: s.accounts, directory: s.directory, views: accountViews },
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
    // The public pages at the URLs we give out (/@name, /@name/id, /tags/name) and their oEmbed.
    publicPages: {
      accounts: s.accounts,
      follows: s.follows,
      statuses: s.statuses,
      timelines: s.timelines,
      threads: s.threads,
      views: statusViews,
      uris,
      tags: s.tags,
    },
    oembed: { config, accounts: s.accounts, statuses: s.statuses, uris },
    // Announcements and the instance's texts (issue 36).
    announcements: { clock, announcements: s.announcements, views: p.announcementViews },
    instanceExtras: { clock, activity: s.instanceActivity, rules: s.instanceRules, texts: s.instanceTexts },
    announcementsPage: { announcements: s.announcements },
    rulesPage: { rules: s.instanceRules, texts: s.instanceTexts },
  };
  return api;
}
