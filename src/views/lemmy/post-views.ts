// Lemmy 0.19's Post and PostView (lemmy-js-client's dist/types) for a page of posts: the posts, their creators and
// communities each read in one batch, whatever the page's length.
import type { LinkRowStore, PostRow } from '../../store/link-rows.js';
import { type LemmyAddresses, type LemmyCommunity, LemmyObjects, type LemmyPerson, type LemmySubscribed } from './objects.js';

export interface LemmyPost {
  id: number;
  name: string;
  url?: string;
  body?: string;
  creator_id: number;
  community_id: number;
  removed: boolean;
  locked: boolean;
  published: string;
  updated?: string;
  deleted: boolean;
  nsfw: boolean;
  ap_id: string;
  local: boolean;
  language_id: number;
  featured_community: boolean;
  featured_local: boolean;
}

export interface LemmyPostView {
  post: LemmyPost;
  creator: LemmyPerson;
  community: LemmyCommunity;
  creator_banned_from_community: boolean;
  banned_from_community: boolean;
  creator_is_moderator: boolean;
  creator_is_admin: boolean;
  counts: {
    post_id: number;
    comments: number;
    score: number;
    upvotes: number;
    downvotes: number;
    published: string;
    newest_comment_time: string;
  };
  subscribed: LemmySubscribed;
  saved: boolean;
  read: boolean;
  hidden: boolean;
  creator_blocked: boolean;
  my_vote?: number;
  unread_comments: number;
}

/** A status's ActivityPub id: a remote one's own, a local one's address here. */
export function apIdOf(at: LemmyAddresses, r: { uri: string | null; creatorUsername: string; statusId: string }): string {
  return r.uri ?? at.uris.status(r.creatorUsername, r.statusId);
}

/** The Post object of a row; a deleted post keeps its title (as Lemmy) but loses its body and link. */
export function lemmyPost(at: LemmyAddresses, r: PostRow, creatorId: number): LemmyPost {
  const post: LemmyPost = {
    id: r.id,
    name: r.name,
    creator_id: creatorId,
    community_id: r.communityId,
    removed: false,
    locked: r.locked,
    published: r.published,
    deleted: r.deleted,
    nsfw: r.nsfw,
    ap_id: apIdOf(at, r),
    local: r.local,
    language_id: 0,
    featured_community: r.featuredCommunity,
    featured_local: false,
  };
  if (r.url && !r.deleted) post.url = r.url;
  if (r.body && !r.deleted) post.body = r.body;
  if (r.updated) post.updated = r.updated;
  return post;
}

export class PostViews {
  readonly objects: LemmyObjects;

  constructor(rows: LinkRowStore, at: LemmyAddresses) {
    this.objects = new LemmyObjects(rows, at);
  }

  /** PostViews of the posts, in the order given; ids of posts that no longer exist are left out. */
  async render(ids: readonly number[], viewer: string | null): Promise<LemmyPostView[]> {
    const rows = await this.objects.rows.posts(ids, viewer);
    return this.renderRows(rows, viewer);
  }

  /** PostViews of rows already read (rows.posts). */
  async renderRows(rows: readonly PostRow[], viewer: string | null): Promise<LemmyPostView[]> {
    if (rows.length === 0) return [];
    const [people, communities] = await Promise.all([
      this.objects.people(
        rows.map((r) => r.creatorAccountId),
        viewer,
      ),
      this.objects.communities(
        rows.map((r) => r.communityId),
        viewer,
      ),
    ]);
    return rows.flatMap((r) => {
      const creator = people.get(r.creatorAccountId);
      const community = communities.get(r.communityId);
      if (!creator || !community) return [];
      const view: LemmyPostView = {
        post: lemmyPost(this.objects.at, r, creator.person.id),
        creator: creator.person,
        community: community.community,
        creator_banned_from_community: false,
        banned_from_community: false,
        creator_is_moderator: r.creatorIsModerator,
        creator_is_admin: creator.admin,
        counts: {
          post_id: r.id,
          comments: r.comments,
          score: r.score,
          upvotes: r.upvotes,
          downvotes: r.downvotes,
          published: r.published,
          newest_comment_time: r.newestCommentTime,
        },
        subscribed: community.subscribed,
        saved: r.saved,
        read: false,
        hidden: false,
        creator_blocked: creator.blocked,
        unread_comments: r.comments,
      };
      // Lemmy sends my_vote only when the viewer has voted (a left join's null is left out).
      if (r.myVote !== null) view.my_vote = r.myVote;
      return [view];
    });
  }
}
