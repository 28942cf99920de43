// Hashtags (Mastodon's Api::V1::TagsController and FollowedTagsController): a tag with its last week, following and
// unfollowing it (its public posts then reach the member's home: store/timelines.ts followedTag), the tags a member
// follows, and featuring a tag on the member's profile by name (4.4).
import { Errors } from '../errors.js';
import { linkHeader, pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Reply, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { Tag, TagStore } from '../store/tags.js';
import { isHashtagName } from '../text/status-text.js';
import type { TagViews, UnsavedTag } from '../views/tag-views.js';
import { memberAccount, memberIdOf, viewerOf } from './callers.js';
import { featureTag, type FeaturedTagNews, tellFeatured } from './featured-tags.js';

export interface TagApiDeps extends FeaturedTagNews {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly tags: TagStore;
  readonly views: TagViews;
}

/** Mastodon's FollowedTagsController::TAGS_LIMIT; limit_param allows twice it. */
const FOLLOWED_LIMIT = 100;

export function tagRoutes(d: TagApiDeps): Route[] {
  /** The tag the path names (a name that is no hashtag: 404, as Mastodon), or the unsaved tag Mastodon renders. */
  const named = async (req: Request): Promise<Tag | UnsavedTag> => {
    const name = req.params['id']!;
    if (!isHashtagName(name)) throw Errors.notFound();
    return (await d.tags.byName(name)) ?? { id: null, name };
  };
  const saved = async (req: Request): Promise<Tag> => {
    const t = await named(req);
    return t.id === null ? d.tags.ensure(t.name) : t;
  };
  const act =
    (fn: (memberId: string, tag: Tag | UnsavedTag) => Promise<Tag | UnsavedTag>) =>
    async (req: Request, who: MemberPrincipal): Promise<Reply> => {
      const memberId = memberIdOf(who);
      return json(200, await d.views.one(await fn(memberId, await named(req)), memberId));
    };
  const follows = { scopes: ['write:follows', 'follow'], member: true } as const;
  const accounts = { scopes: ['write:accounts'], member: true } as const;

  return [
    route({
      method: 'GET',
      path: '/api/v1/tags/:id',
      // Mastodon asks no scope here: any token, or none.
      auth: { scopes: [], optional: true },
      handler: async (req, who) => json(200, await d.views.one(await named(req), viewerOf(who))),
    }),
    route({
      method: 'POST',
      path: '/api/v1/tags/:id/follow',
      auth: follows,
      body: true,
      handler: async (req, who) => {
        const tag = await saved(req);
        await d.tags.follow(memberIdOf(who), tag.id);
        return json(200, await d.views.one(tag, memberIdOf(who)));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/tags/:id/unfollow',
      auth: follows,
      body: true,
      handler: act(async (memberId, tag) => {
        if (tag.id !== null) await d.tags.unfollow(memberId, tag.id);
        return tag;
      }),
    }),
    route({
      method: 'POST',
      path: '/api/v1/tags/:id/feature',
      auth: accounts,
      body: true,
      handler: async (req, who) => {
        const [tag, me] = await Promise.all([named(req), memberAccount(d.accounts, who)]);
        const { featured, created } = await featureTag(d.tags, me.id, tag.name);
        if (created) await tellFeatured(d, me, 'Add', featured);
        return json(200, await d.views.one(await saved(req), me.id));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/tags/:id/unfeature',
      auth: accounts,
      body: true,
      handler: async (req, who) => {
        const [tag, me] = await Promise.all([named(req), memberAccount(d.accounts, who)]);
        const removed = tag.id === null ? undefined : await d.tags.unfeatureTag(me.id, tag.id);
        if (removed) await tellFeatured(d, me, 'Remove', removed);
        return json(200, await d.views.one(tag, me.id));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/followed_tags',
      auth: { scopes: ['read:follows', 'follow'], member: true },
      handler: async (req, who) => {
        const page = pageQuery(req.query, FOLLOWED_LIMIT, FOLLOWED_LIMIT * 2);
        const rows = await d.tags.followedPage(memberIdOf(who), page);
        const body = await d.views.many(
          rows.map((r) => r[1]),
          memberIdOf(who),
        );
        return json(
          200,
          body,
          linkHeader(
            `${d.baseUrl}/api/v1/followed_tags`,
            page,
            rows.map((r) => r[0]),
          ),
        );
      },
    }),
  ];
}
