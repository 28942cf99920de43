// Search (GET /api/v2/search): accounts by name or handle, statuses by their words (PostgreSQL full-text search,
// only what the member may read), hashtags by prefix. With resolve=true a member can look up a remote handle or
// the URL of a remote actor or public post, which is then fetched through federation.
import { FetchError } from '../federation/fetch-errors.js';
import type { LocalUris } from '../federation/local-uris.js';
import type { NoteHandlers } from '../federation/note-handlers.js';
import type { RemoteActors } from '../federation/remote-actors.js';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import type { Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { BearerAuth, Requirement } from '../oauth/bearer.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { AccountViews } from './account-views.js';
import { flag } from './params.js';
import type { StatusViews } from './status-views.js';
import { isId } from '../store/ids.js';

const READ: Requirement = { scopes: ['read:search'], user: false };
const HANDLE = /^@?([A-Za-z0-9_.-]{1,255})@([A-Za-z0-9.-]{1,253}(?::\d{1,5})?)$/;
const TYPES = new Set(['accounts', 'statuses', 'hashtags']);

export interface SearchDeps {
  readonly config: { readonly baseUrl: string; readonly localDomain: string };
  readonly log: Logger;
  readonly bearer: BearerAuth;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly remote: RemoteActors;
  readonly notes: NoteHandlers;
  readonly uris: LocalUris;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
}

function count(v: unknown, dflt: number, max: number): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw Errors.badRequest('Pagination values for `offset` and `limit` must be positive');
  return Math.min(n, max);
}

export function searchRoutes(d: SearchDeps): Route[] {
  const hostingDomain = new URL(d.config.baseUrl).host.toLowerCase();
  const visibleAccount = (a: Account | undefined) => (a && !a.deletedAt && !a.instanceActor && (a.domain !== null || a.hasUser) ? a : undefined);

  /** A handle or URL named exactly: found here, or (resolve) fetched; undefined when nothing matches. */
  const exact = async (q: string, resolve: boolean): Promise<{ account?: Account; status?: Status }> => {
    try {
      const h = HANDLE.exec(q);
      if (h) {
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
        const status = await d.statuses.byUri(q);
        if (status || !resolve) return { status };
        try {
          return { account: visibleAccount(await d.remote.byUri(q)) };
        } catch (e) {
          if (!(e instanceof FetchError)) throw e;
          return { status: await d.notes.fetchPublic(q) };
        }
      }
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      d.log.info({ q, reason: e.reason, kind: e.kind }, 'search could not resolve');
    }
    return {};
  };

  const search = async (req: Request) => {
    const viewer = req.headers['authorization'] === undefined ? null : ((await d.bearer.authenticate(req, READ)).record.user?.accountId ?? null);
    const q = typeof req.query['q'] === 'string' ? req.query['q'].trim() : '';
    if (q === '') throw Errors.badRequest('q is required');
    if (q.length > 500) throw Errors.validation('q is too long');
    const type = typeof req.query['type'] === 'string' && TYPES.has(req.query['type']) ? req.query['type'] : undefined;
    const limit = Math.max(1, count(req.query['limit'], 20, 40));
    const offset = count(req.query['offset'], 0, 10_000);
    // Only members make the server fetch from elsewhere (anonymous requests must not make us send requests anywhere).
    const resolve = flag(req.query['resolve']) && viewer !== null;
    const following = flag(req.query['following']) && viewer !== null;
    const accountId = typeof req.query['account_id'] === 'string' && isId(req.query['account_id']) ? req.query['account_id'] : undefined;

    const found = offset === 0 ? await exact(q, resolve) : {};
    let accounts: Account[] = [];
    if (!type || type === 'accounts') {
      const byName = /^[@#]?[\p{L}\p{N}_.\- ]{1,100}$/u.test(q) ? await d.accounts.search(q.replace(/^@/, ''), { limit, offset, followerId: following ? viewer! : undefined }) : [];
      accounts = [...(found.account ? [found.account] : []), ...byName.filter((a) => a.id !== found.account?.id)].slice(0, limit);
    }
    let statuses: Status[] = [];
    if ((!type || type === 'statuses') && viewer !== null) {
      const visible = found.status && (await d.statuses.canSee(found.status, viewer)) ? [found.status] : [];
      const words = /^https?:\/\//i.test(q) ? [] : await d.statuses.search(q, viewer, { limit, offset, accountId });
      statuses = [...visible, ...words.filter((s) => s.id !== visible[0]?.id)].slice(0, limit);
    }
    let hashtags: string[] = [];
    if ((!type || type === 'hashtags') && /^#?[\p{L}\p{M}\p{N}_]{1,100}$/u.test(q)) hashtags = await d.statuses.searchTags(q.replace(/^#/, ''), limit, offset);
    return json(200, {
      accounts: await d.accountViews.many(accounts),
      statuses: await d.statusViews.many(statuses, viewer),
      hashtags: hashtags.map((name) => ({ name, url: d.uris.tag(name), history: [] })),
    });
  };

  return [{ method: 'GET', path: '/api/v2/search', handler: search }];
}
