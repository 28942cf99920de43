// GET /api/v3/search and GET /api/v3/resolve_object (Lemmy 0.19). Search finds what is already here, under the house's
// rules: posts and comments the viewer may read and that may be listed (never a remote-history row), people as the
// Mastodon account search finds them, communities by name or title. resolve_object names one thing by URL or handle
// and fetches it from elsewhere when not known (members only, as Lemmy requires sign-in for it).
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { json } from '../../http/respond.js';
import { route, type Route } from '../../http/types.js';
import { communityViews } from './communities.js';
import { lemmyMember, type LemmySiteDeps, viewerOf } from './deps.js';
import { itemOrder, lemmyBool, lemmyId, noNul, limit, listingType, offsetOf, page, parse, sortType } from './site-params.js';
import { personById } from './users.js';

const SEARCH_TYPES = ['All', 'Comments', 'Posts', 'Communities', 'Users', 'Url'] as const;

const Search = z.object({
  q: z.string().trim().max(500).refine(noNul),
  type_: z.enum(SEARCH_TYPES).optional(),
  community_id: lemmyId.optional(),
  community_name: z.string().trim().min(1).max(600).refine(noNul).optional(),
  creator_id: lemmyId.optional(),
  sort: sortType,
  listing_type: listingType,
  page,
  limit,
  post_title_only: lemmyBool.optional(),
});

const ResolveObject = z.object({ q: z.string().trim().min(1).max(2000).refine(noNul) });

// What the account search takes as names (api/search.ts's rule): words, no markup.
const NAME_WORDS = /^[@!]?[\p{L}\p{N}_.\- ]{1,100}$/u;

export function lemmySearchRoutes(d: LemmySiteDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/api/v3/search',
      auth: { scopes: ['read'], optional: true },
      handler: async (req, who) => {
        const q = parse(Search, req.query);
        const viewer = viewerOf(who);
        const type = q.type_ ?? 'All';
        const empty = { type_: type, comments: [], posts: [], communities: [], users: [] };
        if (q.q === '') return json(200, empty);
        const l = q.limit ?? 10;
        const offset = offsetOf(q.page, l);
        let communityId = q.community_id;
        if (communityId === undefined && q.community_name !== undefined) communityId = await d.finder.community(q.community_name, false);
        else if (communityId !== undefined && (await d.links.communityAccount(communityId)) === undefined) communityId = undefined;
        if ((q.community_id !== undefined || q.community_name !== undefined) && communityId === undefined) throw Errors.lemmy(404, 'couldnt_find_community');
        let creator: string | undefined;
        if (q.creator_id !== undefined) {
          creator = (await personById(d, q.creator_id))?.id;
          if (creator === undefined) throw Errors.lemmy(404, 'couldnt_find_person');
        }
        // Lemmy's listing_type: Local is this server's communities (there are none: every community is another
        // server's), Subscribed the member's (nothing for an anonymous caller), All and ModeratorView everything.
        const listing = q.listing_type ?? 'All';
        if (listing === 'Local' || (listing === 'Subscribed' && viewer === null)) return json(200, empty);
        const followedBy = listing === 'Subscribed' ? viewer! : undefined;
        const scoped = {
          limit: l,
          offset,
          order: itemOrder(q.sort),
          ...(communityId === undefined ? {} : { communityId }),
          ...(creator === undefined ? {} : { creator }),
          ...(followedBy === undefined ? {} : { followedBy }),
        };
        const want = (t: (typeof SEARCH_TYPES)[number]) => type === 'All' || type === t;
        const [postIds, commentIds, communityIds, people] = await Promise.all([
          want('Posts') || type === 'Url' ? d.site.searchPosts(q.q, viewer, { ...scoped, url: type === 'Url' }) : [],
          want('Comments') ? d.site.searchComments(q.q, viewer, scoped) : [],
          want('Communities') && communityId === undefined && creator === undefined
            ? d.site.searchCommunities(q.q.replace(/^!/, ''), { nsfw: false, limit: l, offset, ...(followedBy === undefined ? {} : { followedBy }) })
            : [],
          want('Users') && communityId === undefined && creator === undefined && followedBy === undefined && NAME_WORDS.test(q.q)
            ? d.accounts.search(q.q.replace(/^[@!]/, ''), { limit: l, offset })
            : [],
        ]);
        const [posts, comments, communities, users] = await Promise.all([
          d.postViews.render(postIds, viewer),
          d.commentViews.render(commentIds, viewer),
          communityViews(d, communityIds, viewer),
          d.people.views(
            people.filter((a) => a.actorType !== 'Group').map((a) => a.id),
            viewer,
          ),
        ]);
        return json(200, { type_: type, comments, posts, communities, users });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v3/resolve_object',
      auth: { scopes: ['read'], member: true, optional: true },
      handler: async (req, who) => {
        const viewer = lemmyMember(who).record.user.accountId;
        const { q } = parse(ResolveObject, req.query);
        const found = await d.finder.object(q, true);
        const none = () => Errors.lemmy(404, 'couldnt_find_object');
        if (found.kind === 'community') {
          const [community] = await communityViews(d, [found.id], viewer);
          if (!community) throw none();
          return json(200, { community });
        }
        if (found.kind === 'person') {
          const person = await d.people.view(found.account.id, viewer);
          if (!person) throw none();
          return json(200, { person });
        }
        if (found.kind === 'status' && (await d.statuses.canSee(found.status, viewer))) {
          const post = await d.links.postByStatus(found.status.id);
          if (post && (await d.site.postVisible(post.id, viewer))) {
            const [view] = await d.postViews.render([post.id], viewer);
            if (view) return json(200, { post: view });
          }
          const comment = await d.links.commentByStatus(found.status.id);
          if (comment && (await d.site.postVisible(comment.postId, viewer))) {
            const [view] = await d.commentViews.render([comment.id], viewer);
            if (view) return json(200, { comment: view });
          }
        }
        throw none();
      },
    }),
  ];
}
