// GET /api/v3/user (Lemmy 0.19's GetPersonDetails): a person, local or remote, by person_id or by username (a local
// name or name@host; one not known here is found through WebFinger for a signed-in member), with their posts and
// comments filed in communities here that the viewer may read (newest first), and the communities they moderate.
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { json } from '../../http/respond.js';
import { route, type Route } from '../../http/types.js';
import type { Account } from '../../store/accounts.js';
import { type LemmySiteDeps, viewerOf } from './deps.js';
import { itemOrder, lemmyBool, lemmyId, noNul, limit, offsetOf, page, parse, sortType } from './site-params.js';

const GetPersonDetails = z.object({
  person_id: lemmyId.optional(),
  username: z.string().trim().min(1).max(600).refine(noNul).optional(),
  sort: sortType,
  page,
  limit,
  community_id: lemmyId.optional(),
  saved_only: lemmyBool.optional(),
});

/** The person behind a Lemmy person id, if it is one that may be shown (not a community). */
export async function personById(d: Pick<LemmySiteDeps, 'links' | 'accounts'>, id: number): Promise<Account | undefined> {
  const accountId = await d.links.personAccount(id);
  const a = accountId === undefined ? undefined : await d.accounts.byId(accountId);
  return a && !a.deletedAt && !a.suspendedAt && !a.instanceActor && (a.domain !== null || a.hasUser) ? a : undefined;
}

export function lemmyUserRoutes(d: LemmySiteDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/api/v3/user',
      auth: { scopes: ['read'], optional: true },
      handler: async (req, who) => {
        const q = parse(GetPersonDetails, req.query);
        const viewer = viewerOf(who);
        if (q.person_id === undefined && q.username === undefined) throw Errors.lemmy(400, 'no_id_given');
        const account = q.person_id !== undefined ? await personById(d, q.person_id) : await d.finder.person(q.username!, viewer !== null);
        if (!account || account.actorType === 'Group') throw Errors.lemmy(404, 'couldnt_find_person');
        const l = q.limit ?? 10;
        const o = { limit: l, offset: offsetOf(q.page, l), order: itemOrder(q.sort), ...(q.community_id === undefined ? {} : { communityId: q.community_id }) };
        let postIds: number[];
        let commentIds: number[];
        if (q.saved_only) {
          // Saved things are one's own: another person's are never shown.
          const saved = viewer === account.id ? await d.site.savedBy(viewer, o) : { posts: [], comments: [] };
          postIds = saved.posts;
          commentIds = saved.comments;
        } else {
          [postIds, commentIds] = await Promise.all([d.site.personPosts(account.id, viewer, o), d.site.personComments(account.id, viewer, o)]);
        }
        const [view, posts, comments, moderated] = await Promise.all([
          d.people.view(account.id, viewer),
          d.postViews.render(postIds, viewer),
          d.commentViews.render(commentIds, viewer),
          d.site.moderatedBy(account.id),
        ]);
        if (!view) throw Errors.lemmy(404, 'couldnt_find_person');
        const communities = await d.objects.communities(moderated, viewer);
        const moderates = moderated.flatMap((id) => {
          const c = communities.get(id);
          return c ? [{ community: c.community, moderator: view.person }] : [];
        });
        return json(200, { person_view: view, comments, posts, moderates });
      },
    }),
  ];
}
