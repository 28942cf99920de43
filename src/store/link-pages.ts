// The /api/v3 listings: which posts (post/list) and comments (comment/list) a viewer sees, in Lemmy 0.19's orders,
// one statement per page. Everything goes through the house's visibility rules (store/visibility.ts): the readable
// rule, blocks, mutes and domain blocks (the viewer's and the operator's, through suspension and silence), and
// remote-history confinement (`statuses.history` rows are never listed). Each post order walks one of migration
// 070's indexes; the page after a cursor starts strictly past the cursor's sort keys (keyset paging), so posts that
// arrive meanwhile neither repeat nor shift the next page.
import type { Database } from './db.js';
import { authorNotSuspended, notBlockedBy, notSilenced, publicFeedable, readableRow } from './visibility.js';

export const POST_SORTS = [
  'Active',
  'Hot',
  'New',
  'Old',
  'TopDay',
  'TopWeek',
  'TopMonth',
  'TopYear',
  'TopAll',
  'MostComments',
  'NewComments',
  'TopHour',
  'TopSixHour',
  'TopTwelveHour',
  'TopThreeMonths',
  'TopSixMonths',
  'TopNineMonths',
  'Controversial',
  'Scaled',
] as const;
export type PostSort = (typeof POST_SORTS)[number];

export const COMMENT_SORTS = ['Hot', 'Top', 'New', 'Old', 'Controversial'] as const;
export type CommentSort = (typeof COMMENT_SORTS)[number];

export const LISTING_TYPES = ['All', 'Local', 'Subscribed', 'ModeratorView'] as const;
export type ListingType = (typeof LISTING_TYPES)[number];

/** A sort key: its SQL expression and the type its text form is read back as (a cursor). */
type Key = readonly [expr: string, type: 'float8' | 'timestamptz' | 'int' | 'bigint'];

const PUBLISHED: Key = ['p.published', 'timestamptz'];
const ID: Key = ['p.id', 'bigint'];
// Lemmy 0.19's controversy_rank: votes both ways, weighed by how evenly they split.
const CONTROVERSY = (a: string) =>
  `(CASE WHEN ${a}.upvotes <= 0 OR ${a}.downvotes <= 0 THEN 0::float8 ELSE (${a}.upvotes + ${a}.downvotes)::float8 *
    (CASE WHEN ${a}.upvotes > ${a}.downvotes THEN ${a}.downvotes::float8 / ${a}.upvotes ELSE ${a}.upvotes::float8 / ${a}.downvotes END) END)`;

/** Lemmy's Top windows. */
const TOP_WINDOW: Partial<Record<PostSort, string>> = {
  TopHour: '1 hour',
  TopSixHour: '6 hours',
  TopTwelveHour: '12 hours',
  TopDay: '1 day',
  TopWeek: '1 week',
  TopMonth: '1 month',
  TopThreeMonths: '3 months',
  TopSixMonths: '6 months',
  TopNineMonths: '9 months',
  TopYear: '1 year',
};

/** Each sort's keys, all in one direction (so a row comparison pages it), and whether that direction is ascending. */
function postOrder(sort: PostSort): { keys: readonly Key[]; asc: boolean } {
  switch (sort) {
    case 'New':
      return { keys: [PUBLISHED, ID], asc: false };
    case 'Old':
      return { keys: [PUBLISHED, ID], asc: true };
    case 'Hot':
    case 'Scaled':
      return { keys: [['p.hot_rank', 'float8'], PUBLISHED, ID], asc: false };
    case 'Active':
      return { keys: [['p.hot_rank_active', 'float8'], PUBLISHED, ID], asc: false };
    case 'MostComments':
      return { keys: [['p.comments', 'int'], PUBLISHED, ID], asc: false };
    case 'NewComments':
      return { keys: [['p.newest_comment_time', 'timestamptz'], ID], asc: false };
    case 'Controversial':
      return { keys: [[CONTROVERSY('p'), 'float8'], PUBLISHED, ID], asc: false };
    default:
      // TopAll and the windowed Tops
      return { keys: [['p.score', 'int'], PUBLISHED, ID], asc: false };
  }
}

export interface PostPageQuery {
  /** The member reading, or null. */
  readonly viewer: string | null;
  readonly listing: ListingType;
  readonly communityId: number | null;
  readonly sort: PostSort;
  readonly savedOnly: boolean;
  readonly likedOnly: boolean;
  readonly dislikedOnly: boolean;
  readonly showNsfw: boolean;
  readonly limit: number;
  /** Rows skipped (page paging); 0 with a cursor. */
  readonly offset: number;
  /** The sort keys of the last post of the previous page (as text, the id last), from its next_page. */
  readonly after: readonly string[] | null;
}

export interface PostPage {
  readonly ids: number[];
  /** The sort keys of the page's last post when more follow, for the next page's cursor. */
  readonly next: readonly string[] | null;
}

/** Binds values as $1, $2 … in the order they are met. */
class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/**
 * The rules for a post's status `s` and its community's Group account `group`, as the viewer sees them: the one
 * composition every list of posts (feeds, search, a person's page, saved) reads through.
 */
export function postVisible(viewer: string | null, inFeeds: boolean, s = 's', group = 'c.account_id'): string[] {
  const where = [`NOT ${s}.history`, readableRow(viewer, s)];
  // A suspended or deleted community takes its posts with it (as a suspended author does).
  where.push(`NOT EXISTS (SELECT 1 FROM accounts ga WHERE ga.id = ${group} AND (ga.suspended_at IS NOT NULL OR ga.deleted_at IS NOT NULL))`);
  // An unlisted post (Mastodon's: kept out of public timelines) is in no feed but the Subscribed one.
  if (inFeeds) where.push(`${s}.visibility = 0`, publicFeedable(s));
  if (viewer !== null) where.push(notSilenced(viewer, `${s}.account_id`), notSilenced(viewer, group));
  return where;
}

/**
 * A comment's status `s` under the same rules, and its post's status `ps` too (a comment under a deleted or hidden
 * post is not listed), the community's Group being `group`.
 */
export function commentVisible(viewer: string | null, s = 's', ps = 'ps', group = 'c.account_id'): string[] {
  return [...new Set([...postVisible(viewer, false, s, group), ...postVisible(viewer, false, ps, group)])];
}

export class LinkPageStore {
  constructor(private readonly db: Database) {}

  /** The types of a post cursor's keys for this sort, in order. */
  static postKeyTypes(sort: PostSort): readonly Key[1][] {
    return postOrder(sort).keys.map(([, type]) => type);
  }

  async posts(q: PostPageQuery): Promise<PostPage> {
    const ps = new Params();
    const viewer = q.viewer === null ? null : `${ps.add(q.viewer)}::bigint`;
    // A member's followed communities are feeds they chose: Mastodon's silence (public feeds only) does not apply.
    const where = postVisible(viewer, q.listing !== 'Subscribed');
    if (q.listing === 'Local') where.push('s.local');
    if (q.listing === 'Subscribed' && viewer !== null) {
      where.push(`c.account_id IN (SELECT f.target_account_id FROM follows f WHERE f.account_id = ${viewer}
        UNION ALL SELECT fr.target_account_id FROM follow_requests fr WHERE fr.account_id = ${viewer})`);
    }
    if (q.listing === 'ModeratorView' && viewer !== null) {
      where.push(`EXISTS (SELECT 1 FROM lemmy_community_moderators mv WHERE mv.community_id = p.community_id AND mv.account_id = ${viewer})`);
    }
    if (q.communityId !== null) where.push(`p.community_id = ${ps.add(q.communityId)}`);
    if (viewer !== null && q.savedOnly) where.push(`EXISTS (SELECT 1 FROM bookmarks sb WHERE sb.account_id = ${viewer} AND sb.status_id = s.id)`);
    if (viewer !== null && (q.likedOnly || q.dislikedOnly)) {
      const score = q.likedOnly ? 1 : -1;
      where.push(`EXISTS (SELECT 1 FROM lemmy_votes lv WHERE lv.account_id = ${viewer} AND lv.status_id = s.id AND lv.score = ${score})`);
    }
    if (!q.showNsfw) where.push('NOT p.nsfw AND NOT s.sensitive AND NOT c.nsfw');
    const window = TOP_WINDOW[q.sort];
    if (window) where.push(`p.published > now() - interval '${window}'`);
    const { keys, asc } = postOrder(q.sort);
    if (q.after) {
      const tuple = keys.map(([, type], i) => `${ps.add(q.after![i])}::${type}`).join(', ');
      where.push(`(${keys.map(([e]) => e).join(', ')}) ${asc ? '>' : '<'} (${tuple})`);
    }
    const dir = asc ? 'ASC' : 'DESC';
    const rows = await this.db.rows<{ id: number; keys: string[] }>(
      `SELECT p.id::int AS id, ARRAY[${keys.map(([e]) => `(${e})::text`).join(', ')}] AS keys
       FROM lemmy_posts p JOIN statuses s ON s.id = p.status_id JOIN lemmy_communities c ON c.id = p.community_id
       WHERE ${where.join('\n AND ')}
       ORDER BY ${keys.map(([e]) => `${e} ${dir}`).join(', ')}
       LIMIT ${ps.add(q.limit + 1)} OFFSET ${ps.add(q.offset)}`,
      ps.values,
      'prepared',
    );
    const more = rows.length > q.limit;
    const page = more ? rows.slice(0, q.limit) : rows;
    return { ids: page.map((r) => r.id), next: more ? page[page.length - 1]!.keys : null };
  }

  /**
   * A post the viewer may open by id (GET post): readable and not silenced for them, its community not suspended.
   * A remote-history post is readable by id, as its status is (store/visibility.ts listable).
   */
  async postVisible(postId: number, viewer: string | null): Promise<boolean> {
    const ps = new Params();
    const v = viewer === null ? null : `${ps.add(viewer)}::bigint`;
    const where = postVisible(v, false).filter((w) => w !== 'NOT s.history');
    const row = await this.db.one(
      `SELECT 1 FROM lemmy_posts p JOIN statuses s ON s.id = p.status_id JOIN lemmy_communities c ON c.id = p.community_id
       WHERE p.id = ${ps.add(postId)} AND ${where.join(' AND ')}`,
      ps.values,
      'prepared',
    );
    return row !== undefined;
  }

  /** The other visible posts linking the same URL (Lemmy's cross posts), newest first. */
  async crossPosts(postId: number, viewer: string | null, limit = 20): Promise<number[]> {
    const ps = new Params();
    const v = viewer === null ? null : `${ps.add(viewer)}::bigint`;
    const where = postVisible(v, true);
    const id = ps.add(postId);
    const rows = await this.db.rows<{ id: number }>(
      `SELECT p.id::int AS id FROM lemmy_posts o JOIN lemmy_posts p ON p.url = o.url AND p.id <> o.id
       JOIN statuses s ON s.id = p.status_id JOIN lemmy_communities c ON c.id = p.community_id
       WHERE o.id = ${id} AND o.url IS NOT NULL AND p.url IS NOT NULL AND ${where.join(' AND ')}
       ORDER BY p.published DESC, p.id DESC LIMIT ${ps.add(limit)}`,
      ps.values,
      'prepared',
    );
    return rows.map((r) => r.id);
  }

  /** A page of comments (see CommentPageQuery). */
  async comments(q: CommentPageQuery): Promise<number[]> {
    const ps = new Params();
    const viewer = q.viewer === null ? null : `${ps.add(q.viewer)}::bigint`;
    // A deleted comment stays as a placeholder (its replies hang from it), unless its author is hidden from the viewer.
    const where = [
      'NOT s.history',
      `(${readableRow(viewer, 's')} OR (s.deleted_at IS NOT NULL AND ${authorNotSuspended('s')}${viewer === null ? '' : ` AND ${notBlockedBy(viewer, 's.account_id')}`}))`,
      readableRow(viewer, 'ps'),
      'NOT ps.history',
      'NOT EXISTS (SELECT 1 FROM accounts ga WHERE ga.id = c.account_id AND (ga.suspended_at IS NOT NULL OR ga.deleted_at IS NOT NULL))',
    ];
    if (viewer !== null) where.push(notSilenced(viewer, 's.account_id'), notSilenced(viewer, 'ps.account_id'), notSilenced(viewer, 'c.account_id'));
    if (q.listing === 'Local') where.push('s.local');
    if (q.listing === 'Subscribed' && viewer !== null) {
      where.push(`c.account_id IN (SELECT f.target_account_id FROM follows f WHERE f.account_id = ${viewer}
        UNION ALL SELECT fr.target_account_id FROM follow_requests fr WHERE fr.account_id = ${viewer})`);
    }
    // Comments across posts are a public feed: the operator's silence applies (within a thread, as in Mastodon, not).
    if (q.postId === null && q.parentPath === null && q.listing !== 'Subscribed') where.push(publicFeedable('s'));
    if (q.postId !== null) where.push(`cm.post_id = ${ps.add(q.postId)}`);
    if (q.communityId !== null) where.push(`p.community_id = ${ps.add(q.communityId)}`);
    if (q.parentPath !== null) {
      const parent = ps.add(q.parentPath);
      where.push(`(cm.path = ${parent} OR cm.path LIKE ${parent} || '.%')`);
    }
    if (q.maxDepth !== null) {
      // Lemmy's nlevel(path) ≤ the parent's levels + max_depth ('0' counts as a level).
      const levels = (q.parentPath === null ? 1 : q.parentPath.split('.').length) + q.maxDepth;
      where.push(`length(cm.path) - length(replace(cm.path, '.', '')) + 1 <= ${ps.add(levels)}`);
    }
    if (viewer !== null && q.savedOnly) where.push(`EXISTS (SELECT 1 FROM bookmarks sb WHERE sb.account_id = ${viewer} AND sb.status_id = s.id)`);
    if (viewer !== null && (q.likedOnly || q.dislikedOnly)) {
      where.push(`EXISTS (SELECT 1 FROM lemmy_votes lv WHERE lv.account_id = ${viewer} AND lv.status_id = s.id AND lv.score = ${q.likedOnly ? 1 : -1})`);
    }
    const order: string[] = [];
    // A thread's tree: each comment's siblings together, parents' groups first (Lemmy: subpath(path, 0, -1); text
    // order in the C collation is ltree's for numeric labels, '.' sorting before every digit).
    if (q.maxDepth !== null && (q.postId !== null || q.parentPath !== null)) order.push(`regexp_replace(cm.path, '\\.[0-9]+$', '') COLLATE "C"`);
    order.push(...COMMENT_ORDER[q.sort]);
    const rows = await this.db.rows<{ id: number }>(
      `SELECT cm.id::int AS id
       FROM lemmy_comments cm JOIN statuses s ON s.id = cm.status_id JOIN lemmy_posts p ON p.id = cm.post_id
       JOIN statuses ps ON ps.id = p.status_id JOIN lemmy_communities c ON c.id = p.community_id
       WHERE ${where.join('\n AND ')}
       ORDER BY ${order.join(', ')}
       LIMIT ${ps.add(q.limit)} OFFSET ${ps.add(q.offset)}`,
      ps.values,
      'prepared',
    );
    return rows.map((r) => r.id);
  }
}

/** Lemmy 0.19's comment orders, with the id last so equal keys keep one order. */
const COMMENT_ORDER: Record<CommentSort, readonly string[]> = {
  Hot: ['cm.hot_rank DESC', 'cm.score DESC', 'cm.id DESC'],
  Top: ['cm.score DESC', 'cm.id DESC'],
  New: ['cm.published DESC', 'cm.id DESC'],
  Old: ['cm.published ASC', 'cm.id ASC'],
  Controversial: [`${CONTROVERSY('cm')} DESC`, 'cm.id DESC'],
};

export interface CommentPageQuery {
  readonly viewer: string | null;
  readonly listing: ListingType;
  readonly postId: number | null;
  readonly communityId: number | null;
  /** The parent comment's path: it and the comments under it. */
  readonly parentPath: string | null;
  /** Levels below the parent (or below the post) to include. */
  readonly maxDepth: number | null;
  readonly sort: CommentSort;
  readonly savedOnly: boolean;
  readonly likedOnly: boolean;
  readonly dislikedOnly: boolean;
  readonly limit: number;
  readonly offset: number;
}
