// What the link-aggregator adapter's site, people and community routes read (/api/v3 site, user, community,
// community/list, search): the instance's admins and counts, people's post and comment counts, the known
// communities (Group accounts filed in lemmy_communities) with their counts, a member's follows of them, and the
// search of posts and comments under the house's visibility rules (remote-history rows never listed).
import type { Database } from './db.js';
import { commentVisible, LinkPageStore, postVisible } from './link-pages.js';

export type CommunityListSort = 'new' | 'old' | 'subscribers' | 'posts' | 'comments' | 'active';

const FOLLOWERS = '(SELECT count(*) FROM follows f WHERE f.target_account_id = c.account_id)';
const ORDER: Record<CommunityListSort, string> = {
  new: 'COALESCE(a.published_at, a.created_at) DESC, c.id DESC',
  old: 'COALESCE(a.published_at, a.created_at) ASC, c.id ASC',
  subscribers: `greatest(COALESCE(a.remote_followers_count, 0), ${FOLLOWERS}) DESC, c.id DESC`,
  posts: '(SELECT count(*) FROM lemmy_posts p WHERE p.community_id = c.id) DESC, c.id DESC',
  comments: '(SELECT COALESCE(sum(p.comments), 0) FROM lemmy_posts p WHERE p.community_id = c.id) DESC, c.id DESC',
  active: '(SELECT max(p.newest_comment_time) FROM lemmy_posts p WHERE p.community_id = c.id) DESC NULLS LAST, c.id DESC',
};

/** The orders a person's or a search's posts and comments take (Lemmy's sorts, as api/lemmy/params.ts maps them). */
export type ItemOrder = 'new' | 'old' | 'top' | 'comments';
const POST_ORDER: Record<ItemOrder, string> = {
  new: 'p.published DESC, p.id DESC',
  old: 'p.published ASC, p.id ASC',
  top: 'p.score DESC, p.published DESC, p.id DESC',
  comments: 'p.comments DESC, p.published DESC, p.id DESC',
};
const COMMENT_ORDER: Record<ItemOrder, string> = {
  new: 'm.published DESC, m.id DESC',
  old: 'm.published ASC, m.id ASC',
  top: 'm.score DESC, m.published DESC, m.id DESC',
  comments: 'm.child_count DESC, m.published DESC, m.id DESC',
};

/** SQL: post p lies in a community the member (a parameter) follows. */
const inFollowedCommunity = (member: string) =>
  `p.community_id IN (SELECT fc.id FROM lemmy_communities fc JOIN follows ff ON ff.target_account_id = fc.account_id WHERE ff.account_id = ${member})`;

/** Joins a post p's community c, for the visibility rules (link-pages.ts postVisible). */
const COMMUNITY = 'JOIN lemmy_communities c ON c.id = p.community_id';
// A community is listed while its Group is neither deleted nor suspended.
const LISTED = 'a.deleted_at IS NULL AND a.suspended_at IS NULL';

export class LinkSiteStore {
  private readonly pages: LinkPageStore;

  constructor(private readonly db: Database) {
    this.pages = new LinkPageStore(db);
  }

  /** A post the viewer may open (resolve_object): the feeds' rules (link-pages.ts postVisible). */
  postVisible(postId: number, viewer: string | null): Promise<boolean> {
    return this.pages.postVisible(postId, viewer);
  }

  /**
   * The site's admins: the members whose role holds Administrator (bit 0, Mastodon's Owner) or Manage Settings (bit
   * 6, its Admin role), oldest first, as the views' is_admin (store/link-rows.ts).
   */
  async adminAccountIds(): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(
      `SELECT a.id::text AS id FROM users u JOIN roles r ON r.id = u.role_id JOIN accounts a ON a.id = u.account_id
        WHERE (r.permissions & 65) <> 0 AND NOT u.disabled AND a.suspended_at IS NULL ORDER BY u.created_at, u.id`,
    );
    return rows.map((r) => r.id);
  }

  /** The site's counts: members, local posts and comments, communities known. */
  async siteCounts(): Promise<{ users: number; posts: number; comments: number; communities: number }> {
    const r = await this.db.one<{ users: number; posts: number; comments: number; communities: number }>(
      `SELECT (SELECT count(*) FROM users WHERE approved AND NOT disabled)::int AS users,
              (SELECT count(*) FROM lemmy_posts p JOIN statuses s ON s.id = p.status_id WHERE s.local AND s.deleted_at IS NULL)::int AS posts,
              (SELECT count(*) FROM lemmy_comments m JOIN statuses s ON s.id = m.status_id WHERE s.local AND s.deleted_at IS NULL)::int AS comments,
              (SELECT count(*) FROM lemmy_communities)::int AS communities`,
    );
    return r!;
  }

  /** Posts and comments filed by each account (deleted ones not counted). */
  async personCounts(accountIds: readonly string[]): Promise<Map<string, { posts: number; comments: number }>> {
    if (accountIds.length === 0) return new Map();
    const rows = await this.db.rows<{ id: string; posts: number; comments: number }>(
      `SELECT a.id::text AS id,
         (SELECT count(*) FROM lemmy_posts p JOIN statuses s ON s.id = p.status_id WHERE s.account_id = a.id AND s.deleted_at IS NULL)::int AS posts,
         (SELECT count(*) FROM lemmy_comments m JOIN statuses s ON s.id = m.status_id WHERE s.account_id = a.id AND s.deleted_at IS NULL)::int AS comments
       FROM unnest($1::bigint[]) AS a(id)`,
      [accountIds],
    );
    return new Map(rows.map((r) => [r.id, { posts: r.posts, comments: r.comments }]));
  }

  /** The known community of that name (any host), the oldest known first: a bare name as Lemmy clients send it. */
  async communityByName(name: string, domain: string | null): Promise<number | undefined> {
    const r = await this.db.one<{ id: number }>(
      `SELECT c.id::int AS id FROM lemmy_communities c JOIN accounts a ON a.id = c.account_id
        WHERE lower(a.username) = lower($1) AND ($2::text IS NULL OR lower(a.domain) = lower($2)) AND ${LISTED}
        ORDER BY c.id LIMIT 1`,
      [name, domain],
    );
    return r?.id;
  }

  /** A page of the known communities: all, or those `follower` follows (or asked to); NSFW ones only when asked. */
  async listCommunities(o: { follower: string | null; nsfw: boolean; sort: CommunityListSort; limit: number; offset: number }): Promise<number[]> {
    const values: unknown[] = [];
    let where = LISTED;
    if (!o.nsfw) where += ' AND NOT c.nsfw';
    if (o.follower !== null) {
      const p = `$${values.push(o.follower)}`;
      where += ` AND (EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ${p} AND f.target_account_id = c.account_id)
        OR EXISTS (SELECT 1 FROM follow_requests r WHERE r.account_id = ${p} AND r.target_account_id = c.account_id))`;
    }
    const rows = await this.db.rows<{ id: number }>(
      `SELECT c.id::int AS id FROM lemmy_communities c JOIN accounts a ON a.id = c.account_id WHERE ${where}
        ORDER BY ${ORDER[o.sort]} LIMIT $${values.push(o.limit)} OFFSET $${values.push(o.offset)}`,
      values,
    );
    return rows.map((r) => r.id);
  }

  /** Known communities whose name or title contains the words, most followed first. */
  async searchCommunities(q: string, o: { nsfw: boolean; followedBy?: string; limit: number; offset: number }): Promise<number[]> {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.db.rows<{ id: number }>(
      `SELECT c.id::int AS id FROM lemmy_communities c JOIN accounts a ON a.id = c.account_id
        WHERE ${LISTED} AND ($2 OR NOT c.nsfw) AND (a.username ILIKE $1 OR a.display_name ILIKE $1)
          AND ($5::bigint IS NULL OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = $5::bigint AND f.target_account_id = c.account_id))
        ORDER BY ${FOLLOWERS} DESC, c.id
        LIMIT $3 OFFSET $4`,
      [like, o.nsfw, o.limit, o.offset, o.followedBy ?? null],
    );
    return rows.map((r) => r.id);
  }

  /** The communities the member follows (accepted follows only: Lemmy's my_user.follows), by community id. */
  async followedCommunities(member: string): Promise<number[]> {
    const rows = await this.db.rows<{ id: number }>(
      `SELECT c.id::int AS id FROM follows f JOIN lemmy_communities c ON c.account_id = f.target_account_id
        WHERE f.account_id = $1 ORDER BY c.id`,
      [member],
    );
    return rows.map((r) => r.id);
  }

  /** The communities whose moderators include the account, by community id. */
  async moderatedBy(accountId: string): Promise<number[]> {
    const rows = await this.db.rows<{ id: number }>(
      'SELECT community_id::int AS id FROM lemmy_community_moderators WHERE account_id = $1 ORDER BY community_id',
      [accountId],
    );
    return rows.map((r) => r.id);
  }

  /** Accounts the member blocks (Lemmy's person_blocks), and Group accounts among them (community_blocks). */
  async blockedAccounts(member: string): Promise<{ people: string[]; communities: number[] }> {
    const rows = await this.db.rows<{ id: string; community: number | null }>(
      `SELECT b.target_account_id::text AS id, c.id::int AS community FROM blocks b
         LEFT JOIN lemmy_communities c ON c.account_id = b.target_account_id
        WHERE b.account_id = $1 ORDER BY b.id`,
      [member],
    );
    return { people: rows.filter((r) => r.community === null).map((r) => r.id), communities: rows.flatMap((r) => (r.community === null ? [] : [r.community])) };
  }

  /**
   * Post ids (newest first) whose title, body or link holds the text, readable by the viewer and listable (no
   * remote-history row), in one community if asked, or only those with exactly this link (`url`).
   */
  async searchPosts(
    q: string,
    viewer: string | null,
    o: { communityId?: number; creator?: string; followedBy?: string; url: boolean; order?: ItemOrder; limit: number; offset: number },
  ): Promise<number[]> {
    const values: unknown[] = [o.url ? q : `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`];
    const v = viewer === null ? null : `$${values.push(viewer)}`;
    let where = o.url ? 'p.url = $1' : '(p.name ILIKE $1 OR p.body ILIKE $1 OR p.url ILIKE $1)';
    where += ` AND ${postVisible(v, false).join(' AND ')}`;
    if (o.communityId !== undefined) where += ` AND p.community_id = $${values.push(o.communityId)}`;
    if (o.creator !== undefined) where += ` AND s.account_id = $${values.push(o.creator)}`;
    if (o.followedBy !== undefined) where += ` AND ${inFollowedCommunity(`$${values.push(o.followedBy)}`)}`;
    const rows = await this.db.rows<{ id: number }>(
      `SELECT p.id::int AS id FROM lemmy_posts p JOIN statuses s ON s.id = p.status_id ${COMMUNITY} WHERE ${where}
        ORDER BY ${POST_ORDER[o.order ?? 'new']} LIMIT $${values.push(o.limit)} OFFSET $${values.push(o.offset)}`,
      values,
    );
    return rows.map((r) => r.id);
  }

  /** Comment ids (newest first) whose text holds the words, under the same rules as searchPosts. */
  async searchComments(
    q: string,
    viewer: string | null,
    o: { communityId?: number; creator?: string; followedBy?: string; order?: ItemOrder; limit: number; offset: number },
  ): Promise<number[]> {
    const values: unknown[] = [`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`];
    const v = viewer === null ? null : `$${values.push(viewer)}`;
    let where = `m.body ILIKE $1 AND ${commentVisible(v).join(' AND ')}`;
    if (o.communityId !== undefined) where += ` AND p.community_id = $${values.push(o.communityId)}`;
    if (o.creator !== undefined) where += ` AND s.account_id = $${values.push(o.creator)}`;
    if (o.followedBy !== undefined) where += ` AND ${inFollowedCommunity(`$${values.push(o.followedBy)}`)}`;
    const rows = await this.db.rows<{ id: number }>(
      `SELECT m.id::int AS id FROM lemmy_comments m JOIN lemmy_posts p ON p.id = m.post_id JOIN statuses s ON s.id = m.status_id
        JOIN statuses ps ON ps.id = p.status_id ${COMMUNITY} WHERE ${where} ORDER BY ${COMMENT_ORDER[o.order ?? 'new']} LIMIT $${values.push(o.limit)} OFFSET $${values.push(o.offset)}`,
      values,
    );
    return rows.map((r) => r.id);
  }

  /** A person's own posts and comments (newest first) the viewer may read, for GET /api/v3/user. */
  async personPosts(author: string, viewer: string | null, o: { communityId?: number; order?: ItemOrder; limit: number; offset: number }): Promise<number[]> {
    const values: unknown[] = [author];
    const v = viewer === null ? null : `$${values.push(viewer)}`;
    let where = `s.account_id = $1 AND ${postVisible(v, false).join(' AND ')}`;
    if (o.communityId !== undefined) where += ` AND p.community_id = $${values.push(o.communityId)}`;
    const rows = await this.db.rows<{ id: number }>(
      `SELECT p.id::int AS id FROM lemmy_posts p JOIN statuses s ON s.id = p.status_id ${COMMUNITY} WHERE ${where}
        ORDER BY ${POST_ORDER[o.order ?? 'new']} LIMIT $${values.push(o.limit)} OFFSET $${values.push(o.offset)}`,
      values,
    );
    return rows.map((r) => r.id);
  }

  async personComments(
    author: string,
    viewer: string | null,
    o: { communityId?: number; order?: ItemOrder; limit: number; offset: number },
  ): Promise<number[]> {
    const values: unknown[] = [author];
    const v = viewer === null ? null : `$${values.push(viewer)}`;
    let where = `s.account_id = $1 AND ${commentVisible(v).join(' AND ')}`;
    if (o.communityId !== undefined) where += ` AND p.community_id = $${values.push(o.communityId)}`;
    const rows = await this.db.rows<{ id: number }>(
      `SELECT m.id::int AS id FROM lemmy_comments m JOIN lemmy_posts p ON p.id = m.post_id JOIN statuses s ON s.id = m.status_id
        JOIN statuses ps ON ps.id = p.status_id ${COMMUNITY} WHERE ${where} ORDER BY ${COMMENT_ORDER[o.order ?? 'new']} LIMIT $${values.push(o.limit)} OFFSET $${values.push(o.offset)}`,
      values,
    );
    return rows.map((r) => r.id);
  }

  /** The member's saved (bookmarked) posts and comments, newest saved first. */
  async savedBy(member: string, o: { limit: number; offset: number }): Promise<{ posts: number[]; comments: number[] }> {
    const rows = await this.db.rows<{ post: number | null; comment: number | null }>(
      `SELECT p.id::int AS post, m.id::int AS comment FROM bookmarks b
         LEFT JOIN lemmy_posts p ON p.status_id = b.status_id LEFT JOIN lemmy_comments m ON m.status_id = b.status_id
         LEFT JOIN lemmy_posts mp ON mp.id = m.post_id
         JOIN lemmy_communities c ON c.id = COALESCE(p.community_id, mp.community_id)
         JOIN statuses s ON s.id = b.status_id JOIN statuses ps ON ps.id = COALESCE(p.status_id, mp.status_id)
        WHERE b.account_id = $1 AND ${commentVisible('$1::bigint').join(' AND ')} ORDER BY b.id DESC LIMIT $2 OFFSET $3`,
      [member, o.limit, o.offset],
    );
    return { posts: rows.flatMap((r) => (r.post === null ? [] : [r.post])), comments: rows.flatMap((r) => (r.comment === null ? [] : [r.comment])) };
  }
}
