// The route table: every URL the server answers, by the prefixes each module serves (a path is one of its line's
// prefixes or lies under one, checked at start), so `grep` on any path's prefix finds the file that handles it. Who may call each
// route (its AuthRule: scopes, member only, optional) is declared on the route in its module; the front end checks
// it before the body is read.
import type { AuthEventListener } from './store/auth-events.js';
import { accountRoutes } from './api/accounts.js';
import { adminAccountRoutes } from './api/admin-accounts.js';
import { domainBlockRoutes } from './api/admin-domain-blocks.js';
import { adminReportRoutes } from './api/admin-reports.js';
import { appRoutes } from './api/apps.js';
import { blockRoutes } from './api/blocks.js';
import { conversationRoutes } from './api/conversations.js';
import type { OAuthDeps } from './http/oauth-deps.js';
import { followRoutes } from './api/follows.js';
import { groupedNotificationRoutes } from './api/grouped-notifications.js';
import { identityStatementRoutes } from './api/identity-statements.js';
import { type InstanceDocuments, instanceRoutes } from './api/instance.js';
import { listRoutes } from './api/lists.js';
import { filterRoutes } from './api/filters.js';
import { filterV1Routes } from './api/filters-v1.js';
import { mediaProxyRoutes } from './api/media-proxy.js';
import { mediaRoutes } from './api/media.js';
import { tempDirOf } from './media/temp-files.js';
import { notificationRoutes } from './api/notifications.js';
import { notificationRequestRoutes } from './api/notification-requests.js';
import { oauthRoutes } from './api/oauth.js';
import { pollRoutes } from './api/polls.js';
import { pushRoutes } from './api/push.js';
import { preferenceRoutes } from './api/preferences.js';
import { profileRoutes } from './api/profile.js';
import { reactionRoutes } from './api/reactions.js';
import { profileViewed, remoteHistoryRoutes } from './api/remote-history.js';
import { remoteImageRoutes } from './api/remote-images.js';
import { reportRoutes } from './api/reports.js';
import { searcher, searchRoutes } from './api/search.js';
import { statusActionRoutes } from './api/status-actions.js';
import { statusRoutes } from './api/statuses.js';
import { timelineRoutes } from './api/timelines.js';
import { actorRoutes } from './federation/actor-routes.js';
import { discoveryRoutes } from './federation/discovery-routes.js';
import { inboxRoutes } from './federation/inbox-route.js';
import { noteRoutes } from './federation/note-routes.js';
import type { Route } from './http/types.js';
import type { Metrics } from './metrics/registry.js';
import { metricsRoutes } from './metrics/route.js';
import { adminDomainBlocksPageRoutes } from './web/admin-domain-blocks-page.js';
import { adminHistoryPageRoutes } from './web/admin-history-page.js';
import { authPageRoutes } from './web/auth-pages.js';
import { authorizedAppsPageRoutes } from './web/authorized-apps-page.js';
import { authorizePageRoutes } from './web/authorize-page.js';
import type { WebDeps } from './web/deps.js';
import { profilePage } from './web/profile-page.js';
import { remoteProfilePage, remoteProfileRoutes, type RemoteProfileDeps } from './web/remote-profile-page.js';
import { registrationPageRoutes } from './web/registration-pages.js';
import { reportPageRoutes } from './web/report-pages.js';
import { staticPageRoutes } from './web/static-pages.js';
import { mediaFallbackScriptRoutes } from './web/media-fallback.js';
import { preferencesPageRoutes } from './web/preferences-page.js';
import { searchPageRoutes } from './web/search-page.js';
import { statusPageRoutes } from './web/status-page.js';
import { DomainBlockStore } from './store/domain-blocks.js';
import type { Wiring } from './wiring.js';

export interface RouteDeps {
  readonly w: Wiring;
  readonly oauth: OAuthDeps;
  readonly web: WebDeps;
  readonly instanceDocs: InstanceDocuments;
  readonly authEvents: AuthEventListener;
  /** Null when metrics are off (no METRICS_TOKEN nor METRICS_LISTEN). */
  readonly metrics: Metrics | null;
  /** The SSE streams and the streaming health check (api/streaming/); the WebSocket is served beside the table. */
  readonly streamingRoutes: readonly Route[];
}

/** A module's routes, each checked to lie under one of the prefixes its table line names. */
export interface Mount {
  readonly prefixes: readonly string[];
  readonly routes: readonly Route[];
}

function mount(prefixes: readonly string[], routes: readonly Route[]): Mount {
  for (const r of routes) {
    if (!prefixes.some((p) => r.path === p || (p !== '/' && r.path.startsWith(`${p}/`)))) {
      throw new Error(`${r.method} ${r.path} lies under none of its table line's prefixes (${prefixes.join(', ')})`);
    }
  }
  return { prefixes, routes };
}

/**
 * Marks the named routes ('POST /api/v1/media') as taking files: only their multipart bodies may reach
 * MAX_MULTIPART_BYTES (http/body.ts limitFor); a name that matches no route of the module stops start-up.
 */
function takingFiles(routes: readonly Route[], ...names: readonly string[]): Route[] {
  for (const name of names) {
    if (!routes.some((r) => `${r.method} ${r.path}` === name && r.body)) throw new Error(`${name}: no such route with a body to take files`);
  }
  return routes.map((r) => (names.includes(`${r.method} ${r.path}`) ? { ...r, takesFiles: true } : r));
}

export function routeTable({ w, oauth, web, instanceDocs, authEvents, metrics, streamingRoutes }: RouteDeps): Mount[] {
  const { config } = w;
  const apiLog = w.log.child({ component: 'api' });
  const mediaLog = w.log.child({ component: 'media' });
  const uploads = { files: w.mediaFiles, images: w.imagePool, tempDir: tempDirOf(config.dataDir) };
  const accountApi = {
    config,
    log: apiLog,
    authEvents,
    users: w.users,
    accounts: w.accounts,
    follows: w.follows,
    remote: w.remote,
    followService: w.followService,
    views: w.accountViews,
  };
  const historyApi = {
    log: apiLog,
    accounts: w.accounts,
    histories: w.remoteHistories,
    settings: w.historySettings,
    // A switched-on feature: this node's scheduler looks for queued jobs at once (other nodes hear the NOTIFY).
    onSettingsChanged: () => w.wakes.historyDue.wake(),
    prune: w.manualPrune,
  };
  const remoteProfile: RemoteProfileDeps = {
    web,
    accounts: w.accounts,
    timelines: w.timelines,
    histories: w.remoteHistories,
    settings: w.historySettings,
    statusViews: w.statusViews,
    profileViewed: profileViewed(historyApi),
  };
  const listed = { accounts: w.accounts, statuses: w.statuses, accountViews: w.accountViews, statusViews: w.statusViews };
  const searchApi = { config, log: apiLog, follows: w.follows, timelines: w.timelines, remote: w.remote, notes: w.notes, uris: w.uris, ...listed };
  return [
    // The server itself, discovery and ActivityPub.
    mount(['/api/v1/instance', '/api/v2/instance', '/health'], instanceRoutes(instanceDocs, w.db)),
    // Streaming: server-sent events and health (the WebSocket at /api/v1/streaming is uWS's, api/streaming/websocket.ts).
    mount(['/api/v1/streaming'], streamingRoutes),
    // For operators: Prometheus metrics, served here only behind METRICS_TOKEN (none: no route).
    mount(['/metrics'], metricsRoutes(metrics, config.metrics.token)),
    mount(
      ['/.well-known/webfinger', '/.well-known/host-meta', '/.well-known/host-meta.json', '/.well-known/nodeinfo', '/nodeinfo'],
      discoveryRoutes({ config, counts: w.instanceCounts, accounts: w.accounts, uris: w.uris }),
    ),
    mount(
      ['/@:name', '/actor', '/users/:name', '/users/:name/followers', '/users/:name/following', '/users/:name/collections'],
      actorRoutes({
        accounts: w.accounts,
        follows: w.follows,
        actors: w.localActors,
        profilePage: profilePage(web, w.follows),
        remoteProfilePage: remoteProfilePage(remoteProfile),
      }),
    ),
    mount(['/@:name'], remoteProfileRoutes(remoteProfile)),
    mount(
      ['/inbox', '/users/:name/inbox', '/actor/inbox'],
      inboxRoutes({
        log: w.fedLog,
        accounts: w.accounts,
        remote: w.remote,
        jobs: w.inboxJobs,
        rsa: w.rsa,
        maxBodyBytes: config.limits.bodyBytes,
        queued: () => w.wakes.inboxQueued.wake(),
        suspended: async (host) => (await w.domainBlocks.policyFor(host)).suspend,
      }),
    ),
    mount(
      ['/users/:name/outbox', '/users/:name/statuses'],
      noteRoutes({ accounts: w.accounts, statuses: w.statuses, timelines: w.timelines, notes: w.localNotes, uris: w.uris }),
    ),
    // OAuth 2 and apps.
    mount(['/api/v1/apps'], appRoutes(oauth)),
    mount(['/oauth/token', '/oauth/revoke', '/.well-known/oauth-authorization-server'], oauthRoutes(oauth)),
    // Accounts and relationships.
    mount(['/api/v1/accounts', '/api/v1/accounts/lookup', '/api/v1/accounts/verify_credentials', '/api/v1/accounts/:id'], accountRoutes(accountApi)),
    mount(
      [
        '/api/v1/accounts/:id/follow',
        '/api/v1/accounts/:id/unfollow',
        '/api/v1/accounts/:id/followers',
        '/api/v1/accounts/:id/following',
        '/api/v1/accounts/relationships',
        '/api/v1/follow_requests',
      ],
      followRoutes(accountApi),
    ),
    mount(
      [
        '/api/v1/accounts/:id/block',
        '/api/v1/accounts/:id/unblock',
        '/api/v1/accounts/:id/mute',
        '/api/v1/accounts/:id/unmute',
        '/api/v1/blocks',
        '/api/v1/mutes',
      ],
      blockRoutes({ ...accountApi, mutes: w.mutes }),
    ),
    mount(
      ['/api/v1/accounts/update_credentials', '/api/v1/profile', '/system/accounts'],
      takingFiles(profileRoutes({ ...accountApi, ...uploads }), 'PATCH /api/v1/accounts/update_credentials'),
    ),
    mount(
      ['/api/v1/accounts/identity_statements', '/api/v1/accounts/:id/identity_statements'],
      identityStatementRoutes({
        clock: w.clock,
        pool: w.verifyPool,
        statements: w.statements,
        accounts: w.accounts,
        uris: w.uris,
        followService: w.followService,
      }),
    ),
    mount(
      ['/api/v1/preferences', '/api/v1/markers', '/api/v1/custom_emojis'],
      preferenceRoutes({ markers: w.markers, memberPreferences: w.memberPreferences }),
    ),
    // Statuses and what members do with them.
    mount(
      ['/api/v1/statuses', '/api/v1/statuses/:id', '/api/v1/statuses/:id/context', '/api/v1/statuses/:id/history', '/api/v1/statuses/:id/source'],
      statusRoutes({
        accounts: w.accounts,
        statuses: w.statuses,
        threads: w.threads,
        service: w.statusService,
        views: w.statusViews,
        interactions: w.interactionService,
      }),
    ),
    mount(
      ['/api/v1/statuses/:id', '/api/v1/favourites', '/api/v1/bookmarks'],
      statusActionRoutes({
        baseUrl: config.baseUrl,
        accounts: w.accounts,
        statuses: w.statuses,
        interactions: w.interactions,
        service: w.interactionService,
        views: w.statusViews,
        accountViews: w.accountViews,
      }),
    ),
    mount(
      ['/api/v1/pleroma/statuses/:id/reactions'],
      reactionRoutes({
        accounts: w.accounts,
        statuses: w.statuses,
        reactions: w.reactions,
        service: w.interactionService,
        views: w.statusViews,
        accountViews: w.accountViews,
      }),
    ),
    mount(['/api/v1/polls'], pollRoutes({ accounts: w.accounts, statuses: w.statuses, polls: w.polls, service: w.pollService })),
    mount(
      ['/api/v1/media', '/api/v2/media', '/system/media'],
      takingFiles(
        mediaRoutes({ baseUrl: config.baseUrl, publicUrl: config.media.publicUrl, multipartBytes: config.limits.multipartBytes, media: w.media, ...uploads }),
        'POST /api/v1/media',
        'POST /api/v2/media',
      ),
    ),
    mount(
      ['/media_proxy/:id'],
      mediaProxyRoutes({
        log: mediaLog,
        bearer: oauth.bearer,
        media: w.media,
        statuses: w.statuses,
        files: w.mediaFiles,
        locks: w.mediaFetchLocks,
        urls: w.mediaUrls,
        http: w.httpClient,
        signer: w.localActors.instanceSigner,
        rejectsMedia: async (accountId, url) =>
          w.domainBlocks.rejectsMediaFrom([(await w.accounts.byId(accountId))?.domain ?? null, DomainBlockStore.hostOf(url)]),
        retryMs: config.federation.mediaProxyRetryMs,
        cacheMaxBytes: config.federation.mediaProxyCacheMaxBytes,
      }),
    ),
    mount(
      ['/media_proxy/accounts'],
      remoteImageRoutes({
        config,
        log: mediaLog,
        accounts: w.accounts,
        images: w.remoteImages,
        files: w.mediaFiles,
        locks: w.mediaFetchLocks,
        http: w.httpClient,
        signer: w.localActors.instanceSigner,
        rejectsMediaFrom: (hosts) => w.domainBlocks.rejectsMediaFrom(hosts),
      }),
    ),
    // Timelines, lists, search.
    mount(
      ['/api/v1/timelines/home', '/api/v1/timelines/public', '/api/v1/timelines/tag', '/api/v1/accounts/:id/statuses'],
      timelineRoutes({
        baseUrl: config.baseUrl,
        accounts: w.accounts,
        accountCache: w.accountCache,
        statuses: w.statuses,
        timelines: w.timelineRefs,
        views: w.statusViews,
        profileViewed: profileViewed(historyApi),
      }),
    ),
    mount(
      ['/api/v1/lists', '/api/v1/timelines/list', '/api/v1/accounts/:id/lists'],
      listRoutes({ baseUrl: config.baseUrl, lists: w.lists, timelines: w.timelineRefs, ...listed }),
    ),
    mount(['/api/v2/search'], searchRoutes(searchApi)),
    // Content filters (v2, and v1 as Mastodon keeps it).
    mount(['/api/v2/filters'], filterRoutes({ filters: w.filters, statuses: w.statuses })),
    mount(['/api/v1/filters'], filterV1Routes({ filters: w.filters })),
    // Notifications and conversations.
    mount(
      ['/api/v1/notifications'],
      notificationRoutes({ baseUrl: config.baseUrl, notifications: w.notifications, reports: w.reports, reportViews: w.reportViews, ...listed }),
    ),
    mount(
      ['/api/v2/notifications', '/api/v1/notifications/unread_count'],
      groupedNotificationRoutes({
        baseUrl: config.baseUrl,
        notifications: w.notifications,
        groups: w.notificationGroups,
        markers: w.markers,
        reports: w.reports,
        reportViews: w.reportViews,
        ...listed,
      }),
    ),
    mount(
      ['/api/v2/notifications/policy', '/api/v1/notifications/policy', '/api/v1/notifications/requests'],
      notificationRequestRoutes({ baseUrl: config.baseUrl, requests: w.notificationRequests, ...listed }),
    ),
    mount(
      ['/api/v1/push/subscription'],
      pushRoutes({ subscriptions: w.pushSubscriptions, serverKey: w.vapid.publicKey, tokenKey: w.pushTokenKey, allowPrivate: config.federation.allowPrivate }),
    ),
    mount(['/api/v1/conversations'], conversationRoutes({ baseUrl: config.baseUrl, conversations: w.conversations, ...listed })),
    // Reports and moderation.
    mount(
      ['/api/v1/reports'],
      reportRoutes({
        accounts: w.accounts,
        statuses: w.statuses,
        reports: w.reports,
        accountViews: w.accountViews,
        publisher: w.publisher,
        actors: w.localActors,
        uris: w.uris,
        notifier: w.notifications,
      }),
    ),
    // Remote history: a remote account's record and "Load older posts"; the operator's settings.
    mount(['/api/v1/accounts/:id/remote_history', '/api/v1/admin/remote_history'], remoteHistoryRoutes(historyApi)),
    mount(['/api/v1/admin/reports'], adminReportRoutes({ baseUrl: config.baseUrl, log: apiLog, reports: w.reports, views: w.reportViews })),
    mount(
      ['/api/v1/admin/domain_blocks', '/api/v1/instance/domain_blocks'],
      domainBlockRoutes({ baseUrl: config.baseUrl, log: apiLog, blocks: w.domainBlocks }),
    ),
    mount(
      ['/api/v1/admin/accounts', '/api/v2/admin/accounts'],
      adminAccountRoutes({
        baseUrl: config.baseUrl,
        log: apiLog,
        accounts: w.accounts,
        users: w.users,
        moderation: w.accountModeration,
        reports: w.reports,
        views: w.adminAccountViews,
        authEvents,
        usersChanged: () => instanceDocs.invalidate(),
      }),
    ),
    // Pages.
    mount(['/', '/auth/sign_in', '/auth/sign_out'], authPageRoutes(web)),
    mount(
      ['/auth/sign_up', '/admin/registrations'],
      registrationPageRoutes(web, () => instanceDocs.invalidate()),
    ),
    mount(['/oauth/authorize'], authorizePageRoutes(web, oauth)),
    mount(['/settings/applications'], authorizedAppsPageRoutes(web, oauth)),
    mount(['/settings/preferences'], preferencesPageRoutes(web, w.memberPreferences)),
    mount(
      ['/web/statuses/:id', '/web/media-fallback.js'],
      [
        ...statusPageRoutes(web, {
          accounts: w.accounts,
          statuses: w.statuses,
          media: w.media,
          mediaUrls: w.mediaUrls,
          memberPreferences: w.memberPreferences,
        }),
        ...mediaFallbackScriptRoutes(),
      ],
    ),
    mount(['/admin/reports'], reportPageRoutes(web, { reports: w.reports, accounts: w.accounts, statuses: w.statuses })),
    mount(
      ['/admin/history'],
      adminHistoryPageRoutes(web, {
        settings: w.historySettings,
        prune: w.historyPrune,
        onSettingsChanged: historyApi.onSettingsChanged,
        pruneNow: w.manualPrune,
      }),
    ),
    mount(['/admin/domain_blocks'], adminDomainBlocksPageRoutes(web, { blocks: w.domainBlocks })),
    // The page finds what the API finds: the same search (web may not import api).
    mount(['/search'], searchPageRoutes(web, { search: searcher(searchApi) })),
    mount(['/about', '/avatars/original', '/headers/original'], staticPageRoutes(web)),
  ];
}

/** Every route of the table, in table order (the router matches static paths before parametric ones anyway). */
export function allRoutes(deps: RouteDeps): Route[] {
  return routeTable(deps).flatMap((m) => m.routes);
}
