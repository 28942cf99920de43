// Endorsements, the followed accounts a member features on their profile (Mastodon 4.4's
// Api::V1::Accounts::EndorsementsController, and Api::V1::EndorsementsController for the member's own list):
// endorse / unendorse and their older names pin / unpin, answered with the Relationship; the member's list, and
// any local account's public list. Lists page by the endorsed account's id with Link headers.
import { Errors } from '../errors.js';
import { linkHeader, pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Reply, type Route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { EndorsementStore } from '../store/endorsements.js';
import type { FollowStore } from '../store/follows.js';
import type { AccountViews } from '../views/account-views.js';
import { actedOn, relationshipReply } from './acted-on.js';
import { memberAccount } from './callers.js';

/** Mastodon's accounts.pin_errors.following, as AccountPin's validation words it. */
const NOT_FOLLOWING = 'You must be already following the person you want to endorse';
/** What `GET /api/v1/endorsements?limit=0` (Mastodon: unlimited) answers at most. */
const MAX_UNLIMITED = 1000;

export interface EndorsementDeps {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly endorsements: EndorsementStore;
  readonly views: AccountViews;
}

export function endorsementRoutes(d: EndorsementDeps): Route[] {
  const target = (id: string): Promise<Account> => actedOn(d.accounts, id);
  const relationship = (viewer: Account, other: Account): Promise<Reply> => relationshipReply(d.follows, viewer, other);

  const endorse = async (req: Request, who: MemberPrincipal): Promise<Reply> => {
    const viewer = await memberAccount(d.accounts, who);
    const other = await target(req.params['id']!);
    if (!(await d.endorsements.endorse(viewer.id, other.id))) throw Errors.validation(NOT_FOLLOWING);
    return relationship(viewer, other);
  };
  const unendorse = async (req: Request, who: MemberPrincipal): Promise<Reply> => {
    const viewer = await memberAccount(d.accounts, who);
    const other = await target(req.params['id']!);
    await d.endorsements.unendorse(viewer.id, other.id);
    return relationship(viewer, other);
  };

  /**
   * One page of the accounts `accountId` endorses, with its Link header; `unlimited`: limit=0 asks for them all at
   * once, as Mastodon's own list allows (bounded here all the same).
   */
  const page = async (accountId: string, req: Request, url: string, unlimited = false): Promise<Reply> => {
    const all = unlimited && req.query['limit'] === '0';
    const p = all ? { limit: MAX_UNLIMITED } : pageQuery(req.query, 40, 80);
    const ids = await d.endorsements.page(accountId, p);
    const byId = new Map((await d.accounts.byIds(ids)).map((a) => [a.id, a]));
    const accounts = ids.map((id) => byId.get(id)).filter((a): a is Account => !!a);
    return json(200, await d.views.many(accounts), all ? undefined : linkHeader(url, p, ids));
  };

  const write = { scopes: ['write:accounts'], member: true } as const;
  return [
    route({ method: 'POST', path: '/api/v1/accounts/:id/endorse', auth: write, body: true, handler: endorse }),
    route({ method: 'POST', path: '/api/v1/accounts/:id/unendorse', auth: write, body: true, handler: unendorse }),
    // The names before Mastodon 4.4, kept by it as aliases.
    route({ method: 'POST', path: '/api/v1/accounts/:id/pin', auth: write, body: true, handler: endorse }),
    route({ method: 'POST', path: '/api/v1/accounts/:id/unpin', auth: write, body: true, handler: unendorse }),
    route({
      method: 'GET',
      path: '/api/v1/endorsements',
      auth: { scopes: ['read:accounts'], member: true },
      handler: async (req, who) => page((await memberAccount(d.accounts, who)).id, req, `${d.baseUrl}/api/v1/endorsements`, true),
    }),
    route({
      // Public: no token needed; a token that is sent must be valid. A remote account's endorsements are not
      // fetched (its featured collection), and a suspended account shows none.
      method: 'GET',
      path: '/api/v1/accounts/:id/endorsements',
      auth: { scopes: ['read:accounts'], optional: true },
      handler: async (req) => {
        const account = await target(req.params['id']!);
        if (account.domain !== null || account.suspendedAt) return json(200, []);
        return page(account.id, req, `${d.baseUrl}/api/v1/accounts/${account.id}/endorsements`);
      },
    }),
  ];
}
