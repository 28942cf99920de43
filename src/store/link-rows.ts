// What the /api/v3 views render, read in batches (one statement per kind per page, never one per row): people and
// communities (accounts with their Lemmy ids and the viewer's relation to them), posts and comments (their records,
// their statuses, counts and the viewer's vote and save). The rows carry Lemmy's timestamps as text; the views only
// shape them. No visibility rule is applied here: the pages (link-pages.ts) choose what may be shown.
import type { Database } from './db.js';

/** Lemmy's timestamp form: UTC, microseconds, `Z` ("2024-01-05T09:12:32.521578Z"). */
export const lemmyTime = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export type PersonRow = {
  readonly personId: number;
  readonly accountId: string;
  readonly username: string;
  /** null: a member of this server. */
  readonly domain: string | null;
  readonly displayName: string;
  readonly note: string;
  readonly uri: string | null;
  readonly avatarFile: string | null;
  readonly avatarRemoteUrl: string | null;
  readonly headerFile: string | null;
  readonly headerRemoteUrl: string | null;
  readonly bot: boolean;
  readonly suspended: boolean;
  readonly deleted: boolean;
  readonly published: string;
  readonly instanceId: number;
  /** A member whose role runs the site (Administrator or Manage Settings: Mastodon's Owner and Admin roles). */
  readonly admin: boolean;
  /** The viewer blocks them (always false for no viewer). */
  readonly blocked: boolean;
};

export type CommunityRow = {
  readonly communityId: number;
  readonly accountId: string;
  readonly username: string;
  readonly domain: string | null;
  readonly displayName: string;
  readonly note: string;
  readonly uri: string | null;
  readonly avatarFile: string | null;
  readonly avatarRemoteUrl: string | null;
  readonly headerFile: string | null;
  readonly headerRemoteUrl: string | null;
  readonly suspended: boolean;
  readonly deleted: boolean;
  readonly published: string;
  readonly nsfw: boolean;
  readonly postingRestrictedToMods: boolean;
  readonly instanceId: number;
  /** The viewer's follow: 'Subscribed', 'Pending' (a request) or 'NotSubscribed'. */
  readonly subscribed: 'Subscribed' | 'Pending' | 'NotSubscribed';
  /** The viewer blocks the Group account. */
  readonly blocked: boolean;
};

export type PostRow = {
  readonly id: number;
  readonly statusId: string;
  readonly communityId: number;
  readonly creatorAccountId: string;
  /** The author's username, for a local post's own address. */
  readonly creatorUsername: string;
  readonly name: string;
  readonly url: string | null;
  readonly body: string;
  readonly nsfw: boolean;
  readonly locked: boolean;
  readonly featuredCommunity: boolean;
  readonly published: string;
  readonly updated: string | null;
  readonly deleted: boolean;
  readonly uri: string | null;
  readonly local: boolean;
  readonly upvotes: number;
  readonly downvotes: number;
  readonly score: number;
  readonly comments: number;
  readonly newestCommentTime: string;
  readonly myVote: number | null;
  readonly saved: boolean;
  readonly creatorIsModerator: boolean;
};

export type CommentRow = {
  readonly id: number;
  readonly statusId: string;
  readonly postId: number;
  readonly creatorAccountId: string;
  readonly creatorUsername: string;
  readonly path: string;
  readonly body: string;
  readonly published: string;
  readonly updated: string | null;
  readonly deleted: boolean;
  readonly uri: string | null;
  readonly local: boolean;
  readonly upvotes: number;
  readonly downvotes: number;
  readonly score: number;
  readonly childCount: number;
  readonly myVote: number | null;
  readonly saved: boolean;
  readonly creatorIsModerator: boolean;
};

const ACCOUNT_COLUMNS = `a.id::text AS "accountId", a.username, a.domain, a.bot, a.display_name AS "displayName", a.note, a.uri,
  a.avatar_file AS "avatarFile", a.avatar_remote_url AS "avatarRemoteUrl", a.header_file AS "headerFile",
  a.header_remote_url AS "headerRemoteUrl", a.suspended_at IS NOT NULL AS suspended, a.deleted_at IS NOT NULL AS deleted,
  ${lemmyTime('COALESCE(a.published_at, a.created_at)')} AS published, li.id::int AS "instanceId"`;

// The viewer ($2, null for none) blocking the account a.
const VIEWER_BLOCKS = `($2::bigint IS NOT NULL AND EXISTS (SELECT 1 FROM blocks vb WHERE vb.account_id = $2::bigint AND vb.target_account_id = a.id))`;

// Lemmy's site admins: the roles holding Administrator (1) or Manage Settings (64), Mastodon's Owner and Admin.
const SITE_ADMIN = 1 | 64;

const PEOPLE = `SELECT lp.id::int AS "personId", ${ACCOUNT_COLUMNS},
    EXISTS (SELECT 1 FROM users u JOIN roles r ON r.id = u.role_id WHERE u.account_id = a.id AND r.permissions & ${SITE_ADMIN} <> 0) AS admin,
    ${VIEWER_BLOCKS} AS blocked
  FROM unnest($1::bigint[]) AS k(id) JOIN accounts a ON a.id = k.id
  LEFT JOIN lemmy_persons lp ON lp.account_id = a.id LEFT JOIN lemmy_instances li ON li.domain = lower(COALESCE(a.domain, ''))`;

const COMMUNITIES = `SELECT c.id::int AS "communityId", ${ACCOUNT_COLUMNS}, c.nsfw, c.posting_restricted_to_mods AS "postingRestrictedToMods",
    CASE WHEN $2::bigint IS NULL THEN 'NotSubscribed'
      WHEN EXISTS (SELECT 1 FROM follows f WHERE f.account_id = $2::bigint AND f.target_account_id = a.id) THEN 'Subscribed'
      WHEN EXISTS (SELECT 1 FROM follow_requests fr WHERE fr.account_id = $2::bigint AND fr.target_account_id = a.id) THEN 'Pending'
      ELSE 'NotSubscribed' END AS subscribed,
    ${VIEWER_BLOCKS} AS blocked
  FROM unnest($1::int[]) AS k(id) JOIN lemmy_communities c ON c.id = k.id JOIN accounts a ON a.id = c.account_id
  LEFT JOIN lemmy_instances li ON li.domain = lower(COALESCE(a.domain, ''))`;

// The viewer's vote and save on status s; whether s's author moderates community `community`.
const VIEWER_STATUS = (community: string) => `
  (SELECT v.score::int FROM lemmy_votes v WHERE v.status_id = s.id AND v.account_id = $2::bigint) AS "myVote",
  ($2::bigint IS NOT NULL AND EXISTS (SELECT 1 FROM bookmarks bm WHERE bm.account_id = $2::bigint AND bm.status_id = s.id)) AS saved,
  EXISTS (SELECT 1 FROM lemmy_community_moderators m WHERE m.community_id = ${community} AND m.account_id = s.account_id) AS "creatorIsModerator"`;

const POSTS = `SELECT p.id::int AS id, p.status_id::text AS "statusId", p.community_id::int AS "communityId",
    s.account_id::text AS "creatorAccountId", ca.username AS "creatorUsername", p.name, p.url, p.body, p.nsfw OR s.sensitive AS nsfw,
    p.locked, p.featured_community AS "featuredCommunity", ${lemmyTime('p.published')} AS published, ${lemmyTime('s.edited_at')} AS updated,
    s.deleted_at IS NOT NULL AS deleted, s.uri, s.local, p.upvotes, p.downvotes, p.score, p.comments,
    ${lemmyTime('p.newest_comment_time')} AS "newestCommentTime", ${VIEWER_STATUS('p.community_id')}
  FROM unnest($1::int[]) WITH ORDINALITY AS k(id, n) JOIN lemmy_posts p ON p.id = k.id JOIN statuses s ON s.id = p.status_id
  JOIN accounts ca ON ca.id = s.account_id
  ORDER BY k.n`;

const COMMENTS = `SELECT cm.id::int AS id, cm.status_id::text AS "statusId", cm.post_id::int AS "postId",
    s.account_id::text AS "creatorAccountId", ca.username AS "creatorUsername", cm.path, cm.body,
    ${lemmyTime('cm.published')} AS published, ${lemmyTime('s.edited_at')} AS updated, s.deleted_at IS NOT NULL AS deleted,
    s.uri, s.local, cm.upvotes, cm.downvotes, cm.score, cm.child_count AS "childCount", ${VIEWER_STATUS('p.community_id')}
  FROM unnest($1::int[]) WITH ORDINALITY AS k(id, n) JOIN lemmy_comments cm ON cm.id = k.id JOIN statuses s ON s.id = cm.status_id
  JOIN accounts ca ON ca.id = s.account_id JOIN lemmy_posts p ON p.id = cm.post_id
  ORDER BY k.n`;

export type CommunityCountsRow = {
  readonly communityId: number;
  readonly subscribers: number;
  readonly subscribersLocal: number;
  readonly posts: number;
  readonly comments: number;
};

const COMMUNITY_COUNTS = `SELECT c.id::int AS "communityId",
    (SELECT count(*)::int FROM follows f JOIN accounts fa ON fa.id = f.account_id AND fa.domain IS NULL WHERE f.target_account_id = c.account_id) AS "subscribersLocal",
    (SELECT count(*)::int FROM lemmy_posts p WHERE p.community_id = c.id) AS posts,
    (SELECT COALESCE(sum(p.comments), 0)::int FROM lemmy_posts p WHERE p.community_id = c.id) AS comments,
    COALESCE((SELECT ga.remote_followers_count FROM accounts ga WHERE ga.id = c.account_id), 0) AS subscribers
  FROM unnest($1::int[]) AS k(id) JOIN lemmy_communities c ON c.id = k.id`;

export class LinkRowStore {
  constructor(private readonly db: Database) {}

  /** The accounts as Lemmy people, with ids made for those that have none yet; the viewer's blocks. */
  async people(accountIds: readonly string[], viewer: string | null): Promise<PersonRow[]> {
    if (accountIds.length === 0) return [];
    const ids = [...new Set(accountIds)];
    let rows = await this.db.rows<PersonRow>(PEOPLE, [ids, viewer], 'prepared');
    if (rows.some((r) => r.personId === null || r.instanceId === null)) {
      await this.ensureIds(
        rows.filter((r) => r.personId === null).map((r) => r.accountId),
        rows,
      );
      rows = await this.db.rows<PersonRow>(PEOPLE, [ids, viewer], 'prepared');
    }
    return rows;
  }

  /** The communities with their Group accounts; the viewer's follow and block. */
  async communities(communityIds: readonly number[], viewer: string | null): Promise<CommunityRow[]> {
    if (communityIds.length === 0) return [];
    const ids = [...new Set(communityIds)];
    let rows = await this.db.rows<CommunityRow>(COMMUNITIES, [ids, viewer], 'prepared');
    if (rows.some((r) => r.instanceId === null)) {
      await this.ensureIds([], rows);
      rows = await this.db.rows<CommunityRow>(COMMUNITIES, [ids, viewer], 'prepared');
    }
    return rows;
  }

  /** The posts, in the order given (unknown ids are left out), with the viewer's vote and save. */
  async posts(ids: readonly number[], viewer: string | null): Promise<PostRow[]> {
    return ids.length === 0 ? [] : this.db.rows<PostRow>(POSTS, [ids, viewer], 'prepared');
  }

  /** The comments, in the order given (unknown ids are left out), with the viewer's vote and save. */
  async comments(ids: readonly number[], viewer: string | null): Promise<CommentRow[]> {
    return ids.length === 0 ? [] : this.db.rows<CommentRow>(COMMENTS, [ids, viewer], 'prepared');
  }

  /** The community's moderators' accounts, in the collection's order. */
  async moderators(communityId: number): Promise<string[]> {
    const rows = await this.db.rows<{ a: string }>(
      'SELECT account_id::text AS a FROM lemmy_community_moderators WHERE community_id = $1 ORDER BY position, account_id',
      [communityId],
      'prepared',
    );
    return rows.map((r) => r.a);
  }

  /** Each community's counts (CommunityAggregates): followers (the Group's own count when it sends one), posts, comments. */
  async communityCounts(communityIds: readonly number[]): Promise<CommunityCountsRow[]> {
    if (communityIds.length === 0) return [];
    return this.db.rows<CommunityCountsRow>(COMMUNITY_COUNTS, [[...new Set(communityIds)]], 'prepared');
  }

  /**
   * The community named `name` on `host` (Lemmy's `name@host`), or, with no host, the one Group of that name (the
   * oldest, should two servers' share it). Names and hosts in any case.
   */
  async communityNamed(name: string, host: string | null): Promise<number | undefined> {
    const row = await this.db.one<{ id: number }>(
      `SELECT c.id::int AS id FROM accounts a JOIN lemmy_communities c ON c.account_id = a.id
       WHERE lower(a.username) = lower($1) AND ($2::text IS NULL OR lower(COALESCE(a.domain, '')) = lower($2::text))
         AND a.deleted_at IS NULL AND a.suspended_at IS NULL
       ORDER BY c.id LIMIT 1`,
      // Lemmy clients may write a community as !name@host.
      [name.replace(/^!/, ''), host],
      'prepared',
    );
    return row?.id;
  }

  /** Person and instance ids for accounts met for the first time: one statement each, for the whole batch. */
  private async ensureIds(accountIds: readonly string[], rows: readonly { domain: string | null; instanceId: number | null }[]): Promise<void> {
    if (accountIds.length > 0) {
      await this.db.exec('INSERT INTO lemmy_persons (account_id) SELECT unnest($1::bigint[]) ON CONFLICT (account_id) DO NOTHING', [accountIds]);
    }
    const domains = [...new Set(rows.filter((r) => r.instanceId === null).map((r) => (r.domain ?? '').toLowerCase()))];
    if (domains.length > 0) {
      await this.db.exec('INSERT INTO lemmy_instances (domain) SELECT unnest($1::text[]) ON CONFLICT (domain) DO NOTHING', [domains]);
    }
  }
}
