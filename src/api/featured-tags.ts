// Featured hashtags (Mastodon's Api::V1::FeaturedTagsController, FeaturedTags::SuggestionsController and
// Accounts::FeaturedTagsController): the member's own, featuring and unfeaturing one, the tags they use most, and any
// account's (shown on the profile page and in the actor's featuredTags collection too).
import { z } from 'zod';
import { Errors } from '../errors.js';
import { featuredTagActivity } from '../federation/activities.js';
import type { Publisher } from '../federation/publisher.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import type { FeaturedTag, TagStore } from '../store/tags.js';
import { isHashtagName } from '../text/status-text.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { TagViews } from '../views/tag-views.js';
import { memberAccount, memberIdOf } from './callers.js';
import { given } from './params.js';

/** Where a change of the member's featured tags is sent. */
export interface FeaturedTagNews {
  readonly publisher: Publisher;
  readonly uris: LocalUris;
}

export interface FeaturedTagApiDeps extends FeaturedTagNews {
  readonly accounts: AccountStore;
  readonly tags: TagStore;
  readonly views: TagViews;
}

/**
 * Tells the member's followers' servers that a tag was featured or is no longer (Mastodon's CreateFeaturedTagService
 * and RemoveFeaturedTagService: an Add or Remove of a Hashtag to the featuredTags collection).
 */
export function tellFeatured(d: FeaturedTagNews, me: Account, type: 'Add' | 'Remove', tag: { readonly id: string; readonly name: string }): Promise<void> {
  return d.publisher.sendToAudience(featuredTagActivity(d.uris, me, type, tag), me, true, []);
}

/** Mastodon's Settings::FeaturedTagsController::RECENT_TAGS_LIMIT, which the API's suggestions use too. */
const SUGGESTIONS = 10;

const FeatureBody = z.object({ name: z.unknown().optional() });

/**
 * Features tag `name` for the member as Mastodon's CreateFeaturedTagService: the name stripped of spaces and one
 * leading '#', checked as FeaturedTag's validations word it (422 "Validation failed: …"); a tag already featured
 * is answered with its row.
 */
export async function featureTag(tags: TagStore, memberId: string, raw: unknown): Promise<{ featured: FeaturedTag; created: boolean }> {
  const name = typeof raw === 'string' ? raw.trim().replace(/^#/, '') : '';
  if (name === '') throw Errors.validation("Name can't be blank, Name is invalid");
  if (!isHashtagName(name)) throw Errors.validation('Name is invalid');
  const made = await tags.feature(memberId, name);
  if (made === 'limit') throw Errors.validation('You have already featured the maximum number of hashtags');
  return made;
}

export function featuredTagRoutes(d: FeaturedTagApiDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/api/v1/featured_tags',
      auth: { scopes: ['read:accounts'], member: true },
      handler: async (_req, who) => {
        const me = await memberAccount(d.accounts, who);
        return json(200, d.views.featured(me.username, await d.tags.featured(me.id)));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/featured_tags',
      auth: { scopes: ['write:accounts'], member: true },
      body: true,
      handler: async (req, who) => {
        const me = await memberAccount(d.accounts, who);
        const p = FeatureBody.safeParse(given(req.fields));
        const { featured, created } = await featureTag(d.tags, me.id, p.success ? p.data.name : undefined);
        if (created) await tellFeatured(d, me, 'Add', featured);
        return json(200, d.views.featured(me.username, [featured])[0]);
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/featured_tags/suggestions',
      auth: { scopes: ['read:accounts'], member: true },
      handler: async (_req, who) => json(200, await d.views.many(await d.tags.suggestions(memberIdOf(who), SUGGESTIONS), memberIdOf(who))),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/featured_tags/:id',
      auth: { scopes: ['write:accounts'], member: true },
      handler: async (req, who) => {
        const id = req.params['id']!;
        const me = await memberAccount(d.accounts, who);
        const removed = isId(id) ? await d.tags.unfeatureById(me.id, id) : undefined;
        if (!removed) throw Errors.notFound();
        await tellFeatured(d, me, 'Remove', removed);
        return json(200, {});
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/accounts/:id/featured_tags',
      auth: { scopes: ['read:accounts'], optional: true },
      handler: async (req) => {
        const id = req.params['id']!;
        const a = isId(id) ? await d.accounts.byId(id) : undefined;
        if (!a || a.deletedAt || (a.domain === null && !a.hasUser)) throw Errors.notFound();
        // A suspended account features nothing (Mastodon); remote accounts' featured tags are not fetched.
        if (a.suspendedAt || a.domain !== null) return json(200, []);
        return json(200, d.views.featured(a.username, await d.tags.featured(a.id)));
      },
    }),
  ];
}
