// The OAuth scope of every client-API route, table-driven. WRITES below is the one place where the scope of every
// write route (POST/PUT/PATCH/DELETE under /api/v1, /api/v2 and /api/v1/pleroma taking a member token) is asserted:
// a route added to src/api must get a row here. For each row, a token with only `read` and tokens with wrong granular
// scopes (neither the right one nor a parent of it) are refused with Mastodon's 403, and a token with exactly the
// granular scope Mastodon (or Pleroma, for reactions) documents gets the route's real answer. READS does the same,
// more briefly, for the member's own lists and timelines.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnnouncementStore } from '../../src/store/announcements.js';
import { TrendStore } from '../../src/store/trends.js';
import { api, type Json } from '../support/api.js';
import { newIdentityKey, signStatement, type IdentityKey } from '../support/identity-statements.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const OUTSIDE_SCOPES = 'This action is outside the authorized scopes';

/** Ids of the objects the routes act on, created in setup; `:name` in a row's path is replaced by `ids[name]`. */
type Ids = Record<string, string>;

interface Row {
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'GET';
  readonly path: string;
  /** The granular scope that must be enough. */
  readonly scope: string;
  /** Scopes that must not be enough (besides `read` for writes and `write` for reads). */
  readonly wrong: readonly string[];
  readonly body?: (ids: Ids) => unknown;
  /** Sent as multipart/form-data with a small PNG as `file` (media uploads). */
  readonly multipart?: boolean;
  /** The moderator acts (admin routes); otherwise ann. */
  readonly mod?: boolean;
  /** What the right token's answer shows, beyond the status code; `get` reads back with the member's full token. */
  readonly shows?: (body: Json, ids: Ids, get: (path: string) => Promise<Json>) => void | Promise<void>;
}

// Rows run in this order with the right scope, so an undoing follows its doing.
const WRITES: readonly Row[] = [
  // Statuses (Mastodon: write:statuses).
  {
    method: 'POST',
    path: '/api/v1/statuses',
    scope: 'write:statuses',
    wrong: ['write:media', 'write:conversations'],
    body: () => ({ status: 'posted with write:statuses' }),
    shows: (b) => assert.equal(b.content, '<p>posted with write:statuses</p>'),
  },
  {
    method: 'PUT',
    path: '/api/v1/statuses/:annPost',
    scope: 'write:statuses',
    wrong: ['write:accounts'],
    body: () => ({ status: 'edited' }),
    shows: (b) => assert.equal(b.content, '<p>edited</p>'),
  },
  // Signing up through an app: write:accounts (a member's token carrying it may too, as in Mastodon).
  {
    method: 'POST',
    path: '/api/v1/accounts',
    scope: 'write:accounts',
    wrong: ['write:statuses', 'write:follows'],
    body: () => ({ username: 'signed_up', email: 'signed_up@example.test', password: 'a long password', agreement: true }),
    shows: (b) => assert.equal(b.token_type, 'Bearer'),
  },
  // Rails' `resources` routes PATCH beside PUT (patch-aliases.test.ts lists them); the twins carry the same rule.
  {
    method: 'PATCH',
    path: '/api/v1/statuses/:annPost',
    scope: 'write:statuses',
    wrong: ['write:accounts'],
    body: () => ({ status: 'edited again' }),
    shows: (b) => assert.equal(b.content, '<p>edited again</p>'),
  },
  {
    method: 'DELETE',
    path: '/api/v1/statuses/:annDoomed',
    scope: 'write:statuses',
    wrong: ['write:accounts'],
    shows: (b, ids) => assert.equal(b.id, ids['annDoomed']),
  },
  // Announcements: dismissing is write:accounts, reacting write:favourites (Mastodon's controllers).
  {
    method: 'POST',
    path: '/api/v1/announcements/:announcement/dismiss',
    scope: 'write:accounts',
    wrong: ['write:favourites', 'write:statuses'],
    shows: async (b, _ids, get) => {
      assert.deepEqual(b, {});
      assert.equal((await get('/api/v1/announcements'))[0].read, true);
    },
  },
  {
    method: 'PUT',
    path: '/api/v1/announcements/:announcement/reactions/:emoji',
    scope: 'write:favourites',
    wrong: ['write:accounts', 'write:statuses'],
    shows: async (_b, _ids, get) => assert.deepEqual((await get('/api/v1/announcements'))[0].reactions, [{ name: '👍', count: 1, me: true }]),
  },
  {
    method: 'DELETE',
    path: '/api/v1/announcements/:announcement/reactions/:emoji',
    scope: 'write:favourites',
    wrong: ['write:accounts', 'write:statuses'],
    shows: async (_b, _ids, get) => assert.deepEqual((await get('/api/v1/announcements'))[0].reactions, []),
  },
  // Favourites are write:favourites; a boost is a status, write:statuses.
  {
    method: 'POST',
    path: '/api/v1/statuses/:bobPost/favourite',
    scope: 'write:favourites',
    wrong: ['write:bookmarks', 'write:statuses'],
    shows: (b) => assert.equal(b.favourited, true),
  },
  {
    method: 'POST',
    path: '/api/v1/statuses/:bobPost/unfavourite',
    scope: 'write:favourites',
    wrong: ['write:bookmarks', 'write:statuses'],
    shows: (b) => assert.equal(b.favourited, false),
  },
  {
    method: 'POST',
    path: '/api/v1/statuses/:bobPost/reblog',
    scope: 'write:statuses',
    wrong: ['write:favourites'],
    shows: (b, ids) => assert.equal(b.reblog.id, ids['bobPost']),
  },
  {
    method: 'POST',
    path: '/api/v1/statuses/:bobPost/unreblog',
    scope: 'write:statuses',
    wrong: ['write:favourites'],
    shows: (b) => assert.equal(b.reblogged, false),
  },
  {
    method: 'POST',
    path: '/api/v1/statuses/:bobPost/bookmark',
    scope: 'write:bookmarks',
    wrong: ['write:favourites'],
    shows: (b) => assert.equal(b.bookmarked, true),
  },
  {
    method: 'POST',
    path: '/api/v1/statuses/:bobPost/unbookmark',
    scope: 'write:bookmarks',
    wrong: ['write:favourites'],
    shows: (b) => assert.equal(b.bookmarked, false),
  },
  {
    method: 'POST',
    path: '/api/v1/statuses/:bobPost/mute',
    scope: 'write:mutes',
    wrong: ['write:blocks', 'write:statuses'],
    shows: (b) => assert.equal(b.muted, true),
  },
  {
    method: 'POST',
    path: '/api/v1/statuses/:bobPost/unmute',
    scope: 'write:mutes',
    wrong: ['write:blocks', 'write:statuses'],
    shows: (b) => assert.equal(b.muted, false),
  },
  { method: 'POST', path: '/api/v1/statuses/:annPost/pin', scope: 'write:accounts', wrong: ['write:statuses'], shows: (b) => assert.equal(b.pinned, true) },
  { method: 'POST', path: '/api/v1/statuses/:annPost/unpin', scope: 'write:accounts', wrong: ['write:statuses'], shows: (b) => assert.equal(b.pinned, false) },
  {
    method: 'PUT',
    path: '/api/v1/statuses/:annPost/interaction_policy',
    scope: 'write:statuses',
    wrong: ['write:accounts'],
    body: () => ({ quote_approval_policy: 'followers' }),
    shows: (b) => assert.deepEqual(b.quote_approval.automatic, ['followers']),
  },
  {
    method: 'POST',
    path: '/api/v1/statuses/:annPost/quotes/:bobQuote/revoke',
    scope: 'write:statuses',
    wrong: ['write:accounts'],
    shows: (b, ids) => assert.deepEqual([b.id, b.quote], [ids['bobQuote'], { state: 'revoked', quoted_status: null }]),
  },
  {
    method: 'POST',
    path: '/api/v1/polls/:poll/votes',
    scope: 'write:statuses',
    wrong: ['write:favourites'],
    body: () => ({ choices: [0] }),
    shows: (b) => assert.deepEqual([b.voted, b.own_votes], [true, [0]]),
  },
  // Pleroma's EmojiReactionController: write:statuses for reacting and taking it back.
  {
    method: 'PUT',
    path: '/api/v1/pleroma/statuses/:bobPost/reactions/:emoji',
    scope: 'write:statuses',
    wrong: ['write:favourites'],
    shows: (b) =>
      assert.deepEqual(
        b.pleroma.emoji_reactions.map((r: Json) => [r.name, r.me]),
        [['👍', true]],
      ),
  },
  {
    method: 'DELETE',
    path: '/api/v1/pleroma/statuses/:bobPost/reactions/:emoji',
    scope: 'write:statuses',
    wrong: ['write:favourites'],
    shows: (b) => assert.deepEqual(b.pleroma.emoji_reactions, []),
  },
  {
    method: 'POST',
    path: '/api/v1/markers',
    scope: 'write:statuses',
    wrong: ['write:notifications'],
    body: (ids) => ({ home: { last_read_id: ids['bobPost'] } }),
    shows: (b, ids) => assert.equal(b.home.last_read_id, ids['bobPost']),
  },
  // Hashtags: following one is write:follows; featuring one (by name, or as a featured tag) is write:accounts.
  {
    method: 'POST',
    path: '/api/v1/tags/scoped/follow',
    scope: 'write:follows',
    wrong: ['write:accounts'],
    shows: (b) => assert.equal(b.following, true),
  },
  {
    method: 'POST',
    path: '/api/v1/tags/scoped/unfollow',
    scope: 'write:follows',
    wrong: ['write:accounts'],
    shows: (b) => assert.equal(b.following, false),
  },
  {
    method: 'POST',
    path: '/api/v1/tags/scoped/feature',
    scope: 'write:accounts',
    wrong: ['write:follows'],
    shows: (b) => assert.equal(b.featuring, true),
  },
  {
    method: 'POST',
    path: '/api/v1/tags/scoped/unfeature',
    scope: 'write:accounts',
    wrong: ['write:follows'],
    shows: (b) => assert.equal(b.featuring, false),
  },
  {
    method: 'POST',
    path: '/api/v1/featured_tags',
    scope: 'write:accounts',
    wrong: ['write:follows', 'write:statuses'],
    body: () => ({ name: 'scoped' }),
    shows: (b, ids) => {
      assert.equal(b.name, 'scoped');
      ids['featuredTag'] = b.id;
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/featured_tags/:featuredTag',
    scope: 'write:accounts',
    wrong: ['write:follows'],
    shows: async (_b, _ids, get) => assert.deepEqual(await get('/api/v1/featured_tags'), []),
  },
  // Accounts: follows, blocks, mutes (the deprecated `follow` also covers these, as Mastodon).
  {
    method: 'POST',
    path: '/api/v1/accounts/:fay/follow',
    scope: 'write:follows',
    wrong: ['write:blocks', 'write:accounts'],
    shows: (b) => assert.equal(b.following, true),
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/:fay/unfollow',
    scope: 'write:follows',
    wrong: ['write:blocks', 'write:accounts'],
    shows: (b) => assert.equal(b.following, false),
  },
  {
    method: 'POST',
    path: '/api/v1/follow_requests/:cat/authorize',
    scope: 'write:follows',
    wrong: ['write:notifications'],
    shows: (b) => assert.equal(b.followed_by, true),
  },
  {
    method: 'POST',
    path: '/api/v1/follow_requests/:dan/reject',
    scope: 'write:follows',
    wrong: ['write:notifications'],
    shows: (b) => assert.equal(b.followed_by, false),
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/:eve/block',
    scope: 'write:blocks',
    wrong: ['write:mutes', 'write:follows'],
    shows: (b) => assert.equal(b.blocking, true),
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/:eve/unblock',
    scope: 'write:blocks',
    wrong: ['write:mutes', 'write:follows'],
    shows: (b) => assert.equal(b.blocking, false),
  },
  { method: 'POST', path: '/api/v1/accounts/:eve/mute', scope: 'write:mutes', wrong: ['write:blocks'], shows: (b) => assert.equal(b.muting, true) },
  { method: 'POST', path: '/api/v1/accounts/:eve/unmute', scope: 'write:mutes', wrong: ['write:blocks'], shows: (b) => assert.equal(b.muting, false) },
  // Notes, endorsements (ann follows bob) and removing a follower (issue 36).
  {
    method: 'POST',
    path: '/api/v1/accounts/:bob/note',
    scope: 'write:accounts',
    wrong: ['write:follows', 'write:statuses'],
    body: () => ({ comment: 'met at the fair' }),
    shows: (b) => assert.equal(b.note, 'met at the fair'),
  },
  { method: 'POST', path: '/api/v1/accounts/:bob/endorse', scope: 'write:accounts', wrong: ['write:follows'], shows: (b) => assert.equal(b.endorsed, true) },
  { method: 'POST', path: '/api/v1/accounts/:bob/unendorse', scope: 'write:accounts', wrong: ['write:follows'], shows: (b) => assert.equal(b.endorsed, false) },
  { method: 'POST', path: '/api/v1/accounts/:bob/pin', scope: 'write:accounts', wrong: ['write:follows'], shows: (b) => assert.equal(b.endorsed, true) },
  { method: 'POST', path: '/api/v1/accounts/:bob/unpin', scope: 'write:accounts', wrong: ['write:follows'], shows: (b) => assert.equal(b.endorsed, false) },
  {
    method: 'POST',
    path: '/api/v1/accounts/:fay/remove_from_followers',
    scope: 'write:follows',
    wrong: ['write:accounts', 'write:blocks'],
    shows: (b) => assert.equal(b.followed_by, false),
  },
  // The member's own domain blocks (the preview is a GET that asks a write scope, as Mastodon's).
  {
    method: 'GET',
    path: '/api/v1/domain_blocks/preview?domain=blocked.example',
    scope: 'write:blocks',
    wrong: ['write:mutes', 'read:blocks'],
    shows: (b) => assert.deepEqual(b, { following_count: 0, followers_count: 0 }),
  },
  {
    method: 'POST',
    path: '/api/v1/domain_blocks',
    scope: 'write:blocks',
    wrong: ['write:mutes', 'write:follows'],
    body: () => ({ domain: 'Blocked.Example' }),
    shows: async (b, _ids, get) => {
      assert.deepEqual(b, {});
      assert.deepEqual(await get('/api/v1/domain_blocks'), ['blocked.example']);
    },
  },
  {
    method: 'DELETE',
    path: '/api/v1/domain_blocks',
    scope: 'write:blocks',
    wrong: ['write:mutes', 'write:follows'],
    body: () => ({ domain: 'blocked.example' }),
    shows: async (b, _ids, get) => {
      assert.deepEqual(b, {});
      assert.deepEqual(await get('/api/v1/domain_blocks'), []);
    },
  },
  // Follow suggestions: a dismissal (Mastodon 4.5: write:accounts).
  {
    method: 'DELETE',
    path: '/api/v1/suggestions/:fay',
    scope: 'write:accounts',
    wrong: ['write:follows', 'write:blocks'],
    shows: (b) => assert.deepEqual(b, {}),
  },
  // Staff featuring an account in suggestions (a moderator: Manage taxonomies).
  {
    method: 'POST',
    path: '/api/v1/admin/accounts/:fay/feature',
    scope: 'admin:write:accounts',
    wrong: ['admin:write:reports', 'admin:read', 'write:accounts', 'write'],
    mod: true,
    shows: (b, ids) => assert.equal(b.id, ids['fay']),
  },
  {
    method: 'POST',
    path: '/api/v1/admin/accounts/:fay/unfeature',
    scope: 'admin:write:accounts',
    wrong: ['admin:write:reports', 'admin:read', 'write:accounts', 'write'],
    mod: true,
    shows: (b, ids) => assert.equal(b.id, ids['fay']),
  },
  // The member's own profile.
  {
    method: 'PATCH',
    path: '/api/v1/accounts/update_credentials',
    scope: 'write:accounts',
    wrong: ['write:statuses'],
    body: () => ({ note: 'new bio' }),
    shows: (b) => assert.equal(b.source.note, 'new bio'),
  },
  {
    method: 'DELETE',
    path: '/api/v1/profile/avatar',
    scope: 'write:accounts',
    wrong: ['write:media'],
    shows: (b, ids) => assert.deepEqual([b.id, b.avatar.endsWith('/missing.png')], [ids['ann'], true]),
  },
  {
    method: 'DELETE',
    path: '/api/v1/profile/header',
    scope: 'write:accounts',
    wrong: ['write:media'],
    shows: (b, ids) => assert.deepEqual([b.id, b.header.endsWith('/missing.png')], [ids['ann'], true]),
  },
  {
    method: 'POST',
    path: '/api/v1/accounts/identity_statements',
    scope: 'write:accounts',
    wrong: ['write:statuses'],
    body: (ids) => JSON.parse(ids['statement']!),
    shows: (b, ids) =>
      assert.deepEqual(
        b.map((x: Json) => x.subject),
        [ids['did']],
      ),
  },
  {
    method: 'DELETE',
    path: '/api/v1/accounts/identity_statements',
    scope: 'write:accounts',
    wrong: ['write:statuses'],
    body: (ids) => ({ subject: ids['did'] }),
    shows: (b) => assert.deepEqual(b, []),
  },
  // Media.
  { method: 'POST', path: '/api/v2/media', scope: 'write:media', wrong: ['write:statuses'], multipart: true, shows: (b) => assert.equal(b.type, 'image') },
  { method: 'POST', path: '/api/v1/media', scope: 'write:media', wrong: ['write:statuses'], multipart: true, shows: (b) => assert.equal(b.type, 'image') },
  {
    method: 'PUT',
    path: '/api/v1/media/:media',
    scope: 'write:media',
    wrong: ['write:statuses'],
    body: () => ({ description: 'a square' }),
    shows: (b) => assert.equal(b.description, 'a square'),
  },
  {
    method: 'PATCH',
    path: '/api/v1/media/:media',
    scope: 'write:media',
    wrong: ['write:statuses'],
    body: () => ({ description: 'still a square' }),
    shows: (b) => assert.equal(b.description, 'still a square'),
  },
  {
    method: 'DELETE',
    path: '/api/v1/media/:spareMedia',
    scope: 'write:media',
    wrong: ['write:statuses'],
    shows: async (b, ids, get) => {
      assert.deepEqual(b, {});
      await assert.rejects(get(`/api/v1/media/${ids['spareMedia']}`));
    },
  },
  // Scheduled posts (Mastodon: write:statuses to move or cancel one).
  {
    method: 'PUT',
    path: '/api/v1/scheduled_statuses/:scheduled',
    scope: 'write:statuses',
    wrong: ['write:accounts'],
    body: () => ({ scheduled_at: '2099-01-02T03:04:05.000Z' }),
    shows: (b) => assert.equal(b.scheduled_at, '2099-01-02T03:04:05.000Z'),
  },
  {
    method: 'DELETE',
    path: '/api/v1/scheduled_statuses/:scheduled',
    scope: 'write:statuses',
    wrong: ['write:accounts'],
    shows: (b) => assert.deepEqual(b, {}),
  },
  // Lists.
  {
    method: 'POST',
    path: '/api/v1/lists',
    scope: 'write:lists',
    wrong: ['write:follows'],
    body: () => ({ title: 'new list' }),
    shows: (b) => assert.equal(b.title, 'new list'),
  },
  {
    method: 'PUT',
    path: '/api/v1/lists/:list',
    scope: 'write:lists',
    wrong: ['write:follows'],
    body: () => ({ title: 'renamed' }),
    shows: (b) => assert.equal(b.title, 'renamed'),
  },
  {
    method: 'PATCH',
    path: '/api/v1/lists/:list',
    scope: 'write:lists',
    wrong: ['write:follows'],
    body: () => ({ title: 'renamed again' }),
    shows: (b) => assert.equal(b.title, 'renamed again'),
  },
  {
    method: 'POST',
    path: '/api/v1/lists/:list/accounts',
    scope: 'write:lists',
    wrong: ['write:follows'],
    body: (ids) => ({ account_ids: [ids['bob']] }),
    shows: async (_, ids, get) =>
      assert.deepEqual(
        (await get(`/api/v1/lists/${ids['list']}/accounts`)).map((a: Json) => a.id),
        [ids['bob']],
      ),
  },
  {
    method: 'DELETE',
    path: '/api/v1/lists/:list/accounts',
    scope: 'write:lists',
    wrong: ['write:follows'],
    body: (ids) => ({ account_ids: [ids['bob']] }),
    shows: async (_, ids, get) => assert.deepEqual(await get(`/api/v1/lists/${ids['list']}/accounts`), []),
  },
  {
    method: 'DELETE',
    path: '/api/v1/lists/:list',
    scope: 'write:lists',
    wrong: ['write:follows'],
    shows: async (_, __, get) =>
      assert.deepEqual(
        (await get('/api/v1/lists')).map((l: Json) => l.title),
        ['new list'],
      ),
  },
  // Notifications and conversations.
  {
    method: 'POST',
    path: '/api/v1/notifications/:notification/dismiss',
    scope: 'write:notifications',
    wrong: ['write:conversations'],
    shows: async (_, ids, get) =>
      assert.equal(
        (await get('/api/v1/notifications')).some((n: Json) => n.id === ids['notification']),
        false,
      ),
  },
  {
    method: 'POST',
    path: '/api/v2/notifications/:group/dismiss',
    scope: 'write:notifications',
    wrong: ['write:conversations'],
    shows: async (_, ids, get) =>
      assert.equal(
        (await get('/api/v2/notifications')).notification_groups.some((g: Json) => g.group_key === ids['group']),
        false,
      ),
  },
  {
    method: 'POST',
    path: '/api/v1/notifications/clear',
    scope: 'write:notifications',
    wrong: ['write:conversations'],
    shows: async (_, __, get) => assert.deepEqual(await get('/api/v1/notifications'), []),
  },
  // Nothing left to clear: the answer is what a client sees, the scope check is the point.
  { method: 'POST', path: '/api/v2/notifications/clear', scope: 'write:notifications', wrong: ['write:conversations'], shows: (b) => assert.deepEqual(b, {}) },
  {
    method: 'POST',
    path: '/api/v1/conversations/:conversation/read',
    scope: 'write:conversations',
    wrong: ['write:statuses', 'write:notifications'],
    shows: (b) => assert.equal(b.unread, false),
  },
  {
    method: 'POST',
    path: '/api/v1/conversations/:conversation/unread',
    scope: 'write:conversations',
    wrong: ['write:statuses', 'write:notifications'],
    shows: (b) => assert.equal(b.unread, true),
  },
  {
    method: 'DELETE',
    path: '/api/v1/conversations/:conversation',
    scope: 'write:conversations',
    wrong: ['write:statuses', 'write:notifications'],
    shows: async (_, __, get) => assert.deepEqual(await get('/api/v1/conversations'), []),
  },
  // Trends: a moderator's review (Manage taxonomies) with Mastodon's admin:write.
  ...(['statuses', 'tags', 'links'] as const).flatMap((kind) =>
    (['approve', 'reject'] as const).map(
      (verb): Row => ({
        method: 'POST',
        path: `/api/v1/admin/trends/${kind}/:${kind === 'statuses' ? 'bobPost' : kind === 'tags' ? 'tag' : 'link'}/${verb}`,
        scope: 'admin:write',
        wrong: ['admin:read', 'admin:write:reports', 'write'],
        mod: true,
        shows: (b) => assert.equal(b.requires_review, false),
      }),
    ),
  ),
  // Link publishers: the same review, of a link's domain.
  ...(['approve', 'reject'] as const).map(
    (verb): Row => ({
      method: 'POST',
      path: `/api/v1/admin/trends/links/publishers/:publisher/${verb}`,
      scope: 'admin:write',
      wrong: ['admin:read', 'admin:write:reports', 'write'],
      mod: true,
      shows: (b) => assert.deepEqual([b.domain, b.requires_review, b.trendable], ['scoped.example', false, verb === 'approve']),
    }),
  ),
  // Reports, and acting on them as a moderator (a member's write:reports is not an admin scope).
  {
    method: 'POST',
    path: '/api/v1/reports',
    scope: 'write:reports',
    wrong: ['write:statuses', 'write:accounts'],
    body: (ids) => ({ account_id: ids['bob'], comment: 'spam' }),
    shows: (b, ids) => assert.equal(b.target_account.id, ids['bob']),
  },
  ...(['assign_to_self', 'unassign', 'resolve', 'reopen'] as const).map(
    (action): Row => ({
      method: 'POST',
      path: `/api/v1/admin/reports/:report/${action}`,
      scope: 'admin:write:reports',
      wrong: ['admin:write:accounts', 'admin:read', 'write:reports', 'write'],
      mod: true,
      shows: (b, ids) => assert.equal(b.id, ids['report']),
    }),
  ),
  {
    method: 'PUT',
    path: '/api/v1/admin/reports/:report',
    scope: 'admin:write:reports',
    wrong: ['admin:write:accounts', 'admin:read', 'write:reports', 'write'],
    mod: true,
    body: () => ({ category: 'other' }),
    shows: (b) => assert.equal(b.category, 'other'),
  },
  {
    method: 'PATCH',
    path: '/api/v1/admin/reports/:report',
    scope: 'admin:write:reports',
    wrong: ['admin:write:accounts', 'admin:read', 'write:reports', 'write'],
    mod: true,
    body: () => ({ category: 'spam' }),
    shows: (b) => assert.equal(b.category, 'spam'),
  },
];

const READS: readonly Row[] = [
  { method: 'GET', path: '/api/v1/timelines/home', scope: 'read:statuses', wrong: ['read:notifications'] },
  { method: 'GET', path: '/api/v1/notifications', scope: 'read:notifications', wrong: ['read:statuses'] },
  { method: 'GET', path: '/api/v2/notifications', scope: 'read:notifications', wrong: ['read:statuses'] },
  { method: 'GET', path: '/api/v1/favourites', scope: 'read:favourites', wrong: ['read:bookmarks'] },
  { method: 'GET', path: '/api/v1/bookmarks', scope: 'read:bookmarks', wrong: ['read:favourites'] },
  { method: 'GET', path: '/api/v1/blocks', scope: 'read:blocks', wrong: ['read:mutes', 'write:blocks'] },
  { method: 'GET', path: '/api/v1/mutes', scope: 'read:mutes', wrong: ['read:blocks', 'write:mutes'] },
  { method: 'GET', path: '/api/v1/follow_requests', scope: 'read:follows', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/lists', scope: 'read:lists', wrong: ['read:follows'] },
  { method: 'GET', path: '/api/v1/followed_tags', scope: 'read:follows', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/featured_tags', scope: 'read:accounts', wrong: ['read:follows'] },
  { method: 'GET', path: '/api/v1/featured_tags/suggestions', scope: 'read:accounts', wrong: ['read:statuses'] },
  { method: 'GET', path: '/api/v1/conversations', scope: 'read:statuses', wrong: ['read:notifications'] },
  { method: 'GET', path: '/api/v1/scheduled_statuses', scope: 'read:statuses', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/statuses/:annPost/quotes', scope: 'read:statuses', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/markers', scope: 'read:statuses', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/preferences', scope: 'read:accounts', wrong: ['read:statuses'] },
  { method: 'GET', path: '/api/v1/accounts/verify_credentials', scope: 'read:accounts', wrong: ['read:statuses'] },
  { method: 'GET', path: '/api/v1/accounts/search?q=bob', scope: 'read:accounts', wrong: ['read:search'] },
  { method: 'GET', path: '/api/v1/accounts/familiar_followers?id[]=:bob', scope: 'read:follows', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/endorsements', scope: 'read:accounts', wrong: ['read:follows'] },
  { method: 'GET', path: '/api/v1/admin/reports', scope: 'admin:read:reports', wrong: ['admin:read:accounts', 'admin:write:reports', 'read'], mod: true },
  { method: 'GET', path: '/api/v1/admin/trends/tags', scope: 'admin:read', wrong: ['admin:read:reports', 'admin:write', 'read'], mod: true },
];

/**
 * Public reads: anyone may call them without a token, but a token that is sent must still carry the route's read
 * scope (Mastodon's authorize_if_got_token!): a write-only token, or one with another read scope, is refused.
 */
const PUBLIC_READS: readonly Row[] = [
  { method: 'GET', path: '/api/v1/timelines/public', scope: 'read:statuses', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/statuses/:bobPost', scope: 'read:statuses', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/statuses/:bobPost/context', scope: 'read:statuses', wrong: ['read:notifications'] },
  { method: 'GET', path: '/api/v1/accounts/:bob', scope: 'read:accounts', wrong: ['read:statuses'] },
  { method: 'GET', path: '/api/v1/accounts/:bob/statuses', scope: 'read:statuses', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v1/accounts/:bob/followers', scope: 'read:accounts', wrong: ['read:follows'] },
  { method: 'GET', path: '/api/v1/accounts/:bob/endorsements', scope: 'read:accounts', wrong: ['read:follows'] },
  { method: 'GET', path: '/api/v1/accounts/:bob/featured_tags', scope: 'read:accounts', wrong: ['read:statuses'] },
  { method: 'GET', path: '/api/v2/search?q=bob', scope: 'read:search', wrong: ['read:accounts'] },
  // The link-aggregator adapter (/api/v3): Lemmy has no scopes, its reads take the whole of `read`.
  { method: 'GET', path: '/api/v3/site', scope: 'read', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v3/user?username=bob', scope: 'read', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v3/community/list', scope: 'read', wrong: ['read:accounts'] },
  { method: 'GET', path: '/api/v3/search?q=bob', scope: 'read', wrong: ['read:search'] },
];

describe('route scopes', () => {
  let s: TestServer;
  let m: LocalMembers;
  const ids: Ids = { emoji: encodeURIComponent('👍') };
  /** Tokens by `who scope`, minted once in setup. */
  const tokens = new Map<string, string>();
  const actor = (row: Row) => (row.mod ? 'mod' : 'ann');
  const tokenOf = (row: Row, scope: string) => tokens.get(`${actor(row)} ${scope}`)!;
  const urlOf = (row: Row) => row.path.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? assert.fail(`no id for :${name}`));

  async function send(row: Row, token: string): Promise<{ status: number; body: Json; text: string }> {
    if (!row.multipart) return api(s.url, token, row.method, urlOf(row), row.body?.(ids));
    const form = new FormData();
    form.set('file', new Blob([png(8, 8)], { type: 'image/png' }), 'square.png');
    const res = await fetch(s.url + urlOf(row), { method: row.method, headers: { Authorization: `Bearer ${token}` }, body: form });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, text };
  }
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };

  before(async () => {
    // Registrations open, so that signing up through the API (POST /api/v1/accounts) answers.
    s = await startTestServer({ REGISTRATIONS: 'open' });
    m = await createMembers(s, ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'mod'], { mod: 'moderator' });
    Object.assign(ids, m.id);
    const rows = [...WRITES.map((r) => [r, 'read'] as const), ...[...READS, ...PUBLIC_READS].map((r) => [r, 'write'] as const)];
    const needed = new Set(rows.flatMap(([r, broad]) => [r.scope, broad, ...r.wrong].map((scope) => `${actor(r)} ${scope}`)));
    await Promise.all(
      [...needed].map(async (k) => {
        const [who, scope] = k.split(' ') as [string, string];
        tokens.set(k, await m.tokenFor(who, [scope]));
      }),
    );

    // ann is locked, so cat and dan's follows wait for her answer; ann follows bob (a list may hold only followed accounts).
    await ok('ann', 'PATCH', '/api/v1/accounts/update_credentials', { locked: true });
    await Promise.all([
      ok('cat', 'POST', `/api/v1/accounts/${ids['ann']}/follow`),
      ok('dan', 'POST', `/api/v1/accounts/${ids['ann']}/follow`),
      ok('ann', 'POST', `/api/v1/accounts/${ids['bob']}/follow`),
    ]);
    const [bobPost, pollPost, , annPost, annDoomed, list] = await Promise.all([
      ok('bob', 'POST', '/api/v1/statuses', { status: 'a public post' }),
      ok('bob', 'POST', '/api/v1/statuses', { status: 'a poll', poll: { options: ['yes', 'no'], expires_in: 3600 } }),
      ok('bob', 'POST', '/api/v1/statuses', { status: '@ann just us', visibility: 'direct' }),
      ok('ann', 'POST', '/api/v1/statuses', { status: 'mine' }),
      ok('ann', 'POST', '/api/v1/statuses', { status: 'to be deleted' }),
      ok('ann', 'POST', '/api/v1/lists', { title: 'friends' }),
    ]);
    Object.assign(ids, { bobPost: bobPost.id, poll: pollPost.poll.id, annPost: annPost.id, annDoomed: annDoomed.id, list: list.id });
    // A tag and a link for the trends review rows.
    await ok('bob', 'POST', '/api/v1/statuses', { status: '#scoped https://scoped.example/' });
    ids['tag'] = (await s.app.db.pool.query<{ id: string }>(`SELECT id FROM tags WHERE key = 'scoped'`)).rows[0]!.id;
    ids['link'] = (await s.app.db.pool.query<{ id: string }>(`SELECT id FROM links WHERE url = 'https://scoped.example/'`)).rows[0]!.id;
    // A refresh adds the link's publisher.
    await new TrendStore(s.app.db).refresh(new Date());
    ids['publisher'] = (await s.app.db.pool.query<{ id: string }>(`SELECT id FROM publishers WHERE domain = 'scoped.example'`)).rows[0]!.id;
    const media = await upload(s.url, m.token['ann'], png(8, 8));
    assert.equal(media.status, 200, JSON.stringify(media.body));
    ids['media'] = media.body.id;
    ids['bobQuote'] = (await ok('bob', 'POST', '/api/v1/statuses', { status: 'quoting ann', quoted_status_id: ids['annPost'] })).id;
    ids['spareMedia'] = (await upload(s.url, m.token['ann'], png(8, 8))).body.id;
    ids['scheduled'] = (await ok('ann', 'POST', '/api/v1/statuses', { status: 'later', scheduled_at: '2098-01-01T00:00:00Z' })).id;
    const report = await ok('cat', 'POST', '/api/v1/reports', { account_id: ids['bob'], comment: 'rude' });
    ids['report'] = report.id;
    const [conversations, notifications, groups] = await Promise.all([
      ok('ann', 'GET', '/api/v1/conversations'),
      ok('ann', 'GET', '/api/v1/notifications'),
      ok('ann', 'GET', '/api/v2/notifications'),
    ]);
    ids['conversation'] = conversations[0].id;
    // One notification dismissed through v1 (the mention), another's group through v2 (a follow request).
    ids['notification'] = notifications.find((n: Json) => n.type === 'mention').id;
    ids['group'] = groups.notification_groups.find((g: Json) => g.type === 'follow_request').group_key;

    const actorDoc = await fetch(`${s.url}/users/ann`, { headers: { Accept: 'application/activity+json' } });
    const key: IdentityKey = newIdentityKey();
    ids['did'] = key.did;
    ids['statement'] = JSON.stringify(signStatement(key, ((await actorDoc.json()) as { id: string }).id));
    // Staff write announcements on a page (no API): one published, as the page's store call makes it.
    ids['announcement'] = (await new AnnouncementStore(s.app.db).create({ text: 'hello', allDay: false, startsAt: null, endsAt: null }, true)).id;
  });
  after(() => s?.stop());

  const refusedWith = async (row: Row, scope: string) => {
    const r = await send(row, tokenOf(row, scope));
    assert.equal(r.status, 403, `${row.method} ${row.path} with only ${scope}: ${r.text}`);
    assert.deepEqual(r.body, { error: OUTSIDE_SCOPES }, `${row.method} ${row.path} with only ${scope}`);
  };
  const passes = async (row: Row) => {
    const r = await send(row, tokenOf(row, row.scope));
    assert.equal(r.status, 200, `${row.method} ${row.path} with ${row.scope}: ${r.text}`);
    await row.shows?.(r.body, ids, async (path) => {
      const back = await api(s.url, m.token[actor(row)], 'GET', path);
      assert.equal(back.status, 200, `${path}: ${back.text}`);
      return back.body;
    });
  };

  for (const row of WRITES) {
    it(`${row.method} ${row.path}: ${row.scope}; read and ${row.wrong.join(', ')} refused`, async () => {
      await Promise.all(['read', ...row.wrong].map((scope) => refusedWith(row, scope)));
      await passes(row);
    });
  }

  it('read routes: write and a wrong granular read scope refused, the right read scope answered', async () => {
    await Promise.all(
      READS.map(async (row) => {
        await Promise.all(['write', ...row.wrong].map((scope) => refusedWith(row, scope)));
        await passes(row);
      }),
    );
  });

  it('public reads: answered without a token; a token lacking the read scope refused; the right scope answered', async () => {
    await Promise.all(
      PUBLIC_READS.map(async (row) => {
        const anonymous = await api(s.url, undefined, row.method, urlOf(row));
        assert.equal(anonymous.status, 200, `${row.path} without a token: ${anonymous.text}`);
        await Promise.all(['write', ...row.wrong].map((scope) => refusedWith(row, scope)));
        await passes(row);
      }),
    );
  });
});
