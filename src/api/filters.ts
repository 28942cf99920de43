// Mastodon's v2 filters API: a member's filters with their keywords and statuses. Another member's filter, keyword
// or status entry does not exist for you (404); invalid input is a 422. Every change is told to the member's user
// streams as `filters_changed` and drops the cached copies on every node (migration 050's triggers).
import { z } from 'zod';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Route, updateRoute } from '../http/types.js';
import type { Filter, FilterKeyword, FilterStatus, FilterStore, FilterWrite } from '../store/filters.js';
import { isId } from '../store/ids.js';
import type { StatusStore } from '../store/statuses.js';
import { filterEntity } from '../views/filter-apply.js';
import { action, context, expiresIn, expiryOf, keyword, keywordsAttributes, title } from './filter-params.js';
import { idParam, invalid, railsBool } from './params.js';
import { memberIdOf } from './callers.js';

const FilterBody = z.object({
  title,
  context,
  filter_action: action.optional(),
  expires_in: expiresIn.optional(),
  keywords_attributes: keywordsAttributes.optional(),
});
const KeywordBody = z.object({ keyword, whole_word: railsBool.optional() });
const StatusBody = z.object({ status_id: idParam });

export interface FilterApiDeps {
  readonly filters: FilterStore;
  readonly statuses: StatusStore;
}

const keywordEntity = (k: FilterKeyword) => ({ id: k.id, keyword: k.keyword, whole_word: k.wholeWord });
const statusEntity = (s: FilterStatus) => ({ id: s.id, status_id: s.statusId });

/** A store write's refusal as the answer Mastodon gives. */
export function written<T>(w: FilterWrite<T>): T {
  if (w.ok) return w.value;
  if (w.reason === 'not-found') throw Errors.notFound();
  if (w.reason === 'too-many') throw Errors.validation('too many filters or keywords');
  throw Errors.validation('the entry is invalid or exists already');
}

export function filterRoutes(d: FilterApiDeps): Route[] {
  const param = (req: Request, name: string): string => {
    const v = req.params[name]!;
    if (!isId(v)) throw Errors.notFound();
    return v;
  };
  const own = async (req: Request, who: MemberPrincipal, name = 'id'): Promise<Filter> => {
    const f = await d.filters.one(memberIdOf(who), param(req, name));
    if (!f) throw Errors.notFound();
    return f;
  };
  const parse = <T extends z.ZodTypeAny>(schema: T, v: unknown): z.infer<T> => {
    const p = schema.safeParse(v);
    if (!p.success) throw invalid(p.error);
    return p.data;
  };
  const read = { scopes: ['read:filters'], member: true } as const;
  const write = { scopes: ['write:filters'], member: true } as const;

  return [
    route({
      method: 'GET',
      path: '/api/v2/filters',
      auth: read,
      handler: async (_req, who) =>
        json(
          200,
          (await d.filters.of(memberIdOf(who))).map((f) => filterEntity(f)),
        ),
    }),
    route({
      method: 'GET',
      path: '/api/v2/filters/:id',
      auth: read,
      handler: async (req, who) => json(200, filterEntity(await own(req, who))),
    }),
    route({
      method: 'POST',
      path: '/api/v2/filters',
      auth: write,
      body: true,
      handler: async (req, who) => {
        const p = parse(FilterBody, req.fields);
        const f = written(
          await d.filters.create(
            memberIdOf(who),
            { title: p.title, context: p.context, action: p.filter_action ?? 'warn', expiresAt: expiryOf(p.expires_in ?? null) },
            p.keywords_attributes ?? [],
          ),
        );
        return json(200, filterEntity(f));
      },
    }),
    ...updateRoute({
      path: '/api/v2/filters/:id',
      auth: write,
      body: true,
      handler: async (req, who) => {
        const id = param(req, 'id');
        const p = parse(FilterBody.partial(), req.fields);
        const f = written(
          await d.filters.update(
            memberIdOf(who),
            id,
            { title: p.title, context: p.context, action: p.filter_action, expiresAt: p.expires_in === undefined ? undefined : expiryOf(p.expires_in) },
            p.keywords_attributes ?? [],
          ),
        );
        return json(200, filterEntity(f));
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v2/filters/:id',
      auth: write,
      handler: async (req, who) => {
        if (!(await d.filters.remove(memberIdOf(who), param(req, 'id')))) throw Errors.notFound();
        return json(200, {});
      },
    }),
    // Keywords.
    route({
      method: 'GET',
      path: '/api/v2/filters/:filter_id/keywords',
      auth: read,
      handler: async (req, who) => json(200, (await own(req, who, 'filter_id')).keywords.map(keywordEntity)),
    }),
    route({
      method: 'POST',
      path: '/api/v2/filters/:filter_id/keywords',
      auth: write,
      body: true,
      handler: async (req, who) => {
        const f = await own(req, who, 'filter_id');
        const p = parse(KeywordBody, req.fields);
        return json(200, keywordEntity(written(await d.filters.addKeyword(f.id, p.keyword, p.whole_word ?? true))));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v2/filters/keywords/:id',
      auth: read,
      handler: async (req, who) => {
        const k = await d.filters.keyword(memberIdOf(who), param(req, 'id'));
        if (!k) throw Errors.notFound();
        return json(200, keywordEntity(k));
      },
    }),
    ...updateRoute({
      path: '/api/v2/filters/keywords/:id',
      auth: write,
      body: true,
      handler: async (req, who) => {
        const k = await d.filters.keyword(memberIdOf(who), param(req, 'id'));
        if (!k) throw Errors.notFound();
        const p = parse(KeywordBody.partial(), req.fields);
        const changed = await d.filters.updateKeyword(k.id, p.keyword, p.whole_word);
        if (!changed) throw Errors.notFound();
        return json(200, keywordEntity(changed));
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v2/filters/keywords/:id',
      auth: write,
      handler: async (req, who) => {
        const k = await d.filters.keyword(memberIdOf(who), param(req, 'id'));
        if (!k) throw Errors.notFound();
        await d.filters.removeKeyword(k.id);
        return json(200, {});
      },
    }),
    // Statuses.
    route({
      method: 'GET',
      path: '/api/v2/filters/:filter_id/statuses',
      auth: read,
      handler: async (req, who) => json(200, (await own(req, who, 'filter_id')).statuses.map(statusEntity)),
    }),
    route({
      method: 'POST',
      path: '/api/v2/filters/:filter_id/statuses',
      auth: write,
      body: true,
      handler: async (req, who) => {
        const f = await own(req, who, 'filter_id');
        const p = parse(StatusBody, req.fields);
        // Only a status the member may read can be named (as Mastodon's StatusFinder).
        if (!(await d.statuses.readable(p.status_id, memberIdOf(who)))) throw Errors.validation('Status must exist');
        return json(200, statusEntity(written(await d.filters.addStatus(f.id, p.status_id))));
      },
    }),
    route({
      method: 'GET',
      path: '/api/v2/filters/statuses/:id',
      auth: read,
      handler: async (req, who) => {
        const s = await d.filters.status(memberIdOf(who), param(req, 'id'));
        if (!s) throw Errors.notFound();
        return json(200, statusEntity(s));
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v2/filters/statuses/:id',
      auth: write,
      handler: async (req, who) => {
        const s = await d.filters.status(memberIdOf(who), param(req, 'id'));
        if (!s) throw Errors.notFound();
        await d.filters.removeStatus(s.id);
        return json(200, {});
      },
    }),
  ];
}
