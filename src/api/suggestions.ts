// Follow suggestions (Mastodon's Api::V2::SuggestionsController and the deprecated v1 one): staff-featured accounts,
// then friends of friends, then recently active local accounts (store/suggestions.ts); a member dismisses one with
// DELETE /api/v1/suggestions/:account_id. Staff feature an account with POST /api/v1/admin/accounts/:id/feature
// (ours: Mastodon keeps its featured accounts in a setting of its admin pages).
import { suggestionEntity } from '../entities/suggestion.js';
import { Errors } from '../errors.js';
import { pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { isId } from '../store/ids.js';
import type { Suggestion, SuggestionStore } from '../store/suggestions.js';
import type { AccountViews } from '../views/account-views.js';
import { memberIdOf } from './callers.js';

// Mastodon's DEFAULT_ACCOUNTS_LIMIT, and its limit_param's cap of twice that.
const DEFAULT_LIMIT = 40;
const MAX_LIMIT = 80;

// Featuring is a matter of the server's taxonomy, as Mastodon's follow recommendations admin (manage_taxonomies).
const FEATURE = { scopes: ['admin:write:accounts'], member: true, permission: 'manageTaxonomies' } as const;

/** v2's `offset` (Mastodon's params[:offset].to_i: anything not a number is 0). */
function offsetOf(req: Request): number {
  const n = Number.parseInt(String(req.query['offset'] ?? '0'), 10);
  return Number.isSafeInteger(n) && n > 0 ? Math.min(n, 10_000) : 0;
}

export interface SuggestionApiDeps {
  readonly accounts: AccountStore;
  readonly suggestions: SuggestionStore;
  readonly views: AccountViews;
}

export function suggestionRoutes(d: SuggestionApiDeps): Route[] {
  /** The suggestions with their accounts, in order (one gone in between is left out). */
  const suggested = async (req: Request, memberId: string): Promise<{ s: Suggestion; account: Record<string, unknown> }[]> => {
    const list = await d.suggestions.forMember(memberId, pageQuery(req.query, DEFAULT_LIMIT, MAX_LIMIT).limit, offsetOf(req));
    const byId = new Map((await d.accounts.byIds(list.map((s) => s.accountId))).map((a) => [a.id, a]));
    const shown = list.filter((s) => byId.has(s.accountId));
    const entities = await d.views.many(shown.map((s) => byId.get(s.accountId)!));
    return shown.map((s, i) => ({ s, account: entities[i] as Record<string, unknown> }));
  };
  /** An account `:id` names (404 as Mastodon's find for none). */
  const account = async (id: string | undefined): Promise<Account> => {
    const a = id !== undefined && isId(id) ? await d.accounts.byId(id) : undefined;
    if (!a || a.deletedAt || a.instanceActor || (a.domain === null && !a.hasUser)) throw Errors.notFound();
    return a;
  };

  return [
    route({
      method: 'GET',
      path: '/api/v2/suggestions',
      auth: { scopes: ['read:accounts'], member: true },
      handler: async (req, who) =>
        json(
          200,
          (await suggested(req, memberIdOf(who))).map((x) => suggestionEntity(x.s, x.account)),
        ),
    }),
    route({
      method: 'GET',
      path: '/api/v1/suggestions',
      auth: { scopes: ['read:accounts'], member: true },
      handler: async (req, who) =>
        json(
          200,
          (await suggested(req, memberIdOf(who))).map((x) => x.account),
        ),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/suggestions/:account_id',
      // Mastodon 4.5 asks write:accounts here (its older controllers asked `read` for both actions).
      auth: { scopes: ['write:accounts'], member: true },
      handler: async (req, who) => {
        const target = await account(req.params['account_id']);
        await d.suggestions.dismiss(memberIdOf(who), target.id);
        return json(200, {});
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/feature',
      auth: FEATURE,
      handler: async (req, who) => {
        memberIdOf(who);
        const target = await account(req.params['id']);
        await d.suggestions.setFeatured(target.id, true);
        return json(200, await d.views.one(target));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/accounts/:id/unfeature',
      auth: FEATURE,
      handler: async (req, who) => {
        memberIdOf(who);
        const target = await account(req.params['id']);
        await d.suggestions.setFeatured(target.id, false);
        return json(200, await d.views.one(target));
      },
    }),
  ];
}
