// Lemmy 0.19's comment endpoints under /api/v3 (comment/list as a tree in Lemmy's path order, and a member's
// comment, edit, delete, vote and save), as lemmy-js-client 0.19.9 calls them. Reads go through the house's
// visibility rules (store/link-pages.ts); writes through CommunityActions; answers are CommentViews for the caller.
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { json } from '../../http/respond.js';
import { type MemberPrincipal, type Reply, type Route, route } from '../../http/types.js';
import type { CommunityActions } from '../../services/community-actions.js';
import type { AccountStore } from '../../store/accounts.js';
import { COMMENT_SORTS, LISTING_TYPES, type LinkPageStore } from '../../store/link-pages.js';
import type { LinkAggregatorStore } from '../../store/link-aggregator.js';
import type { LinkRowStore } from '../../store/link-rows.js';
import type { CommentViews, LemmyCommentView } from '../../views/lemmy/comment-views.js';
import { memberAccount, viewerOf } from '../callers.js';
import { DEFAULT_LIMIT, lemmyBool, lemmyId, lemmyInt, lemmyText, namedCommunity, offsetOf, PAGING, parseWith, READ, signedIn, WRITE } from './params.js';
import { voteOf } from './posts.js';

export interface LemmyCommentDeps {
  readonly accounts: AccountStore;
  readonly links: LinkAggregatorStore;
  readonly pages: LinkPageStore;
  readonly rows: LinkRowStore;
  readonly views: CommentViews;
  readonly communities: CommunityActions;
}

/** How many comments a tree fetch (max_depth given) returns at most: Lemmy 0.19 ignores page and limit there. */
export const TREE_LIMIT = 300;

const GetComments = z.object({
  type_: z.enum(LISTING_TYPES).optional(),
  sort: z.enum(COMMENT_SORTS).optional(),
  max_depth: lemmyInt(1, 1000).optional(),
  ...PAGING,
  community_id: lemmyId.optional(),
  community_name: lemmyText(300).optional(),
  post_id: lemmyId.optional(),
  parent_id: lemmyId.optional(),
  saved_only: lemmyBool.optional(),
  liked_only: lemmyBool.optional(),
  disliked_only: lemmyBool.optional(),
});

// Lemmy's comment length limit (10,000 characters), never empty.
const content = lemmyText(10_000).refine((s) => s.trim().length > 0);
const CreateComment = z.object({ content, post_id: lemmyId, parent_id: lemmyId.optional() });
const EditComment = z.object({ comment_id: lemmyId, content: content.optional() });
const DeleteComment = z.object({ comment_id: lemmyId, deleted: z.boolean() });
const CommentLike = z.object({ comment_id: lemmyId, score: z.number() });
const SaveComment = z.object({ comment_id: lemmyId, save: z.boolean() });

export function lemmyCommentRoutes(d: LemmyCommentDeps): Route[] {
  /** The comment (with its post) as the viewer sees it, or Lemmy's 404. */
  const visibleComment = async (commentId: number, viewer: string | null) => {
    const c = await d.links.commentById(commentId);
    if (!c || !(await d.pages.postVisible(c.postId, viewer))) throw Errors.lemmy(404, 'couldnt_find_comment');
    const seen = await d.pages.comments({ ...ONE, viewer, postId: c.postId, parentPath: c.path, maxDepth: 0 });
    if (!seen.includes(commentId)) throw Errors.lemmy(404, 'couldnt_find_comment');
    return c;
  };
  const commentView = async (commentId: number, viewer: string): Promise<LemmyCommentView> => {
    const [view] = await d.views.render([commentId], viewer);
    if (!view) throw Errors.lemmy(404, 'couldnt_find_comment');
    return view;
  };
  const answer = async (commentId: number, viewer: string): Promise<Reply> =>
    json(200, { comment_view: await commentView(commentId, viewer), recipient_ids: [] });
  /** A member's action on a comment they may see, answered with the CommentView after it. */
  const onComment =
    <S extends z.ZodType<{ comment_id: number }>>(schema: S, act: (who: MemberPrincipal, b: z.output<S>) => Promise<void>) =>
    async (req: { fields: unknown }, caller: MemberPrincipal | null): Promise<Reply> => {
      const who = signedIn(caller);
      const b = parseWith(schema, req.fields, 'invalid_body_field');
      const me = who.record.user.accountId;
      await visibleComment(b.comment_id, me);
      await act(who, b);
      return answer(b.comment_id, me);
    };

  return [
    route({
      method: 'GET',
      path: '/api/v3/comment/list',
      auth: READ,
      handler: async (req, who) => {
        const q = parseWith(GetComments, req.query, 'invalid_query');
        const viewer = viewerOf(who);
        const listing = q.type_ ?? 'All';
        if (viewer === null && (listing === 'Subscribed' || listing === 'ModeratorView' || q.saved_only || q.liked_only || q.disliked_only)) {
          throw Errors.lemmy(401, 'not_logged_in');
        }
        let postId = q.post_id ?? null;
        let parentPath: string | null = null;
        if (q.parent_id !== undefined) {
          const parent = await d.links.commentById(q.parent_id);
          if (!parent) throw Errors.lemmy(404, 'couldnt_find_comment');
          postId = parent.postId;
          parentPath = parent.path;
        }
        if (postId !== null && !(await d.pages.postVisible(postId, viewer))) throw Errors.lemmy(404, 'couldnt_find_post');
        const tree = q.max_depth !== undefined;
        const limit = tree ? TREE_LIMIT : (q.limit ?? DEFAULT_LIMIT);
        const ids = await d.pages.comments({
          viewer,
          listing,
          postId,
          communityId: await namedCommunity(d.rows, q),
          parentPath,
          maxDepth: q.max_depth ?? null,
          sort: q.sort ?? 'Hot',
          savedOnly: q.saved_only === true,
          likedOnly: q.liked_only === true,
          dislikedOnly: q.disliked_only === true,
          limit,
          offset: tree ? 0 : offsetOf(q.page, limit),
        });
        return json(200, { comments: await d.views.render(ids, viewer) });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v3/comment',
      auth: WRITE,
      body: true,
      handler: async (req, caller) => {
        const who = signedIn(caller);
        const b = parseWith(CreateComment, req.fields, 'invalid_body_field');
        const me = await memberAccount(d.accounts, who);
        if (!(await d.pages.postVisible(b.post_id, me.id))) throw Errors.lemmy(404, 'couldnt_find_post');
        if (b.parent_id !== undefined) {
          const parent = await visibleComment(b.parent_id, me.id);
          if (parent.postId !== b.post_id) throw Errors.lemmy(400, 'couldnt_create_comment');
        }
        const c = await d.communities.createComment(me, {
          postId: b.post_id,
          parentId: b.parent_id ?? null,
          content: b.content,
          applicationId: who.record.appId,
        });
        return answer(c.id, me.id);
      },
    }),
    route({
      method: 'PUT',
      path: '/api/v3/comment',
      auth: WRITE,
      body: true,
      handler: onComment(EditComment, async (who, b) => {
        if (b.content !== undefined) await d.communities.editComment(await memberAccount(d.accounts, who), b.comment_id, b.content);
      }),
    }),
    route({
      method: 'POST',
      path: '/api/v3/comment/delete',
      auth: WRITE,
      body: true,
      handler: onComment(DeleteComment, async (who, b) => {
        // Restoring a deleted comment is not offered by the community service (a Delete is final here).
        if (!b.deleted) throw Errors.lemmy(400, 'couldnt_update_comment');
        await d.communities.deleteComment(await memberAccount(d.accounts, who), b.comment_id);
      }),
    }),
    route({
      method: 'POST',
      path: '/api/v3/comment/like',
      auth: WRITE,
      body: true,
      handler: onComment(CommentLike, async (who, b) => {
        const score = voteOf(b.score);
        await d.communities.vote(await memberAccount(d.accounts, who), { commentId: b.comment_id }, score);
      }),
    }),
    route({
      method: 'PUT',
      path: '/api/v3/comment/save',
      auth: WRITE,
      body: true,
      handler: onComment(SaveComment, async (who, b) => {
        await d.communities.save(await memberAccount(d.accounts, who), { commentId: b.comment_id }, b.save);
      }),
    }),
  ];
}

/** The rest of a one-comment probe: the comment itself (its own path, no levels below), as any listing reads it. */
const ONE = {
  listing: 'All',
  communityId: null,
  sort: 'New',
  savedOnly: false,
  likedOnly: false,
  dislikedOnly: false,
  limit: 1,
  offset: 0,
} as const;
