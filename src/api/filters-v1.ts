// Mastodon's v1 filters API, kept as Mastodon keeps it over the v2 model: a v1 filter is one keyword (its id is the
// keyword's), with its filter's context and expiry, `irreversible` meaning the filter hides. Creating one makes a
// filter titled by its phrase holding that keyword; changing the filter's own settings through v1 is refused when
// the filter holds more than one keyword (they would change for every keyword).
import { z } from 'zod';
import { Errors } from '../errors.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Route, updateRoute } from '../http/types.js';
import type { Filter, FilterKeyword, FilterStore } from '../store/filters.js';
import { isId } from '../store/ids.js';
import { context, expiresIn, expiryOf, keyword } from './filter-params.js';
import { written } from './filters.js';
import { invalid, railsBool } from './params.js';
import { memberIdOf } from './callers.js';

const V1Body = z.object({
  phrase: keyword,
  context,
  irreversible: railsBool.optional(),
  whole_word: railsBool.optional(),
  expires_in: expiresIn.optional(),
});

export interface FilterV1Deps {
  readonly filters: FilterStore;
}

const v1Entity = (f: Filter, k: FilterKeyword) => ({
  id: k.id,
  phrase: k.keyword,
  context: f.context,
  whole_word: k.wholeWord,
  expires_at: f.expiresAt ? f.expiresAt.toISOString() : null,
  irreversible: f.action === 'hide',
});

export function filterV1Routes(d: FilterV1Deps): Route[] {
  /** The member's keyword named by :id, with its filter. */
  const own = async (req: Request, who: MemberPrincipal): Promise<{ f: Filter; k: FilterKeyword }> => {
    const id = req.params['id']!;
    if (!isId(id)) throw Errors.notFound();
    const k = await d.filters.keyword(memberIdOf(who), id);
    const f = k && (await d.filters.one(memberIdOf(who), k.filterId));
    if (!k || !f) throw Errors.notFound();
    return { f, k };
  };
  const parse = <T extends z.ZodTypeAny>(schema: T, v: unknown): z.infer<T> => {
    const p = schema.safeParse(v);
    if (!p.success) throw invalid(p.error);
    return p.data;
  };

  return [
    route({
      method: 'GET',
      path: '/api/v1/filters',
      auth: { scopes: ['read:filters'], member: true },
      handler: async (_req, who) =>
        json(
          200,
          (await d.filters.of(memberIdOf(who))).flatMap((f) => f.keywords.map((k) => v1Entity(f, k))),
        ),
    }),
    route({
      method: 'GET',
      path: '/api/v1/filters/:id',
      auth: { scopes: ['read:filters'], member: true },
      handler: async (req, who) => {
        const { f, k } = await own(req, who);
        return json(200, v1Entity(f, k));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/filters',
      auth: { scopes: ['write:filters'], member: true },
      body: true,
      handler: async (req, who) => {
        const p = parse(V1Body, req.fields);
        const f = written(
          await d.filters.create(
            memberIdOf(who),
            { title: p.phrase, context: p.context, action: p.irreversible ? 'hide' : 'warn', expiresAt: expiryOf(p.expires_in ?? null) },
            [{ keyword: p.phrase, wholeWord: p.whole_word ?? true }],
          ),
        );
        return json(200, v1Entity(f, f.keywords[0]!));
      },
    }),
    ...updateRoute({
      path: '/api/v1/filters/:id',
      auth: { scopes: ['write:filters'], member: true },
      body: true,
      handler: async (req, who) => {
        const { f, k } = await own(req, who);
        const p = parse(V1Body.partial(), req.fields);
        const action = p.irreversible === undefined ? undefined : p.irreversible ? ('hide' as const) : ('warn' as const);
        const expiresAt = p.expires_in === undefined ? undefined : expiryOf(p.expires_in);
        const changesFilter = p.context !== undefined || action !== undefined || expiresAt !== undefined;
        if (changesFilter && f.keywords.length > 1)
          throw Errors.unprocessable('Validation failed: this filter has several keywords, change it with the v2 filters API');
        const changed = written(
          await d.filters.update(memberIdOf(who), f.id, { context: p.context, action, expiresAt }, [{ id: k.id, keyword: p.phrase, wholeWord: p.whole_word }]),
        );
        return json(200, v1Entity(changed, changed.keywords.find((x) => x.id === k.id)!));
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/filters/:id',
      auth: { scopes: ['write:filters'], member: true },
      handler: async (req, who) => {
        const { k } = await own(req, who);
        await d.filters.removeKeyword(k.id);
        return json(200, {});
      },
    }),
  ];
}
