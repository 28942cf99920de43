// Search (GET /api/v2/search): accounts by name or handle, statuses by their words (PostgreSQL full-text search,
// only what the member may read), hashtags by prefix. With resolve=true a member can look up a remote handle or
// the URL of a remote actor or public post, which is then fetched through federation. Parameters, limits and
// refusals are Mastodon's: following (accounts followed, and oneself), account_id (statuses by that author), offset
// (one type at a time, members only), limit (20 by default, at most 40). GET /api/v1/accounts/search is the same
// account search (Mastodon's AccountSearchService serves both) with its own limits: 40 by default, at most 80.
import { z } from 'zod';
import { FetchError } from '../federation/fetch-errors.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { NoteHandlers } from '../federation/note-handlers.js';
import type { RemoteActors } from '../federation/remote-actors.js';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Principal, type Reply, type Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import { isId } from '../store/ids.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { TimelineStore } from '../store/timelines.js';
import type { AccountViews } from '../views/account-views.js';
import { flag } from './params.js';
import type { StatusViews } from '../views/status-views.js';
import type { TagViews } from '../views/tag-views.js';

// A handle named completely: user@domain, @user@domain, or @user (a local one), as Mastodon's username_complete?.
const HANDLE = /^(?:@?([A-Za-z0-9_.-]{1,255})@([A-Za-z0-9.-]{1,253}(?::\d{1,5})?)|@([A-Za-z0-9_.-]{1,255}))$/;
const PAGINATION = 'Pagination values for `offset` and `limit` must be positive';

/** An absent parameter and an empty one are the same to Rails (`params[:x].present?`). */
const absentIfBlank = (v: unknown) => (v === '' ? undefined : v);
const count = (name: string) => {
  const integer = z.string({ message: `${name} must be an integer` }).regex(/^\s*-?\d{1,9}\s*$/, `${name} must be an integer`);
  return z
    .preprocess(
      absentIfBlank,
      integer
        .transform(Number)
        .refine((n) => n >= 0, PAGINATION)
        .optional(),
    )
    .optional();
};
/** Rails' truthy_param?: absent or anything else is false. */
const truthy = z.unknown().optional().transform(flag);

// Mastodon's Api::V2::SearchController parameters. Its limit_param: 20 by default, at most 40, and 0 finds nothing.
const SearchQuery = z.object({
  q: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string({ message: 'q is required' }).min(1, 'q is required').max(500, 'q is too long')),
  type: z
    .preprocess(absentIfBlank, z.enum(['accounts', 'statuses', 'hashtags'], { message: 'type must be accounts, statuses or hashtags' }).optional())
    .optional(),
  limit: count('limit').transform((n) => Math.min(n ?? 20, 40)),
  offset: count('offset'),
  account_id: z
    .preprocess(absentIfBlank, z.string({ message: 'account_id must be an account id' }).refine(isId, 'account_id must be an account id').optional())
    .optional(),
  resolve: truthy,
  following: truthy,
});

// Mastodon's Api::V1::Accounts::SearchController: a blank q finds nothing; limit_param(40) takes the absolute value,
// at most twice the default.
const AccountSearchQuery = z.object({
  q: z.preprocess((v) => (typeof v === 'string' ? v.trim() : ''), z.string().max(500, 'q is too long')),
  limit: z
    .preprocess(
      absentIfBlank,
      z
        .string({ message: 'limit must be an integer' })
        .regex(/^\s*-?\d{1,9}\s*$/, 'limit must be an integer')
        .optional(),
    )
    .optional()
    .transform((v) => (v === undefined ? 40 : Math.min(Math.abs(Number(v)), 80))),
  offset: count('offset').transform((n) => n ?? 0),
  resolve: truthy,
  following: truthy,
});

/** What one account search is asked: Mastodon's AccountSearchService options. */
export interface AccountSearchOptions {
  readonly limit: number;
  readonly offset: number;
  readonly resolve: boolean;
  readonly following: boolean;
}

export interface SearchDeps {
  readonly config: { readonly baseUrl: string; readonly localDomain: string };
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly statuses: StatusStore;
  readonly timelines: TimelineStore;
  readonly remote: RemoteActors;
  readonly notes: NoteHandlers;
  readonly uris: LocalUris;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
  readonly tagViews: TagViews;
}

/** What a search finds, as the API renders it (the page at /search shows the same, web/search-page.ts). */
export interface SearchResults {
  readonly accounts: Awaited<ReturnType<AccountViews['many']>>;
  readonly statuses: Awaited<ReturnType<StatusViews['many']>>;
  readonly hashtags: readonly { readonly name: string; readonly url: string; readonly history: readonly unknown[] }[];
}

/**
 * The search of GET /api/v2/search for a viewer (null: anonymous), from its query parameters; refusals are thrown as
 * the API answers them. routes.ts hands it to the search page too, so both find the same.
 */
export type Search = (query: Readonly<Record<string, unknown>>, viewer: string | null) => Promise<SearchResults>;

export function searchRoutes(d: SearchDeps): Route[] {
  const search = searcher(d);
  const searchAccounts = accountSearcher(d);
  const handler = async (req: Request, who: Principal | null): Promise<Reply> => json(200, await search(req.query, who?.record.user?.accountId ?? null));
  return [
    route({ method: 'GET', path: '/api/v2/search', auth: { scopes: ['read:search'], optional: true }, handler }),
    route({
      method: 'GET',
      path: '/api/v1/accounts/search',
      auth: { scopes: ['read:accounts'], member: true },
      handler: async (req, who) => {
        const parsed = AccountSearchQuery.safeParse(req.query);
        if (!parsed.success) throw Errors.badRequest(parsed.error.issues[0]!.message);
        const { q, ...options } = parsed.data;
        if (q === '' || options.limit === 0) return json(200, []);
        return json(200, await d.accountViews.many(await searchAccounts(q, who.record.user.accountId, options)));
      },
    }),
  ];
}

const visibleAccount = (a: Account | undefined) =>
  a && !a.deletedAt && !a.suspendedAt && !a.instanceActor && (a.domain !== null || a.hasUser) ? a : undefined;

/**
 * A handle or URL named exactly: found here, or (resolve) fetched through WebFinger or the URL; nothing when nothing
 * matches. Handles are looked up only when accounts are wanted, URLs when accounts or statuses are.
 */
function exactFinder(d: SearchDeps) {
  const hostingDomain = new URL(d.config.baseUrl).host.toLowerCase();
  return async (q: string, resolve: boolean, wantAccounts: boolean, wantStatuses = true): Promise<{ account?: Account; status?: Status }> => {
    try {
      const h = HANDLE.exec(q);
      if (h) {
        if (!wantAccounts) return {};
        if (h[3]) return { account: visibleAccount(await d.accounts.byHandle(h[3], null)) };
        const domain = h[2]!.toLowerCase();
        const local = domain === d.config.localDomain || domain === hostingDomain;
        const known = visibleAccount(await d.accounts.byHandle(h[1]!, local ? null : domain));
        if (known || local || !resolve) return { account: known };
        return { account: visibleAccount(await d.remote.byHandle(h[1]!, domain)) };
      }
      if (/^https?:\/\//i.test(q)) {
        const localStatus = d.uris.statusIdOf(q) ?? /\/@[A-Za-z0-9_]+\/(\d{1,19})$/.exec(q)?.[1];
        if (d.uris.isLocal(q)) {
          if (localStatus) return { status: await d.statuses.byId(localStatus) };
          const name = d.uris.usernameOf(q) ?? /\/@([A-Za-z0-9_]+)$/.exec(q)?.[1];
          return { account: name ? visibleAccount(await d.accounts.byHandle(name, null)) : undefined };
        }
        const account = visibleAccount(await d.accounts.byUri(q));
        if (account) return { account };
        const status = wantStatuses ? await d.statuses.byUri(q) : undefined;
        if (status || !resolve) return { status };
        try {
          return { account: visibleAccount(await d.remote.byUri(q)) };
        } catch (e) {
          // Not an actor: a post, when posts are searched for (an account search fetches none).
          if (!(e instanceof FetchError) || !wantStatuses) throw e;
          return { status: await d.notes.fetchPublic(q) };
        }
      }
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      d.log.info({ q, reason: e.reason, kind: e.kind }, 'search could not resolve');
    }
    return {};
  };
}

/**
 * Mastodon's AccountSearchService, for GET /api/v2/search and GET /api/v1/accounts/search alike: a handle named
 * completely first (fetched with resolve), then the accounts whose names start with the query's words; `following`
 * keeps the accounts the viewer follows, and the viewer (Account::Search's first_degree).
 */
export function accountSearcher(d: SearchDeps) {
  const exact = exactFinder(d);
  const followedBy = async (viewer: string, a: Account) => a.id === viewer || (await d.follows.find('follows', viewer, a.id)) !== undefined;
  /** `looked`: what the caller's own exact lookup found (GET /api/v2/search looks once for accounts and statuses). */
  return async (q: string, viewer: string | null, o: AccountSearchOptions, looked?: { account?: Account }): Promise<Account[]> => {
    const following = o.following && viewer !== null;
    const found = looked ? looked.account : o.offset === 0 ? (await exact(q, o.resolve, true, false)).account : undefined;
    const first = found && (!following || (await followedBy(viewer!, found))) ? found : undefined;
    const byName = /^[@#]?[\p{L}\p{N}_.\- ]{1,100}$/u.test(q)
      ? await d.accounts.search(q.replace(/^@/, ''), { limit: o.limit, offset: o.offset, followerId: following ? viewer! : undefined })
      : [];
    return [...(first ? [first] : []), ...byName.filter((a) => a.id !== first?.id)].slice(0, o.limit);
  };
}

export function searcher(d: SearchDeps): Search {
  const exact = exactFinder(d);
  const searchAccounts = accountSearcher(d);

  return async (query, viewer) => {
    const parsed = SearchQuery.safeParse(query);
    // In Mastodon's order: q first, then the refusals to anonymous searches, then the other parameters.
    const badQuery = parsed.error?.issues.find((i) => i.path[0] === 'q');
    if (badQuery) throw Errors.badRequest(badQuery.message);
    // Paging and fetching from elsewhere are for members (anonymous requests must not make us send requests).
    if (viewer === null) {
      if (absentIfBlank(query['offset']) !== undefined) throw Errors.unauthorized('Search queries pagination is not supported without authentication');
      if (flag(query['resolve'])) throw Errors.unauthorized('Search queries that resolve remote resources are not supported without authentication');
    }
    if (!parsed.success) throw Errors.badRequest(parsed.error.issues[0]!.message);
    const { q, type, limit, account_id: accountId, resolve } = parsed.data;
    const following = parsed.data.following && viewer !== null;
    // As Mastodon's SearchService: an offset pages one type of result; a search of all types starts at 0.
    const offset = type ? (parsed.data.offset ?? 0) : 0;
    if (limit === 0) return { accounts: [], statuses: [], hashtags: [] };
    const wantAccounts = !type || type === 'accounts';
    const wantStatuses = (!type || type === 'statuses') && viewer !== null;

    const found = offset === 0 && (wantAccounts || wantStatuses) ? await exact(q, resolve, wantAccounts, wantStatuses) : {};
    const accounts = wantAccounts ? await searchAccounts(q, viewer, { limit, offset, resolve, following }, found) : [];
    let statuses: Status[] = [];
    if (wantStatuses) {
      const s = found.status;
      const named = s && (accountId === undefined || s.accountId === accountId) && (await d.statuses.canSee(s, viewer)) ? s : undefined;
      const words = /^https?:\/\//i.test(q) ? [] : await d.timelines.search(q, viewer, { limit, offset, accountId });
      statuses = [...(named ? [named] : []), ...words.filter((w) => w.id !== named?.id)].slice(0, limit);
    }
    let hashtags: { id: string; name: string }[] = [];
    if ((!type || type === 'hashtags') && /^#?[\p{L}\p{M}\p{N}_]{1,100}$/u.test(q)) hashtags = await d.timelines.searchTags(q.replace(/^#/, ''), limit, offset);
    return {
      accounts: await d.accountViews.many(accounts),
      statuses: await d.statusViews.many(statuses, viewer),
      // Tags as everywhere else: their week, and the member's follows and features of them.
      hashtags: await d.tagViews.many(hashtags, viewer),
    };
  };
}
