// Every client-API route's declared AuthRule (src/routes.ts builds the table; each module declares its rules)
// held against the OAuth scope Mastodon documents for it (docs.joinmastodon.org, methods/*; Pleroma's for emoji
// reactions; ours for identity statements). A new /api route without a row here fails, and so does a route whose
// scope, member requirement or anonymous access drifts from what clients expect. route-scopes.test.ts checks the
// same rules by behaviour with real tokens; this checks that the declarations say it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AuthRule, isAuthRule, type Route } from '../../src/http/types.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * `scope`: the granular scope Mastodon names (null: any valid token); `public`: anonymous calls are allowed (a token
 * that is sent must carry the scope); `app`: an application token (client_credentials) is enough.
 */
interface Documented {
  readonly scope: string | null;
  readonly public?: boolean;
  readonly app?: boolean;
}

const pub = (scope: string): Documented => ({ scope, public: true });
const member = (scope: string): Documented => ({ scope });

const MASTODON: Readonly<Record<string, Documented>> = {
  // accounts
  'GET /api/v1/accounts': pub('read:accounts'),
  'GET /api/v1/accounts/:id': pub('read:accounts'),
  'GET /api/v1/accounts/:id/followers': pub('read:accounts'),
  'GET /api/v1/accounts/:id/following': pub('read:accounts'),
  'GET /api/v1/accounts/:id/statuses': pub('read:statuses'),
  'GET /api/v1/accounts/lookup': pub('read:accounts'),
  'GET /api/v1/accounts/:id/lists': member('read:lists'),
  'GET /api/v1/accounts/relationships': member('read:follows'),
  'GET /api/v1/accounts/verify_credentials': member('read:accounts'),
  'PATCH /api/v1/accounts/update_credentials': member('write:accounts'),
  'DELETE /api/v1/profile/avatar': member('write:accounts'),
  'DELETE /api/v1/profile/header': member('write:accounts'),
  'POST /api/v1/accounts/:id/follow': member('write:follows'),
  'POST /api/v1/accounts/:id/unfollow': member('write:follows'),
  'POST /api/v1/accounts/:id/block': member('write:blocks'),
  'POST /api/v1/accounts/:id/unblock': member('write:blocks'),
  'POST /api/v1/accounts/:id/mute': member('write:mutes'),
  'POST /api/v1/accounts/:id/unmute': member('write:mutes'),
  'GET /api/v1/blocks': member('read:blocks'),
  'GET /api/v1/mutes': member('read:mutes'),
  // a member's own domain blocks, follow suggestions (4.5's scopes) and the directory (no scope asked)
  'GET /api/v1/domain_blocks': member('read:blocks'),
  'POST /api/v1/domain_blocks': member('write:blocks'),
  'DELETE /api/v1/domain_blocks': member('write:blocks'),
  'GET /api/v1/domain_blocks/preview': member('write:blocks'),
  'GET /api/v2/suggestions': member('read:accounts'),
  'GET /api/v1/suggestions': member('read:accounts'),
  'DELETE /api/v1/suggestions/:account_id': member('write:accounts'),
  'GET /api/v1/directory': { scope: null, public: true },
  // featuring an account in suggestions (ours: Mastodon sets them on its admin pages)
  'POST /api/v1/admin/accounts/:id/feature': member('admin:write:accounts'),
  'POST /api/v1/admin/accounts/:id/unfeature': member('admin:write:accounts'),
  'GET /api/v1/follow_requests': member('read:follows'),
  'POST /api/v1/follow_requests/:id/authorize': member('write:follows'),
  'POST /api/v1/follow_requests/:id/reject': member('write:follows'),
  'GET /api/v1/accounts/search': member('read:accounts'),
  'POST /api/v1/accounts/:id/note': member('write:accounts'),
  'GET /api/v1/accounts/familiar_followers': member('read:follows'),
  'POST /api/v1/accounts/:id/remove_from_followers': member('write:follows'),
  'POST /api/v1/accounts/:id/endorse': member('write:accounts'),
  'POST /api/v1/accounts/:id/unendorse': member('write:accounts'),
  'POST /api/v1/accounts/:id/pin': member('write:accounts'),
  'POST /api/v1/accounts/:id/unpin': member('write:accounts'),
  'GET /api/v1/endorsements': member('read:accounts'),
  'GET /api/v1/accounts/:id/endorsements': pub('read:accounts'),
  // identity statements (FEP-c390; ours, scoped as the account data they are)
  'GET /api/v1/accounts/:id/identity_statements': pub('read:accounts'),
  'POST /api/v1/accounts/identity_statements': member('write:accounts'),
  'DELETE /api/v1/accounts/identity_statements': member('write:accounts'),
  // remote history (ours, issue 16: scope `read` as the spec names it; the admin settings with the admin scopes)
  'GET /api/v1/accounts/:id/remote_history': member('read'),
  'POST /api/v1/accounts/:id/remote_history/fetch': member('read'),
  'GET /api/v1/admin/remote_history': member('admin:read'),
  'PUT /api/v1/admin/remote_history': member('admin:write'),
  'POST /api/v1/admin/remote_history/prune': member('admin:write'),
  // apps
  'GET /api/v1/apps/verify_credentials': { scope: null, app: true },
  // Sign-up through an app (an app's token, no user yet), and the e-mail routes (Mastodon checks the user itself).
  'POST /api/v1/accounts': { scope: 'write:accounts', app: true },
  'POST /api/v1/emails/confirmations': { scope: 'write:accounts', app: true },
  'GET /api/v1/emails/check_confirmation': { scope: 'read:accounts', app: true },
  // Web Push (methods/push.md: a user token with `push`)
  'POST /api/v1/push/subscription': member('push'),
  'GET /api/v1/push/subscription': member('push'),
  'PUT /api/v1/push/subscription': member('push'),
  'PATCH /api/v1/push/subscription': member('push'),
  'DELETE /api/v1/push/subscription': member('push'),
  // statuses
  'GET /api/v1/statuses': pub('read:statuses'),
  'GET /api/v1/statuses/:id': pub('read:statuses'),
  'GET /api/v1/statuses/:id/context': pub('read:statuses'),
  'GET /api/v1/statuses/:id/history': pub('read:statuses'),
  'GET /api/v1/statuses/:id/favourited_by': pub('read:accounts'),
  'GET /api/v1/statuses/:id/reblogged_by': pub('read:accounts'),
  'GET /api/v1/statuses/:id/source': member('read:statuses'),
  'POST /api/v1/statuses': member('write:statuses'),
  'PUT /api/v1/statuses/:id': member('write:statuses'),
  'PATCH /api/v1/statuses/:id': member('write:statuses'),
  'DELETE /api/v1/statuses/:id': member('write:statuses'),
  'POST /api/v1/statuses/:id/favourite': member('write:favourites'),
  'POST /api/v1/statuses/:id/unfavourite': member('write:favourites'),
  'POST /api/v1/statuses/:id/reblog': member('write:statuses'),
  'POST /api/v1/statuses/:id/unreblog': member('write:statuses'),
  'POST /api/v1/statuses/:id/bookmark': member('write:bookmarks'),
  'POST /api/v1/statuses/:id/unbookmark': member('write:bookmarks'),
  'POST /api/v1/statuses/:id/mute': member('write:mutes'),
  'POST /api/v1/statuses/:id/unmute': member('write:mutes'),
  'POST /api/v1/statuses/:id/pin': member('write:accounts'),
  'POST /api/v1/statuses/:id/unpin': member('write:accounts'),
  'GET /api/v1/favourites': member('read:favourites'),
  'GET /api/v1/bookmarks': member('read:bookmarks'),
  'GET /api/v1/polls/:id': pub('read:statuses'),
  'POST /api/v1/polls/:id/votes': member('write:statuses'),
  // Pleroma's emoji reactions
  'GET /api/v1/pleroma/statuses/:id/reactions': pub('read:statuses'),
  'GET /api/v1/pleroma/statuses/:id/reactions/:emoji': pub('read:statuses'),
  'PUT /api/v1/pleroma/statuses/:id/reactions/:emoji': member('write:statuses'),
  'DELETE /api/v1/pleroma/statuses/:id/reactions/:emoji': member('write:statuses'),
  // media
  'POST /api/v1/media': member('write:media'),
  'POST /api/v2/media': member('write:media'),
  'GET /api/v1/media/:id': member('write:media'),
  'PUT /api/v1/media/:id': member('write:media'),
  'PATCH /api/v1/media/:id': member('write:media'),
  // hashtags: followed and featured (methods/tags.md, followed_tags.md, featured_tags.md; a tag itself takes any token)
  'GET /api/v1/tags/:id': { scope: null, public: true },
  'POST /api/v1/tags/:id/follow': member('write:follows'),
  'POST /api/v1/tags/:id/unfollow': member('write:follows'),
  'POST /api/v1/tags/:id/feature': member('write:accounts'),
  'POST /api/v1/tags/:id/unfeature': member('write:accounts'),
  'GET /api/v1/followed_tags': member('read:follows'),
  'GET /api/v1/featured_tags': member('read:accounts'),
  'POST /api/v1/featured_tags': member('write:accounts'),
  'DELETE /api/v1/featured_tags/:id': member('write:accounts'),
  'GET /api/v1/featured_tags/suggestions': member('read:accounts'),
  'GET /api/v1/accounts/:id/featured_tags': pub('read:accounts'),
  'DELETE /api/v1/media/:id': member('write:media'),
  // quotes (4.5)
  'GET /api/v1/statuses/:id/quotes': member('read:statuses'),
  'POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke': member('write:statuses'),
  'PUT /api/v1/statuses/:id/interaction_policy': member('write:statuses'),
  'PATCH /api/v1/statuses/:id/interaction_policy': member('write:statuses'),
  // scheduled statuses
  'GET /api/v1/scheduled_statuses': member('read:statuses'),
  'GET /api/v1/scheduled_statuses/:id': member('read:statuses'),
  'PUT /api/v1/scheduled_statuses/:id': member('write:statuses'),
  'PATCH /api/v1/scheduled_statuses/:id': member('write:statuses'),
  'DELETE /api/v1/scheduled_statuses/:id': member('write:statuses'),
  // timelines, lists, search
  'GET /api/v1/timelines/home': member('read:statuses'),
  'GET /api/v1/timelines/public': pub('read:statuses'),
  'GET /api/v1/timelines/tag/:hashtag': pub('read:statuses'),
  'GET /api/v1/timelines/list/:id': member('read:lists'),
  'GET /api/v1/lists': member('read:lists'),
  'GET /api/v1/lists/:id': member('read:lists'),
  'POST /api/v1/lists': member('write:lists'),
  'PUT /api/v1/lists/:id': member('write:lists'),
  'PATCH /api/v1/lists/:id': member('write:lists'),
  'DELETE /api/v1/lists/:id': member('write:lists'),
  'GET /api/v1/lists/:id/accounts': member('read:lists'),
  'POST /api/v1/lists/:id/accounts': member('write:lists'),
  'DELETE /api/v1/lists/:id/accounts': member('write:lists'),
  'GET /api/v2/search': pub('read:search'),
  // filters
  'GET /api/v2/filters': member('read:filters'),
  'GET /api/v2/filters/:id': member('read:filters'),
  'POST /api/v2/filters': member('write:filters'),
  'PUT /api/v2/filters/:id': member('write:filters'),
  'PATCH /api/v2/filters/:id': member('write:filters'),
  'DELETE /api/v2/filters/:id': member('write:filters'),
  'GET /api/v2/filters/:filter_id/keywords': member('read:filters'),
  'POST /api/v2/filters/:filter_id/keywords': member('write:filters'),
  'GET /api/v2/filters/keywords/:id': member('read:filters'),
  'PUT /api/v2/filters/keywords/:id': member('write:filters'),
  'PATCH /api/v2/filters/keywords/:id': member('write:filters'),
  'DELETE /api/v2/filters/keywords/:id': member('write:filters'),
  'GET /api/v2/filters/:filter_id/statuses': member('read:filters'),
  'POST /api/v2/filters/:filter_id/statuses': member('write:filters'),
  'GET /api/v2/filters/statuses/:id': member('read:filters'),
  'DELETE /api/v2/filters/statuses/:id': member('write:filters'),
  'GET /api/v1/filters': member('read:filters'),
  'GET /api/v1/filters/:id': member('read:filters'),
  'POST /api/v1/filters': member('write:filters'),
  'PUT /api/v1/filters/:id': member('write:filters'),
  'PATCH /api/v1/filters/:id': member('write:filters'),
  'DELETE /api/v1/filters/:id': member('write:filters'),
  // notifications, conversations, markers, preferences
  'GET /api/v1/notifications': member('read:notifications'),
  'GET /api/v1/notifications/:id': member('read:notifications'),
  'GET /api/v1/notifications/unread_count': member('read:notifications'),
  'POST /api/v1/notifications/:id/dismiss': member('write:notifications'),
  'POST /api/v1/notifications/clear': member('write:notifications'),
  'GET /api/v2/notifications': member('read:notifications'),
  'GET /api/v2/notifications/:group_key': member('read:notifications'),
  'GET /api/v2/notifications/:group_key/accounts': member('read:notifications'),
  'GET /api/v2/notifications/unread_count': member('read:notifications'),
  'POST /api/v2/notifications/:group_key/dismiss': member('write:notifications'),
  'POST /api/v2/notifications/clear': member('write:notifications'),
  'GET /api/v2/notifications/policy': member('read:notifications'),
  'PATCH /api/v2/notifications/policy': member('write:notifications'),
  'GET /api/v1/notifications/policy': member('read:notifications'),
  'PUT /api/v1/notifications/policy': member('write:notifications'),
  'PATCH /api/v1/notifications/policy': member('write:notifications'),
  'PUT /api/v2/notifications/policy': member('write:notifications'),
  'GET /api/v1/notifications/requests': member('read:notifications'),
  'GET /api/v1/notifications/requests/merged': member('read:notifications'),
  'GET /api/v1/notifications/requests/:id': member('read:notifications'),
  'POST /api/v1/notifications/requests/:id/accept': member('write:notifications'),
  'POST /api/v1/notifications/requests/:id/dismiss': member('write:notifications'),
  'POST /api/v1/notifications/requests/accept': member('write:notifications'),
  'POST /api/v1/notifications/requests/dismiss': member('write:notifications'),
  'GET /api/v1/conversations': member('read:statuses'),
  'POST /api/v1/conversations/:id/read': member('write:conversations'),
  'POST /api/v1/conversations/:id/unread': member('write:conversations'),
  // services this server does not run (src/api/absent-services.ts)
  'POST /api/v1/statuses/:id/translate': member('read:statuses'),
  'GET /api/v1/annual_reports': member('read:accounts'),
  'GET /api/v1/annual_reports/:year': member('write:accounts'),
  'POST /api/v1/annual_reports/:year/read': member('write:accounts'),
  'GET /api/v1_alpha/async_refreshes/:id': member('read'),
  'GET /api/v1/accounts/:id/identity_proofs': { scope: null },
  'DELETE /api/v1/conversations/:id': member('write:conversations'),
  'GET /api/v1/markers': member('read:statuses'),
  'POST /api/v1/markers': member('write:statuses'),
  'GET /api/v1/preferences': member('read:accounts'),
  // announcements (methods/announcements.md)
  'GET /api/v1/announcements': member('read'),
  'POST /api/v1/announcements/:id/dismiss': member('write:accounts'),
  'PUT /api/v1/announcements/:id/reactions/:name': member('write:favourites'),
  'PATCH /api/v1/announcements/:id/reactions/:name': member('write:favourites'),
  'DELETE /api/v1/announcements/:id/reactions/:name': member('write:favourites'),
  // reports and moderation
  'POST /api/v1/reports': member('write:reports'),
  'GET /api/v1/admin/reports': member('admin:read:reports'),
  'GET /api/v1/admin/reports/:id': member('admin:read:reports'),
  'PUT /api/v1/admin/reports/:id': member('admin:write:reports'),
  'PATCH /api/v1/admin/reports/:id': member('admin:write:reports'),
  'POST /api/v1/admin/reports/:id/assign_to_self': member('admin:write:reports'),
  'POST /api/v1/admin/reports/:id/unassign': member('admin:write:reports'),
  'POST /api/v1/admin/reports/:id/resolve': member('admin:write:reports'),
  'POST /api/v1/admin/reports/:id/reopen': member('admin:write:reports'),
  'GET /api/v1/admin/domain_blocks': member('admin:read:domain_blocks'),
  'GET /api/v1/admin/domain_blocks/:id': member('admin:read:domain_blocks'),
  'POST /api/v1/admin/domain_blocks': member('admin:write:domain_blocks'),
  'PUT /api/v1/admin/domain_blocks/:id': member('admin:write:domain_blocks'),
  'PATCH /api/v1/admin/domain_blocks/:id': member('admin:write:domain_blocks'),
  'DELETE /api/v1/admin/domain_blocks/:id': member('admin:write:domain_blocks'),
  // trends (public, any token or none) and their review (Mastodon's admin:read / admin:write); the link timeline (4.3)
  'GET /api/v1/trends': { scope: null, public: true },
  'GET /api/v1/trends/tags': { scope: null, public: true },
  'GET /api/v1/trends/statuses': { scope: null, public: true },
  'GET /api/v1/trends/links': { scope: null, public: true },
  'GET /api/v1/timelines/link': pub('read:statuses'),
  'GET /api/v1/admin/trends/tags': member('admin:read'),
  'GET /api/v1/admin/trends/statuses': member('admin:read'),
  'GET /api/v1/admin/trends/links': member('admin:read'),
  'GET /api/v1/admin/trends/links/publishers': member('admin:read'),
  'POST /api/v1/admin/trends/links/publishers/:id/approve': member('admin:write'),
  'POST /api/v1/admin/trends/links/publishers/:id/reject': member('admin:write'),
  ...Object.fromEntries(
    ['tags', 'statuses', 'links'].flatMap((k) => ['approve', 'reject'].map((v) => [`POST /api/v1/admin/trends/${k}/:id/${v}`, member('admin:write')])),
  ),
  // the operator's trend settings (ours: Mastodon keeps them among its server settings)
  'GET /api/v1/admin/trends/settings': member('admin:read'),
  'PUT /api/v1/admin/trends/settings': member('admin:write'),
  'GET /api/v1/admin/accounts': member('admin:read:accounts'),
  'GET /api/v2/admin/accounts': member('admin:read:accounts'),
  'GET /api/v1/admin/accounts/:id': member('admin:read:accounts'),
  'POST /api/v1/admin/accounts/:id/action': member('admin:write:accounts'),
  'POST /api/v1/admin/accounts/:id/unsuspend': member('admin:write:accounts'),
  'POST /api/v1/admin/accounts/:id/unsilence': member('admin:write:accounts'),
  'POST /api/v1/admin/accounts/:id/unsensitive': member('admin:write:accounts'),
  'POST /api/v1/admin/accounts/:id/enable': member('admin:write:accounts'),
  'POST /api/v1/admin/accounts/:id/approve': member('admin:write:accounts'),
  'POST /api/v1/admin/accounts/:id/reject': member('admin:write:accounts'),
  'DELETE /api/v1/admin/accounts/:id': member('admin:write:accounts'),
};

/**
 * The streaming endpoints: health is open, and the SSE streams read their token themselves (from the header or the
 * `access_token` query, which only streaming takes) and check it by Mastodon's streaming server's rules, not the
 * route table's (test/streaming/).
 */
const STREAMING = [
  'GET /api/v1/streaming/health',
  ...[
    'user',
    'user/notification',
    'public',
    'public/media',
    'public/local',
    'public/local/media',
    'public/remote',
    'public/remote/media',
    'hashtag',
    'hashtag/local',
    'list',
    'direct',
  ].map((p) => `GET /api/v1/streaming/${p}`),
];

/** API routes Mastodon serves without a token (as far as the route table is concerned). */
const OPEN = new Set([
  'GET /api/v1/instance',
  'GET /api/v2/instance',
  'GET /api/v1/instance/domain_blocks',
  'GET /api/v1/instance/peers',
  'GET /api/v1/instance/activity',
  'GET /api/v1/instance/rules',
  'GET /api/v1/instance/extended_description',
  'GET /api/v1/instance/privacy_policy',
  'GET /api/v1/instance/terms_of_service',
  'GET /api/v1/instance/terms_of_service/:date',
  'GET /api/v1/instance/translation_languages',
  'GET /api/v1/instance/languages',
  // the web app's peers search (Mastodon 4.x): no token asked, as the peers list
  'GET /api/v1/peers/search',
  'POST /api/v1/apps',
  'GET /api/v1/custom_emojis',
  'GET /api/oembed',
  // Lemmy's sign-in: the password in the body is the credential.
  'POST /api/v3/user/login',
  ...STREAMING,
]);

/** Scopes a route may accept besides the documented one: Mastodon's pre-3.1 `follow` and the `profile` scope. */
const LEGACY: Readonly<Record<string, readonly string[]>> = {
  'write:follows': ['follow'],
  'read:follows': ['follow'],
  'write:blocks': ['follow'],
  'read:blocks': ['follow'],
  'write:mutes': ['follow'],
  'read:mutes': ['follow'],
};

/**
 * The link-aggregator adapter (/api/v3, Lemmy 0.19): no Mastodon document, so its rules are asserted whole here.
 * Reads are open (Lemmy lets anonymous clients browse); writes are a member's, `optional` so a request without a
 * token reaches the handler and gets Lemmy's {"error":"not_logged_in"} (api/lemmy/params.ts).
 */
const lemmyRead: AuthRule = { scopes: ['read'], optional: true };
const lemmyWrite: AuthRule = { scopes: ['write'], member: true, optional: true };
const LEMMY: Readonly<Record<string, AuthRule>> = {
  'GET /api/v3/post/list': lemmyRead,
  'GET /api/v3/post': lemmyRead,
  'POST /api/v3/post': lemmyWrite,
  'PUT /api/v3/post': lemmyWrite,
  'POST /api/v3/post/delete': lemmyWrite,
  'POST /api/v3/post/like': lemmyWrite,
  'PUT /api/v3/post/save': lemmyWrite,
  'GET /api/v3/comment/list': lemmyRead,
  'POST /api/v3/comment': lemmyWrite,
  'PUT /api/v3/comment': lemmyWrite,
  'POST /api/v3/comment/delete': lemmyWrite,
  'POST /api/v3/comment/like': lemmyWrite,
  'PUT /api/v3/comment/save': lemmyWrite,
  // the site, people, communities and search (their own rules: following asks `follow` or `write`)
  'GET /api/v3/site': { scopes: ['read'], optional: true },
  'POST /api/v3/user/logout': { scopes: [], member: true, optional: true },
  'GET /api/v3/user': { scopes: ['read'], optional: true },
  'GET /api/v3/community': { scopes: ['read'], optional: true },
  'GET /api/v3/community/list': { scopes: ['read'], optional: true },
  'POST /api/v3/community/follow': { scopes: ['follow', 'write'], member: true, optional: true },
  'GET /api/v3/search': { scopes: ['read'], optional: true },
  'GET /api/v3/resolve_object': { scopes: ['read'], member: true, optional: true },
};

describe('declared route scopes', () => {
  let s: TestServer;
  let api: Route[];
  before(async () => {
    s = await startTestServer();
    api = s.app.routes.filter((r) => r.path.startsWith('/api/'));
  });
  after(() => s.stop());

  const key = (r: Route) => `${r.method} ${r.path}`;

  it('covers every client-API route: each has a documented rule or is open as in Mastodon', () => {
    const undocumented = api.filter((r) => !(key(r) in MASTODON) && !(key(r) in LEMMY) && !OPEN.has(key(r))).map(key);
    assert.deepEqual(undocumented, [], 'routes with no documented scope: add them to MASTODON, LEMMY (or OPEN)');
    const served = new Set(api.map(key));
    const missing = [...Object.keys(MASTODON), ...Object.keys(LEMMY), ...OPEN].filter((k) => !served.has(k));
    assert.deepEqual(missing, [], 'documented routes the server no longer serves');
  });

  it('declares the documented scope, member requirement and anonymous access on every route', () => {
    const wrong: string[] = [];
    for (const r of api) {
      const lemmy = LEMMY[key(r)];
      if (lemmy) {
        if (JSON.stringify(r.auth) !== JSON.stringify(lemmy))
          wrong.push(`${key(r)}: declares ${JSON.stringify(r.auth)}, the adapter's rule: ${JSON.stringify(lemmy)}`);
        continue;
      }
      const doc = MASTODON[key(r)];
      if (!doc) {
        if (isAuthRule(r.auth)) wrong.push(`${key(r)}: open in Mastodon, declares ${JSON.stringify(r.auth)}`);
        continue;
      }
      const rule: AuthRule | undefined = isAuthRule(r.auth) ? r.auth : undefined;
      if (!rule) {
        wrong.push(`${key(r)}: declares no rule`);
        continue;
      }
      const allowed = doc.scope === null ? [] : [doc.scope, ...(LEGACY[doc.scope] ?? [])];
      if (
        doc.scope === null
          ? rule.scopes.length !== 0
          : !rule.scopes.includes(doc.scope) ||
            rule.scopes.some((x) => !allowed.includes(x) && !(key(r) === 'GET /api/v1/accounts/verify_credentials' && x === 'profile'))
      ) {
        wrong.push(`${key(r)}: scopes ${JSON.stringify(rule.scopes)}, Mastodon: ${doc.scope ?? 'any token'}`);
      }
      if (!!rule.optional !== !!doc.public) wrong.push(`${key(r)}: optional ${!!rule.optional}, Mastodon: ${doc.public ? 'public' : 'token required'}`);
      if (!!rule.member === (!!doc.public || !!doc.app))
        wrong.push(`${key(r)}: member ${!!rule.member}, Mastodon: ${doc.app ? 'app tokens too' : doc.public ? 'anyone' : 'a user token'}`);
    }
    assert.deepEqual(wrong, []);
  });
});
