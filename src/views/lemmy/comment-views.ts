// Lemmy 0.19's Comment and CommentView (lemmy-js-client's dist/types) for a page of comments: the comments, their
// posts, creators and communities each read in one batch. A deleted comment stays in its tree (its children hang
// from it) with `deleted: true` and empty content, as Lemmy sends it.
import type { CommentRow, LinkRowStore } from '../../store/link-rows.js';
import type { LemmyAddresses, LemmyCommunity, LemmyPerson, LemmySubscribed } from './objects.js';
import { apIdOf, type LemmyPost, lemmyPost, type PostViews } from './post-views.js';

export interface LemmyComment {
  id: number;
  creator_id: number;
  post_id: number;
  content: string;
  removed: boolean;
  published: string;
  updated?: string;
  deleted: boolean;
  ap_id: string;
  local: boolean;
  path: string;
  distinguished: boolean;
  language_id: number;
}

export interface LemmyCommentView {
  comment: LemmyComment;
  creator: LemmyPerson;
  post: LemmyPost;
  community: LemmyCommunity;
  counts: {
    comment_id: number;
    score: number;
    upvotes: number;
    downvotes: number;
    published: string;
    child_count: number;
  };
  creator_banned_from_community: boolean;
  banned_from_community: boolean;
  creator_is_moderator: boolean;
  creator_is_admin: boolean;
  subscribed: LemmySubscribed;
  saved: boolean;
  creator_blocked: boolean;
  my_vote?: number;
}

export function lemmyComment(at: LemmyAddresses, r: CommentRow, creatorId: number): LemmyComment {
  const comment: LemmyComment = {
    id: r.id,
    creator_id: creatorId,
    post_id: r.postId,
    content: r.deleted ? '' : r.body,
    removed: false,
    published: r.published,
    deleted: r.deleted,
    ap_id: apIdOf(at, r),
    local: r.local,
    path: r.path,
    distinguished: false,
    language_id: 0,
  };
  if (r.updated) comment.updated = r.updated;
  return comment;
}

export class CommentViews {
  constructor(
    private readonly rows: LinkRowStore,
    private readonly posts: PostViews,
  ) {}

  /** CommentViews of the comments, in the order given; ids of comments that no longer exist are left out. */
  async render(ids: readonly number[], viewer: string | null): Promise<LemmyCommentView[]> {
    const rows = await this.rows.comments(ids, viewer);
    if (rows.length === 0) return [];
    const objects = this.posts.objects;
    const posts = await this.rows.posts([...new Set(rows.map((r) => r.postId))], viewer);
    const [people, communities] = await Promise.all([
      objects.people([...rows.map((r) => r.creatorAccountId), ...posts.map((p) => p.creatorAccountId)], viewer),
      objects.communities(
        posts.map((p) => p.communityId),
        viewer,
      ),
    ]);
    const postById = new Map(posts.map((p) => [p.id, p]));
    return rows.flatMap((r) => {
      const creator = people.get(r.creatorAccountId);
      const postRow = postById.get(r.postId);
      const postCreator = postRow && people.get(postRow.creatorAccountId);
      const community = postRow && communities.get(postRow.communityId);
      if (!creator || !postRow || !postCreator || !community) return [];
      const view: LemmyCommentView = {
        comment: lemmyComment(objects.at, r, creator.person.id),
        creator: creator.person,
        post: lemmyPost(objects.at, postRow, postCreator.person.id),
        community: community.community,
        counts: {
          comment_id: r.id,
          score: r.score,
          upvotes: r.upvotes,
          downvotes: r.downvotes,
          published: r.published,
          child_count: r.childCount,
        },
        creator_banned_from_community: false,
        banned_from_community: false,
        creator_is_moderator: r.creatorIsModerator,
        creator_is_admin: creator.admin,
        subscribed: community.subscribed,
        saved: r.saved,
        creator_blocked: creator.blocked,
      };
      if (r.myVote !== null) view.my_vote = r.myVote;
      return [view];
    });
  }
}
