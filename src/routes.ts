// The route table: every URL the server answers, by the prefixes each module serves (a path is one of its line's
// prefixes or lies under one, checked at start), so `grep` on any path's prefix finds the file that handles it. Who may call each
// route (its AuthRule: scopes, member only, optional) is declared on the route in its module; the front end checks
// it before the body is read.
import type { AuthEventListener } from './store/auth-events.js';
import { absentServiceRoutes } from './api/absent-services.js';
import { accountRoutes } from './api/accounts.js';
import { accountNoteRoutes } from './api/account-notes.js';
import { endorsementRoutes } from './api/endorsements.js';
import { adminAccountRoutes } from './api/admin-accounts.js';
import { domainBlockRoutes } from './api/admin-domain-blocks.js';
import { memberDomainBlockRoutes } from './api/member-domain-blocks.js';
import { suggestionRoutes } from './api/suggestions.js';
import { directoryRoutes } from './api/directory.js';
import { adminReportRoutes } from './api/admin-reports.js';
import { adminTrendRoutes } from './api/admin-trends.js';
import { announcementRoutes } from './api/announcements.js';
import { instanceExtrasRoutes } from './api/instance-extras.js';
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
import { notificationRoutes } from './api/notifications.js';
import { notificationRequestRoutes } from './api/notification-requests.js';
import { oauthRoutes } from './api/oauth.js';
import { userinfoRoutes } from './api/userinfo.js';
import { registrationRoutes } from './api/registrations.js';
import { RegistrationService } from './services/registration-service.js';
import { pollRoutes } from './api/polls.js';
import { pushRoutes } from './api/push.js';
import { preferenceRoutes } from './api/preferences.js';
import { profileRoutes } from './api/profile.js';
import { reactionRoutes } from './api/reactions.js';
import { remoteHistoryRoutes } from './api/remote-history.js';
import { remoteImageRoutes } from './api/remote-images.js';
import { reportRoutes } from './api/reports.js';
import { searcher, searchRoutes } from './api/search.js';
import { statusActionRoutes } from './api/status-actions.js';
import { featuredTagRoutes } from './api/featured-tags.js';
import { tagRoutes } from './api/tags.js';
import { lemmyCommentRoutes } from './api/lemmy/comments.js';
import { lemmyPostRoutes } from './api/lemmy/posts.js';
import { statusRoutes } from './api/statuses.js';
import { scheduledStatusRoutes } from './api/scheduled-statuses.js';
import { quoteRoutes } from './api/quotes.js';
import { timelineRoutes } from './api/timelines.js';
import { linkTimelineRoutes } from './api/link-timeline.js';
import { lemmyCommunityRoutes } from './api/lemmy/communities.js';
import { lemmyLoginRoutes } from './api/lemmy/login.js';
import { lemmySearchRoutes } from './api/lemmy/search.js';
import { lemmySiteRoutes } from './api/lemmy/site.js';
import { lemmyUserRoutes } from './api/lemmy/users.js';
import { trendRoutes } from './api/trends.js';
import { actorRoutes } from './federation/actor-routes.js';
import { discoveryRoutes } from './federation/discovery-routes.js';
import { inboxRoutes } from './federation/inbox-route.js';
import { noteRoutes } from './federation/note-routes.js';
import { tagPageRoutes } from './federation/tag-routes.js';
import { oembedRoutes } from './api/oembed.js';
import { publicStatusPage } from './web/public-status-page.js';
import { tagPage } from './web/tag-page.js';
import type { Route } from './http/types.js';
import type { Metrics } from './metrics/registry.js';
import { metricsRoutes } from './metrics/route.js';
import { adminDomainBlocksPageRoutes } from './web/admin-domain-blocks-page.js';
import { adminAnnouncementsPageRoutes } from './web/admin-announcements-page.js';
import { adminRulesPageRoutes } from './web/admin-rules-page.js';
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
import type { Wiring } from './wiring.js';

export interface RouteDeps {
  /** Each route module's group of dependencies (wiring.ts). */
  readonly api: Wiring['api'];
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

export function routeTable({ api, oauth, web, instanceDocs, authEvents, metrics, streamingRoutes }: RouteDeps): Mount[] {
  const accounts = { ...api.accounts, authEvents };
  const remoteProfile: RemoteProfileDeps = { web, ...api.remoteProfile };
  // Sign-up, one service for the page and the API (one throttle, one set of rules).
  const registration = new RegistrationService({
    mode: web.config.registrations,
    users: web.users,
    throttle: web.signUpThrottle,
    log: web.log,
    onCreated: () => instanceDocs.invalidate(),
  });
  return [
    // The server itself, discovery and ActivityPub.
    mount(['/api/v1/instance', '/api/v2/instance', '/health'], instanceRoutes(instanceDocs, api.db)),
    mount(
      [
        '/api/v1/instance/peers',
        '/api/v1/instance/activity',
        '/api/v1/instance/rules',
        '/api/v1/instance/extended_description',
        '/api/v1/instance/privacy_policy',
        '/api/v1/instance/terms_of_service',
        '/api/v1/instance/translation_languages',
        '/api/v1/instance/languages',
        '/api/v1/peers/search',
      ],
      instanceExtrasRoutes(api.instanceExtras),
    ),
    mount(['/api/v1/announcements'], announcementRoutes(api.announcements)),
    // Streaming: server-sent events and health (the WebSocket at /api/v1/streaming is uWS's, api/streaming/websocket.ts).
    mount(['/api/v1/streaming'], streamingRoutes),
    // For operators: Prometheus metrics, served here only behind METRICS_TOKEN (none: no route).
    mount(['/metrics'], metricsRoutes(metrics, api.metricsToken)),
    mount(
      ['/.well-known/webfinger', '/.well-known/host-meta', '/.well-known/host-meta.json', '/.well-known/nodeinfo', '/nodeinfo'],
      discoveryRoutes(api.discovery),
    ),
    mount(
      ['/@:name', '/actor', '/users/:name', '/users/:name/followers', '/users/:name/following', '/users/:name/collections'],
      actorRoutes({ ...api.actors, profilePage: profilePage(web, api.publicPages), remoteProfilePage: remoteProfilePage(remoteProfile) }),
    ),
    mount(['/@:name'], remoteProfileRoutes(remoteProfile)),
    mount(['/inbox', '/users/:name/inbox', '/actor/inbox'], inboxRoutes(api.inbox)),
    // A status's URL (/@name/id) is its Note or its page; a tag's URL (/tags/name) its collection or its page.
    mount(
      ['/users/:name/outbox', '/users/:name/statuses', '/@:name'],
      noteRoutes({ ...api.notes, statusPage: publicStatusPage(web, { ...api.statusPage, ...api.publicPages }) }),
    ),
    mount(['/tags'], tagPageRoutes({ ...api.publicPages, tagPage: tagPage(web, api.publicPages) })),
    mount(['/api/oembed'], oembedRoutes(api.oembed)),
    // OAuth 2 and apps.
    mount(['/api/v1/apps'], appRoutes(oauth)),
    mount(['/oauth/token', '/oauth/revoke', '/.well-known/oauth-authorization-server'], oauthRoutes(oauth)),
    mount(['/oauth/userinfo'], userinfoRoutes(accounts)),
    mount(['/api/v1/accounts', '/api/v1/emails/confirmations', '/api/v1/emails/check_confirmation'], registrationRoutes({ ...oauth, registration })),
    // Accounts and relationships.
    mount(['/api/v1/accounts', '/api/v1/accounts/lookup', '/api/v1/accounts/verify_credentials', '/api/v1/accounts/:id'], accountRoutes(accounts)),
    mount(
      [
        '/api/v1/accounts/:id/follow',
        '/api/v1/accounts/:id/unfollow',
        '/api/v1/accounts/:id/followers',
        '/api/v1/accounts/:id/following',
        '/api/v1/accounts/relationships',
        '/api/v1/accounts/:id/remove_from_followers',
        '/api/v1/accounts/familiar_followers',
        '/api/v1/follow_requests',
      ],
      followRoutes(accounts),
    ),
    mount(['/api/v1/accounts/:id/note'], accountNoteRoutes(api.accountNotes)),
    mount(
      [
        '/api/v1/accounts/:id/endorse',
        '/api/v1/accounts/:id/unendorse',
        '/api/v1/accounts/:id/pin',
        '/api/v1/accounts/:id/unpin',
        '/api/v1/accounts/:id/endorsements',
        '/api/v1/endorsements',
      ],
      endorsementRoutes(api.endorsements),
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
      blockRoutes({ ...accounts, ...api.blocks }),
    ),
    mount(
      ['/api/v1/accounts/update_credentials', '/api/v1/profile', '/system/accounts'],
      takingFiles(profileRoutes({ ...accounts, ...api.uploads }), 'PATCH /api/v1/accounts/update_credentials'),
    ),
    mount(['/api/v1/accounts/identity_statements', '/api/v1/accounts/:id/identity_statements'], identityStatementRoutes(api.identityStatements)),
    mount(['/api/v1/preferences', '/api/v1/markers', '/api/v1/custom_emojis'], preferenceRoutes(api.preferences)),
    // Statuses and what members do with them.
    mount(
      ['/api/v1/statuses', '/api/v1/statuses/:id', '/api/v1/statuses/:id/context', '/api/v1/statuses/:id/history', '/api/v1/statuses/:id/source'],
      statusRoutes(api.statuses),
    ),
    mount(['/api/v1/statuses/:id', '/api/v1/favourites', '/api/v1/bookmarks'], statusActionRoutes(api.statusActions)),
    mount(['/api/v1/pleroma/statuses/:id/reactions'], reactionRoutes(api.reactions)),
    mount(['/api/v1/polls'], pollRoutes(api.polls)),
    // Services Mastodon has and this server does not run, answered as Mastodon answers without them.
    mount(
      ['/api/v1/statuses/:id/translate', '/api/v1/annual_reports', '/api/v1_alpha/async_refreshes', '/api/v1/accounts/:id/identity_proofs'],
      absentServiceRoutes(api.absentServices),
    ),
    mount(['/api/v1/scheduled_statuses'], scheduledStatusRoutes(api.scheduledStatuses)),
    mount(['/api/v1/statuses/:id/quotes', '/api/v1/statuses/:id/interaction_policy'], quoteRoutes(api.quotes)),
    mount(['/api/v1/media', '/api/v2/media', '/system/media'], takingFiles(mediaRoutes(api.media), 'POST /api/v1/media', 'POST /api/v2/media')),
    mount(['/media_proxy/:id'], mediaProxyRoutes({ ...api.mediaProxy, bearer: oauth.bearer })),
    mount(['/media_proxy/accounts'], remoteImageRoutes(api.remoteImages)),
    // Timelines, lists, search.
    mount(['/api/v1/timelines/home', '/api/v1/timelines/public', '/api/v1/timelines/tag', '/api/v1/accounts/:id/statuses'], timelineRoutes(api.timelines)),
    mount(['/api/v1/lists', '/api/v1/timelines/list', '/api/v1/accounts/:id/lists'], listRoutes(api.lists)),
    mount(['/api/v2/search', '/api/v1/accounts/search'], searchRoutes(api.search)),
    // Hashtags: followed (their posts reach home) and featured on profiles.
    mount(['/api/v1/tags', '/api/v1/followed_tags'], tagRoutes(api.tags)),
    // The link-aggregator adapter (Lemmy 0.19's /api/v3): posts and comments.
    mount(['/api/v3/post'], lemmyPostRoutes(api.lemmyPosts)),
    mount(['/api/v3/comment'], lemmyCommentRoutes(api.lemmyComments)),
    mount(['/api/v1/featured_tags', '/api/v1/accounts/:id/featured_tags'], featuredTagRoutes(api.featuredTags)),
    // Content filters (v2, and v1 as Mastodon keeps it).
    mount(['/api/v2/filters'], filterRoutes(api.filters)),
    mount(['/api/v1/filters'], filterV1Routes(api.filtersV1)),
    // Notifications and conversations.
    mount(['/api/v1/notifications'], notificationRoutes(api.notifications)),
    mount(['/api/v2/notifications', '/api/v1/notifications/unread_count'], groupedNotificationRoutes(api.groupedNotifications)),
    mount(
      ['/api/v2/notifications/policy', '/api/v1/notifications/policy', '/api/v1/notifications/requests'],
      notificationRequestRoutes(api.notificationRequests),
    ),
    mount(['/api/v1/push/subscription'], pushRoutes(api.push)),
    mount(['/api/v1/conversations'], conversationRoutes(api.conversations)),
    // Reports and moderation.
    mount(['/api/v1/reports'], reportRoutes(api.reports)),
    // Remote history: a remote account's record and "Load older posts"; the operator's settings.
    mount(['/api/v1/accounts/:id/remote_history', '/api/v1/admin/remote_history'], remoteHistoryRoutes(api.history)),
    mount(['/api/v1/admin/reports'], adminReportRoutes(api.adminReports)),
    mount(['/api/v1/admin/domain_blocks', '/api/v1/instance/domain_blocks'], domainBlockRoutes(api.domainBlocks)),
    // Trends: the public lists, the moderators' review and the operator's settings, and the link timeline.
    mount(['/api/v1/trends'], trendRoutes(api.trends)),
    mount(['/api/v1/admin/trends'], adminTrendRoutes(api.adminTrends)),
    mount(['/api/v1/timelines/link'], linkTimelineRoutes(api.linkTimeline)),
    // The link-aggregator adapter (Lemmy 0.19's /api/v3): the site, signing in, people, communities, search.
    mount(['/api/v3/site'], lemmySiteRoutes(api.lemmySite)),
    mount(
      ['/api/v3/user/login', '/api/v3/user/logout'],
      lemmyLoginRoutes({ ...api.lemmyLogin, tokens: oauth.tokens, signInThrottle: web.signInThrottle, authEvents }),
    ),
    mount(['/api/v3/user'], lemmyUserRoutes(api.lemmySite)),
    mount(['/api/v3/community'], lemmyCommunityRoutes(api.lemmySite)),
    mount(['/api/v3/search', '/api/v3/resolve_object'], lemmySearchRoutes(api.lemmySite)),
    mount(['/api/v1/domain_blocks'], memberDomainBlockRoutes(api.memberDomainBlocks)),
    mount(
      ['/api/v1/suggestions', '/api/v2/suggestions', '/api/v1/admin/accounts/:id/feature', '/api/v1/admin/accounts/:id/unfeature'],
      suggestionRoutes(api.suggestions),
    ),
    mount(['/api/v1/directory'], directoryRoutes(api.directory)),
    mount(
      ['/api/v1/admin/accounts', '/api/v2/admin/accounts'],
      adminAccountRoutes({ ...api.adminAccounts, authEvents, usersChanged: () => instanceDocs.invalidate() }),
    ),
    // Pages.
    mount(['/', '/auth/sign_in', '/auth/sign_out'], authPageRoutes(web)),
    mount(
      ['/auth/sign_up', '/admin/registrations'],
      registrationPageRoutes(web, registration, () => instanceDocs.invalidate()),
    ),
    mount(['/oauth/authorize'], authorizePageRoutes(web, oauth)),
    mount(['/settings/applications'], authorizedAppsPageRoutes(web, oauth)),
    mount(['/settings/preferences'], preferencesPageRoutes(web, api.preferencesPage)),
    mount(['/web/statuses/:id', '/web/media-fallback.js'], [...statusPageRoutes(web, api.statusPage), ...mediaFallbackScriptRoutes()]),
    mount(['/admin/reports'], reportPageRoutes(web, api.reportPage)),
    mount(['/admin/history'], adminHistoryPageRoutes(web, api.adminHistoryPage)),
    mount(['/admin/domain_blocks'], adminDomainBlocksPageRoutes(web, api.domainBlocksPage)),
    mount(['/admin/announcements'], adminAnnouncementsPageRoutes(web, api.announcementsPage)),
    mount(['/admin/rules'], adminRulesPageRoutes(web, { ...api.rulesPage, rulesChanged: () => instanceDocs.invalidate() })),
    // The page finds what the API finds: the same search (web may not import api).
    mount(['/search'], searchPageRoutes(web, { search: searcher(api.search) })),
    mount(['/about', '/avatars/original', '/headers/original'], staticPageRoutes(web)),
  ];
}

/** Every route of the table, in table order (the router matches static paths before parametric ones anyway). */
export function allRoutes(deps: RouteDeps): Route[] {
  return routeTable(deps).flatMap((m) => m.routes);
}
