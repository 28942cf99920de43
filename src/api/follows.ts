// Relationships in the client API: follow / unfollow, relationships, followers and following lists, removing a
// follower, familiar followers, and the member's incoming follow requests with authorize / reject. Lists page by the
// relationship's hidden id.
import { z } from 'zod';
import { relationshipEntity } from '../entities/relationship.js';
import { Errors } from '../errors.js';
import { linkHeader, pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Reply, type Route } from '../http/types.js';
import type { Account } from '../store/accounts.js';
import type { AccountApiDeps } from './deps.js';
import { idList, railsBool } from './params.js';
import { actedOn, relationshipReply } from './acted-on.js';
import { memberAccount } from './callers.js';

const MAX_RELATIONSHIP_IDS = 80;
/** The most accounts GET /api/v1/accounts/familiar_followers answers for at once (as many as relationships). */
const MAX_FAMILIAR_IDS = 80;

const FollowBody = z.object({
  reblogs: railsBool.nullish().transform((v) => v ?? undefined),
  notify: railsBool.nullish().transform((v) => v ?? undefined),
  // An empty list (or null) means every language.
  languages: z
    .array(z.string().regex(/^[a-z]{2,3}$/, 'languages must be ISO 639 codes'))
    .max(100)
    .nullable()
    .optional()
    .transform((v) => (v === null ? [] : v)),
});

export function followRoutes(d: AccountApiDeps): Route[] {
  const target = (id: string): Promise<Account> => actedOn(d.accounts, id);
  const relationship = (viewer: Account, other: Account): Promise<Reply> => relationshipReply(d.follows, viewer, other);

  /** One page of accounts related to `accountId`, newest relationship first, with its Link header. */
  const accountPage = async (kind: 'followers' | 'following' | 'requests', accountId: string, req: Request, url: string): Promise<Reply> => {
    const page = pageQuery(req.query, 40, 80);
    const { items } = await d.follows.page(kind, accountId, page);
    const accounts = new Map((await d.accounts.byIds(items.map(([, id]) => id))).map((a) => [a.id, a]));
    const ordered = items.map(([, id]) => accounts.get(id)).filter((a): a is Account => !!a);
    return json(
      200,
      await d.views.many(ordered),
      linkHeader(
        url,
        page,
        items.map(([rowId]) => rowId),
      ),
    );
  };

  const list =
    (kind: 'followers' | 'following') =>
    async (req: Request): Promise<Reply> => {
      const account = await target(req.params['id']!);
      return accountPage(kind, account.id, req, `${d.config.baseUrl}/api/v1/accounts/${account.id}/${kind}`);
    };

  const answer =
    (approve: boolean) =>
    async (req: Request, who: MemberPrincipal): Promise<Reply> => {
      const viewer = await memberAccount(d.accounts, who);
      const requester = await target(req.params['id']!);
      const done = approve ? await d.followService.authorize(viewer, requester) : await d.followService.reject(viewer, requester);
      if (!done) throw Errors.notFound();
      return relationship(viewer, requester);
    };

  return [
    route({
      method: 'POST',
      path: '/api/v1/accounts/:id/follow',
      auth: { scopes: ['write:follows', 'follow'], member: true },
      body: true,
      handler: async (req, who) => {
        const viewer = await memberAccount(d.accounts, who);
        const parsed = FollowBody.safeParse(req.fields);
        if (!parsed.success) throw Errors.validation(parsed.error.issues[0]!.message);
        const other = await target(req.params['id']!);
        const p = parsed.data;
        await d.followService.follow(viewer, other, {
          showReblogs: p.reblogs,
          notify: p.notify,
          languages: p.languages === undefined ? undefined : p.languages.length ? p.languages : null,
        });
        return relationship(viewer, other);
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/accounts/:id/unfollow',
      auth: { scopes: ['write:follows', 'follow'], member: true },
      body: true,
      handler: async (req, who) => {
        const viewer = await memberAccount(d.accounts, who);
        const other = await target(req.params['id']!);
        await d.followService.unfollow(viewer, other);
        return relationship(viewer, other);
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/accounts/relationships',
      auth: { scopes: ['read:follows', 'follow'], member: true },
      handler: async (req, who) => {
        const viewer = await memberAccount(d.accounts, who);
        const valid = idList(req.query).slice(0, MAX_RELATIONSHIP_IDS);
        const known = new Set((await d.accounts.byIds(valid)).map((a) => a.id));
        const rels = await d.follows.relationships(
          viewer.id,
          valid.filter((id) => known.has(id)),
        );
        return json(200, rels.map(relationshipEntity));
      },
    }),
    route({
      // Mastodon's AccountsController#remove_from_followers: answered with the Relationship whether it followed or not.
      method: 'POST',
      path: '/api/v1/accounts/:id/remove_from_followers',
      auth: { scopes: ['write:follows', 'follow'], member: true },
      body: true,
      handler: async (req, who) => {
        const viewer = await memberAccount(d.accounts, who);
        const follower = await target(req.params['id']!);
        await d.followService.removeFollower(viewer, follower);
        return relationship(viewer, follower);
      },
    }),
    route({
      // For each account asked about (once, in the order asked; unknown, deleted and suspended ones left out), the
      // accounts the member follows that follow it. The ids may come in a JSON body, as Rails takes them on a GET
      // and Mastodon.py sends them.
      method: 'GET',
      path: '/api/v1/accounts/familiar_followers',
      auth: { scopes: ['read:follows'], member: true },
      body: true,
      handler: async (req, who) => {
        const viewer = await memberAccount(d.accounts, who);
        const asked = idList(req.query);
        const order = (asked.length > 0 ? asked : idList(req.fields)).slice(0, MAX_FAMILIAR_IDS);
        const found = new Map((await d.accounts.byIds(order)).map((a) => [a.id, a]));
        const accounts = order
          .map((id) => found.get(id))
          .filter((a): a is Account => !!a && !a.deletedAt && !a.suspendedAt && !a.instanceActor && (a.domain !== null || a.hasUser));
        const pairs = await d.follows.familiarFollowers(
          viewer.id,
          accounts.map((a) => a.id),
        );
        const followers = await d.accounts.byIds([...new Set(pairs.map(([, f]) => f))]);
        const entities = await d.views.many(followers);
        const rendered = new Map(followers.map((a, i) => [a.id, entities[i]!]));
        return json(
          200,
          accounts.map((a) => ({ id: a.id, accounts: pairs.filter(([t]) => t === a.id).flatMap(([, f]) => rendered.get(f) ?? []) })),
        );
      },
    }),
    // Public lists: no token needed; a token that is sent must be valid.
    route({ method: 'GET', path: '/api/v1/accounts/:id/followers', auth: { scopes: ['read:accounts'], optional: true }, handler: list('followers') }),
    route({ method: 'GET', path: '/api/v1/accounts/:id/following', auth: { scopes: ['read:accounts'], optional: true }, handler: list('following') }),
    route({
      method: 'GET',
      path: '/api/v1/follow_requests',
      auth: { scopes: ['read:follows', 'follow'], member: true },
      handler: async (req, who) => accountPage('requests', (await memberAccount(d.accounts, who)).id, req, `${d.config.baseUrl}/api/v1/follow_requests`),
    }),
    route({
      method: 'POST',
      path: '/api/v1/follow_requests/:id/authorize',
      auth: { scopes: ['write:follows', 'follow'], member: true },
      body: true,
      handler: answer(true),
    }),
    route({
      method: 'POST',
      path: '/api/v1/follow_requests/:id/reject',
      auth: { scopes: ['write:follows', 'follow'], member: true },
      body: true,
      handler: answer(false),
    }),
  ];
}
