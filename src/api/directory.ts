// The profile directory (Mastodon's Api::V1::DirectoriesController): discoverable accounts, most recently active
// (order=active, the default) or newest (order=new) first, local ones only with local=true, paged by offset. Public;
// a signed-in caller does not see the accounts they block, are blocked by, mute, or whose domain they block.
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { DirectoryStore } from '../store/directory.js';
import type { AccountViews } from '../views/account-views.js';
import { viewerOf } from './callers.js';
import { flag } from './params.js';

// Mastodon's DEFAULT_ACCOUNTS_LIMIT, and its limit_param's cap of twice that.
const DEFAULT_LIMIT = 40;
const MAX_LIMIT = 80;
const PAGINATION = 'Pagination values for `offset` and `limit` must be positive';

export interface DirectoryApiDeps {
  readonly accounts: AccountStore;
  readonly directory: DirectoryStore;
  readonly views: AccountViews;
}

/** A non-negative integer query parameter (absent or blank: the default). */
function count(req: Request, name: string, fallback: number): number {
  const raw = req.query[name];
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^\s*-?\d{1,9}\s*$/.test(raw)) throw Errors.badRequest(`${name} must be an integer`);
  const n = Number(raw);
  if (n < 0) throw Errors.badRequest(PAGINATION);
  return n;
}

export function directoryRoutes(d: DirectoryApiDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/api/v1/directory',
      // Mastodon asks no scope here: any token, or none.
      auth: { scopes: [], optional: true },
      handler: async (req, who) => {
        const limit = Math.min(Math.max(count(req, 'limit', DEFAULT_LIMIT), 1), MAX_LIMIT);
        const ids = await d.directory.page({
          offset: count(req, 'offset', 0),
          limit,
          order: req.query['order'] === 'new' ? 'new' : 'active',
          local: flag(req.query['local']),
          viewerId: viewerOf(who),
        });
        const byId = new Map((await d.accounts.byIds(ids)).map((a) => [a.id, a]));
        return json(200, await d.views.many(ids.flatMap((id) => byId.get(id) ?? [])));
      },
    }),
  ];
}
