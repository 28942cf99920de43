// Lists: create, rename, delete, their members (accounts the owner follows), the lists an account is in, and a
// list's timeline. Another member's list does not exist for you (404).
import { z } from 'zod';
import { Errors } from '../errors.js';
import { linkHeader, pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json, jsonPieces } from '../http/respond.js';
import { route, type MemberPrincipal, type Route, updateRoute } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import { REPLIES_POLICIES, type List, type ListStore } from '../store/lists.js';
import type { StatusStore } from '../store/statuses.js';
import type { TimelineStore } from '../store/timelines.js';
import type { RefPage } from '../store/ref-pages.js';
import type { AccountViews } from '../views/account-views.js';
import { given, idParam, invalid, railsBool } from './params.js';
import type { StatusViews } from '../views/status-views.js';
import { isId } from '../store/ids.js';
import { pushStatusesJson } from '../views/status-json.js';

const ListBody = z.object({
  title: z.string().trim().min(1, "Title can't be blank").max(100, 'Title is too long (maximum is 100 characters)'),
  replies_policy: z.enum(REPLIES_POLICIES).optional(),
  exclusive: railsBool.optional(),
});
const id = idParam;
const AccountIds = z.object({ account_ids: z.union([id, z.array(id).min(1).max(100)]).transform((v) => (Array.isArray(v) ? v : [v])) });

export interface ListApiDeps {
  readonly baseUrl: string;
  readonly lists: ListStore;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  /** Pages named by refs (status-views.ts inContextRefs). */
  readonly timelines: TimelineStore<RefPage>;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
}

const entity = (l: List) => ({ id: l.id, title: l.title, replies_policy: l.repliesPolicy, exclusive: l.exclusive });

export function listRoutes(d: ListApiDeps): Route[] {
  /** The caller's list named by :id; another member's list, or none, is not found. */
  const own = async (req: Request, who: MemberPrincipal): Promise<List> => {
    const owner = who.record.user.accountId;
    const listId = req.params['id']!;
    const l = isId(listId) ? await d.lists.one(owner, listId) : undefined;
    if (!l) throw Errors.notFound();
    return l;
  };
  const validation = (e: z.ZodError) => invalid(e);

  return [
    route({
      method: 'GET',
      path: '/api/v1/lists',
      auth: { scopes: ['read:lists'], member: true },
      handler: async (_req, who) => json(200, (await d.lists.of(who.record.user.accountId)).map(entity)),
    }),
    route({
      method: 'GET',
      path: '/api/v1/lists/:id',
      auth: { scopes: ['read:lists'], member: true },
      handler: async (req, who) => json(200, entity(await own(req, who))),
    }),
    route({
      method: 'POST',
      path: '/api/v1/lists',
      auth: { scopes: ['write:lists'], member: true },
      body: true,
      handler: async (req, who) => {
        const owner = who.record.user.accountId;
        const p = ListBody.safeParse(given(req.fields));
        if (!p.success) throw validation(p.error);
        const l = await d.lists.create(owner, p.data.title, p.data.replies_policy ?? 'list', p.data.exclusive ?? false);
        if (!l) throw Errors.validation('You have reached the maximum number of lists');
        return json(200, entity(l));
      },
    }),
    ...updateRoute({
      path: '/api/v1/lists/:id',
      auth: { scopes: ['write:lists'], member: true },
      body: true,
      handler: async (req, who) => {
        const l = await own(req, who);
        const p = ListBody.partial().safeParse(given(req.fields));
        if (!p.success) throw validation(p.error);
        return json(
          200,
          entity((await d.lists.update(l.accountId, l.id, { title: p.data.title, repliesPolicy: p.data.replies_policy, exclusive: p.data.exclusive }))!),
        );
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/lists/:id',
      auth: { scopes: ['write:lists'], member: true },
      handler: async (req, who) => {
        const l = await own(req, who);
        await d.lists.remove(l.accountId, l.id);
        return json(200, {});
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/lists/:id/accounts',
      auth: { scopes: ['read:lists'], member: true },
      handler: async (req, who) => {
        const l = await own(req, who);
        // limit=0 is every member at once, without Link (Mastodon's `unlimited?`).
        const page = req.query['limit'] === '0' ? null : pageQuery(req.query, 40, 80);
        const ids = await d.lists.members(l.id, page);
        const byId = new Map((await d.accounts.byIds(ids)).map((a) => [a.id, a]));
        const ordered = ids.map((i) => byId.get(i)).filter((a): a is NonNullable<typeof a> => !!a);
        return json(200, await d.accountViews.many(ordered), page ? linkHeader(d.baseUrl + req.path, page, ids) : undefined);
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/lists/:id/accounts',
      auth: { scopes: ['write:lists'], member: true },
      body: true,
      handler: async (req, who) => {
        const l = await own(req, who);
        const p = AccountIds.safeParse(req.fields);
        if (!p.success) throw validation(p.error);
        const r = await d.lists.add(l, p.data.account_ids);
        if (r.notFollowed.length)
          throw Errors.unprocessable('Validation failed: you can only add accounts you follow', `Not followed: ${r.notFollowed.join(', ')}`);
        if (r.full) throw Errors.validation('The list has reached the maximum number of accounts');
        return json(200, {});
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/lists/:id/accounts',
      auth: { scopes: ['write:lists'], member: true },
      body: true,
      handler: async (req, who) => {
        const l = await own(req, who);
        const p = AccountIds.safeParse({ ...req.query, ...(req.fields as object) });
        if (!p.success) throw validation(p.error);
        await d.lists.removeAccounts(l.id, p.data.account_ids);
        return json(200, {});
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/accounts/:id/lists',
      auth: { scopes: ['read:lists'], member: true },
      handler: async (req, who) => {
        const owner = who.record.user.accountId;
        const other = req.params['id']!;
        if (!isId(other)) throw Errors.notFound();
        return json(200, (await d.lists.containing(owner, other)).map(entity));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/timelines/list/:id',
      auth: { scopes: ['read:lists'], member: true },
      handler: async (req, who) => {
        const owner = who.record.user.accountId;
        const id = req.params['id']!;
        const page = pageQuery(req.query, 20, 40);
        // The list's own row is read in the page's statement: none, the list is not the member's.
        const list = isId(id) ? await d.timelines.listTimeline(id, owner, page) : undefined;
        if (!list) throw Errors.notFound();
        return jsonPieces(
          200,
          pushStatusesJson(await d.statusViews.inContextRefs(list, owner, 'home'), []),
          timelineLinks(
            d.baseUrl + req.path,
            page,
            list.refs.map((s) => s.id),
          ),
        );
      },
    }),
  ];
}
