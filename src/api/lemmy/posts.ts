// Lemmy 0.19's post endpoints under /api/v3 (post/list, post, and a member's post, edit, delete, vote and save), as
// lemmy-js-client 0.19.9 calls them. Reads go through the house's visibility rules (store/link-pages.ts); writes go
// through CommunityActions, which stores and federates them; every answer is a PostView rendered for the caller.
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { json } from '../../http/respond.js';
import { type MemberPrincipal, type Reply, type Route, route } from '../../http/types.js';
import type { CommunityActions } from '../../services/community-actions.js';
import type { AccountStore } from '../../store/accounts.js';
import { LISTING_TYPES, type LinkPageStore, POST_SORTS } from '../../store/link-pages.js';
import type { LinkAggregatorStore } from '../../store/link-aggregator.js';
import type { LinkRowStore } from '../../store/link-rows.js';
import type { LemmyPostView, PostViews } from '../../views/lemmy/post-views.js';
import { memberAccount, viewerOf } from '../callers.js';
import { DEFAULT_LIMIT, lemmyBool, lemmyId, lemmyText, namedCommunity, offsetOf, PAGING, parseWith, READ, signedIn, WRITE } from './params.js';
import { decodePostCursor, encodePostCursor } from './post-cursor.js';

export interface LemmyPostDeps {
  readonly accounts: AccountStore;
  readonly links: LinkAggregatorStore;
  readonly pages: LinkPageStore;
  readonly rows: LinkRowStore;
  readonly views: PostViews;
  readonly communities: CommunityActions;
}

const GetPosts = z.object({
  type_: z.enum(LISTING_TYPES).optional(),
  sort: z.enum(POST_SORTS).optional(),
  ...PAGING,
  community_id: lemmyId.optional(),
  community_name: lemmyText(300).optional(),
  saved_only: lemmyBool.optional(),
  liked_only: lemmyBool.optional(),
  disliked_only: lemmyBool.optional(),
  show_hidden: lemmyBool.optional(),
  show_read: lemmyBool.optional(),
  show_nsfw: lemmyBool.optional(),
  page_cursor: z.string().max(400).optional(),
});

const GetPost = z.object({ id: lemmyId.optional(), comment_id: lemmyId.optional() });

// Lemmy's limits: a title of 1 to 200 characters, a link of at most 2000, a body of at most 10,000.
const title = z
  .string()
  .refine((s) => !s.includes('\u0000'))
  .transform((s) => s.trim())
  .pipe(z.string().min(1).max(200));
const link = lemmyText(2000);
const body = lemmyText(10_000);

const CreatePost = z.object({
  name: z.unknown(),
  community_id: lemmyId,
  url: link.optional(),
  body: body.optional(),
  nsfw: z.boolean().optional(),
  honeypot: z.string().optional(),
});
const EditPost = z.object({ post_id: lemmyId, name: z.unknown().optional(), url: link.optional(), body: body.optional(), nsfw: z.boolean().optional() });
const DeletePost = z.object({ post_id: lemmyId, deleted: z.boolean() });
const PostLike = z.object({ post_id: lemmyId, score: z.number() });
const SavePost = z.object({ post_id: lemmyId, save: z.boolean() });

/** A post's title, as Lemmy checks it (invalid_post_title). */
function titleOf(v: unknown): string {
  const p = title.safeParse(v);
  if (!p.success) throw Errors.lemmy(400, 'invalid_post_title');
  return p.data;
}

/** A link: an http(s) URL (invalid_url), or '' for none. */
function linkOf(v: string | undefined): string | null | undefined {
  if (v === undefined) return undefined;
  if (v.trim() === '') return null;
  let u: URL;
  try {
    u = new URL(v.trim());
  } catch {
    throw Errors.lemmy(400, 'invalid_url');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw Errors.lemmy(400, 'invalid_url_scheme');
  return u.href;
}

/** Lemmy's vote values: 1, 0 (none) or -1. */
export function voteOf(score: number): -1 | 0 | 1 {
  if (score !== 1 && score !== 0 && score !== -1) throw Errors.lemmy(400, 'invalid_vote_value');
  return score;
}

export function lemmyPostRoutes(d: LemmyPostDeps): Route[] {
  /** The post as the viewer sees it, or Lemmy's 404. */
  const visiblePost = async (postId: number, viewer: string | null): Promise<number> => {
    if (!(await d.pages.postVisible(postId, viewer))) throw Errors.lemmy(404, 'couldnt_find_post');
    return postId;
  };
  const postView = async (postId: number, viewer: string | null): Promise<LemmyPostView> => {
    const [view] = await d.views.render([postId], viewer);
    if (!view) throw Errors.lemmy(404, 'couldnt_find_post');
    return view;
  };
  /** A member's action on a post they may see, answered with the PostView after it. */
  const onPost =
    <S extends z.ZodType<{ post_id: number }>>(schema: S, act: (who: MemberPrincipal, b: z.output<S>) => Promise<void>) =>
    async (req: { fields: unknown }, caller: MemberPrincipal | null): Promise<Reply> => {
      const who = signedIn(caller);
      const b = parseWith(schema, req.fields, 'invalid_body_field');
      const me = who.record.user.accountId;
      await visiblePost(b.post_id, me);
      await act(who, b);
      return json(200, { post_view: await postView(b.post_id, me) });
    };

  return [
    route({
      method: 'GET',
      path: '/api/v3/post/list',
      auth: READ,
      handler: async (req, who) => {
        const q = parseWith(GetPosts, req.query, 'invalid_query');
        const viewer = viewerOf(who);
        const listing = q.type_ ?? 'All';
        if (viewer === null && (listing === 'Subscribed' || listing === 'ModeratorView' || q.saved_only || q.liked_only || q.disliked_only)) {
          throw Errors.lemmy(401, 'not_logged_in');
        }
        const sort = q.sort ?? 'Active';
        const limit = q.limit ?? DEFAULT_LIMIT;
        const after = q.page_cursor === undefined ? null : decodePostCursor(sort, q.page_cursor);
        const page = await d.pages.posts({
          viewer,
          listing,
          communityId: await namedCommunity(d.rows, q),
          sort,
          savedOnly: q.saved_only === true,
          likedOnly: q.liked_only === true,
          dislikedOnly: q.disliked_only === true,
          showNsfw: q.show_nsfw === true,
          limit,
          offset: after === null ? offsetOf(q.page, limit) : 0,
          after,
        });
        const posts = await d.views.render(page.ids, viewer);
        return json(200, page.next === null ? { posts } : { posts, next_page: encodePostCursor(sort, page.next) });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v3/post',
      auth: READ,
      handler: async (req, who) => {
        const q = parseWith(GetPost, req.query, 'invalid_query');
        const viewer = viewerOf(who);
        let postId = q.id;
        if (postId === undefined && q.comment_id !== undefined) postId = (await d.links.commentById(q.comment_id))?.postId;
        if (postId === undefined) throw Errors.lemmy(404, 'couldnt_find_post');
        const view = await postView(await visiblePost(postId, viewer), viewer);
        const communityId = view.community.id;
        const [communityViews, moderators, crossIds] = await Promise.all([
          d.views.objects.communityViews([communityId], viewer),
          d.views.objects.moderators(communityId, viewer),
          d.pages.crossPosts(postId, viewer),
        ]);
        return json(200, {
          post_view: view,
          community_view: communityViews.get(communityId)!,
          moderators,
          cross_posts: await d.views.render(crossIds, viewer),
        });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v3/post',
      auth: WRITE,
      body: true,
      handler: async (req, caller) => {
        const who = signedIn(caller);
        const b = parseWith(CreatePost, req.fields, 'invalid_body_field');
        if (b.honeypot) throw Errors.lemmy(400, 'honeypot_failed');
        const name = titleOf(b.name);
        const url = linkOf(b.url) ?? null;
        const me = await memberAccount(d.accounts, who);
        if ((await d.links.communityAccount(b.community_id)) === undefined) throw Errors.lemmy(404, 'couldnt_find_community');
        const post = await d.communities.createPost(me, {
          communityId: b.community_id,
          name,
          url,
          body: b.body ?? '',
          nsfw: b.nsfw ?? false,
          applicationId: who.record.appId,
        });
        return json(200, { post_view: await postView(post.id, me.id) });
      },
    }),
    route({
      method: 'PUT',
      path: '/api/v3/post',
      auth: WRITE,
      body: true,
      handler: onPost(EditPost, async (who, b) => {
        const me = await memberAccount(d.accounts, who);
        const url = linkOf(b.url);
        await d.communities.editPost(me, b.post_id, {
          ...(b.name === undefined ? {} : { name: titleOf(b.name) }),
          ...(url === undefined ? {} : { url }),
          ...(b.body === undefined ? {} : { body: b.body }),
          ...(b.nsfw === undefined ? {} : { nsfw: b.nsfw }),
        });
      }),
    }),
    route({
      method: 'POST',
      path: '/api/v3/post/delete',
      auth: WRITE,
      body: true,
      handler: async (req, caller) => {
        const who = signedIn(caller);
        const b = parseWith(DeletePost, req.fields, 'invalid_body_field');
        const me = await memberAccount(d.accounts, who);
        await visiblePost(b.post_id, me.id);
        // Restoring a deleted post is not offered by the community service (a Delete is final here).
        if (!b.deleted) throw Errors.lemmy(400, 'couldnt_update_post');
        // Read before: a post the service removes outright can no longer be rendered after.
        const before = await postView(b.post_id, me.id);
        await d.communities.deletePost(me, b.post_id);
        const [after] = await d.views.render([b.post_id], me.id);
        // Lemmy answers with the post marked deleted, its title kept, its body and link gone (as lemmyPost does).
        const { url: _url, body: _body, ...kept } = (after ?? before).post;
        return json(200, { post_view: { ...(after ?? before), post: { ...kept, deleted: true } } });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v3/post/like',
      auth: WRITE,
      body: true,
      handler: onPost(PostLike, async (who, b) => {
        const score = voteOf(b.score);
        await d.communities.vote(await memberAccount(d.accounts, who), { postId: b.post_id }, score);
      }),
    }),
    route({
      method: 'PUT',
      path: '/api/v3/post/save',
      auth: WRITE,
      body: true,
      handler: onPost(SavePost, async (who, b) => {
        await d.communities.save(await memberAccount(d.accounts, who), { postId: b.post_id }, b.save);
      }),
    }),
  ];
}
