// GET /api/v3/community, GET /api/v3/community/list and POST /api/v3/community/follow (Lemmy 0.19). A community is a
// Group account known here (lemmy_communities); one named as name@host that is not known yet is found through
// WebFinger for a signed-in member (api/lemmy/finder.ts). Following goes through the community service.
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { json } from '../../http/respond.js';
import { route, type Route } from '../../http/types.js';
import type { CommunityListSort } from '../../store/link-site.js';
import { lemmyMember, memberAccount, type LemmySiteDeps, viewerOf } from './deps.js';
import { lemmyBool, lemmyId, noNul, limit, listingType, offsetOf, page, parse, sortType } from './site-params.js';

const GetCommunity = z.object({ id: lemmyId.optional(), name: z.string().trim().min(1).max(600).refine(noNul).optional() });

const ListCommunities = z.object({ type_: listingType, sort: sortType, show_nsfw: lemmyBool.optional(), page, limit });

const FollowCommunity = z.object({ community_id: lemmyId, follow: lemmyBool });

/** Lemmy's community sorts, as the orders the store knows. */
function listSort(sort: string | undefined): CommunityListSort {
  if (sort === 'New') return 'new';
  if (sort === 'Old') return 'old';
  if (sort === 'MostComments') return 'comments';
  if (sort?.startsWith('Top')) return 'subscribers';
  return 'active';
}

export function lemmyCommunityRoutes(d: LemmySiteDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/api/v3/community',
      auth: { scopes: ['read'], optional: true },
      handler: async (req, who) => {
        const q = parse(GetCommunity, req.query);
        const viewer = viewerOf(who);
        if (q.id === undefined && q.name === undefined) throw Errors.lemmy(400, 'no_id_given');
        const id = q.id ?? (await d.finder.community(q.name!, viewer !== null));
        const view = id === undefined ? undefined : (await d.objects.communityViews([id], viewer)).get(id);
        if (!view || view.community.deleted || view.community.removed) throw Errors.lemmy(404, 'couldnt_find_community');
        return json(200, { community_view: view, moderators: await d.objects.moderators(view.community.id, viewer), discussion_languages: [] });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v3/community/list',
      auth: { scopes: ['read'], optional: true },
      handler: async (req, who) => {
        const q = parse(ListCommunities, req.query);
        const viewer = viewerOf(who);
        const l = q.limit ?? 10;
        const type = q.type_ ?? 'All';
        // Every community here is another server's: none is Local; the followed ones need someone signed in.
        if (type === 'Local' || ((type === 'Subscribed' || type === 'ModeratorView') && viewer === null)) return json(200, { communities: [] });
        let ids: number[];
        if (type === 'ModeratorView') {
          ids = (await d.site.moderatedBy(viewer!)).slice(offsetOf(q.page, l), offsetOf(q.page, l) + l);
        } else {
          ids = await d.site.listCommunities({
            follower: type === 'Subscribed' ? viewer : null,
            nsfw: q.show_nsfw ?? false,
            sort: listSort(q.sort),
            limit: l,
            offset: offsetOf(q.page, l),
          });
        }
        return json(200, { communities: await communityViews(d, ids, viewer) });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v3/community/follow',
      auth: { scopes: ['follow', 'write'], member: true, optional: true },
      body: true,
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, lemmyMember(who));
        const b = parse(FollowCommunity, req.fields);
        if ((await d.links.communityAccount(b.community_id)) === undefined) throw Errors.lemmy(404, 'couldnt_find_community');
        // The service answers its refusals in Lemmy's codes (community_is_blocked, domain_blocked …).
        await d.communities.follow(me, b.community_id, b.follow);
        const view = (await d.objects.communityViews([b.community_id], me.id)).get(b.community_id);
        if (!view) throw Errors.lemmy(404, 'couldnt_find_community');
        return json(200, { community_view: view, discussion_languages: [] });
      },
    }),
  ];
}

/** CommunityViews in the order of the ids (unknown ones left out). */
export async function communityViews(d: Pick<LemmySiteDeps, 'objects'>, ids: readonly number[], viewer: string | null) {
  const views = await d.objects.communityViews(ids, viewer);
  return ids.flatMap((id) => {
    const v = views.get(id);
    return v ? [v] : [];
  });
}
