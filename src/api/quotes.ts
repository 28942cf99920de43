// The quotes of a member's status (Mastodon 4.5): GET /api/v1/statuses/:id/quotes lists the statuses quoting it that
// the caller may read, for its author only (Mastodon's StatusPolicy#list_quotes?: anyone else gets 403); POST
// /api/v1/statuses/:id/quotes/:quoting_status_id/revoke lets the author withdraw a quote (store/quotes.ts) and answers
// the quoting status as it now is; PUT /api/v1/statuses/:id/interaction_policy sets who may quote it (its
// quote_approval).
import { z } from 'zod';
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import { json, jsonPieces } from '../http/respond.js';
import { route, type MemberPrincipal, type Route, updateRoute } from '../http/types.js';
import type { Request } from '../http/request.js';
import { isId } from '../store/ids.js';
import type { QuoteStore } from '../store/quotes.js';
import { QUOTE_POLICIES, type Status, type StatusStore } from '../store/statuses.js';
import { given } from './params.js';
import { pushStatusesJson } from '../views/status-json.js';
import type { StatusViews } from '../views/status-views.js';

/** Mastodon's DEFAULT_STATUSES_LIMIT; limit_param caps at twice that. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 40;

/** Mastodon's Api::InteractionPoliciesConcern: public, followers or nobody (absent: public, Stoa's default). */
const Policy = z.object({ quote_approval_policy: z.enum(QUOTE_POLICIES).optional() });

export interface QuoteApiDeps {
  readonly baseUrl: string;
  readonly statuses: StatusStore;
  readonly quotes: QuoteStore;
  readonly views: StatusViews;
}

export function quoteRoutes(d: QuoteApiDeps): Route[] {
  /** The caller's own status: one they cannot read is 404 (as Mastodon's set_status), another's 403. */
  const ownStatus = async (req: Request, who: MemberPrincipal): Promise<Status> => {
    const me = who.record.user.accountId;
    const s = await d.statuses.readable(req.params['id']!, me);
    if (!s || s.reblogOfId) throw Errors.notFound();
    if (s.accountId !== me) throw Errors.forbidden();
    return s;
  };
  /** PUT (and PATCH: Rails routes both to update) /api/v1/statuses/:id/interaction_policy: the author's own status only. */
  const setPolicy = updateRoute({
    path: '/api/v1/statuses/:id/interaction_policy',
    auth: { scopes: ['write:statuses'], member: true },
    body: true,
    handler: async (req, who) => {
      const s = await ownStatus(req, who);
      const p = Policy.safeParse(given(req.fields));
      // Mastodon raises RecordInvalid on a value it does not know.
      if (!p.success) throw Errors.unprocessable('Record invalid');
      await d.quotes.setPolicy(s.id, p.data.quote_approval_policy ?? 'public');
      const me = who.record.user.accountId;
      return json(200, await d.views.one((await d.statuses.readable(s.id, me))!, me));
    },
  });
  return [
    ...setPolicy,
    route({
      method: 'GET',
      path: '/api/v1/statuses/:id/quotes',
      auth: { scopes: ['read:statuses'], member: true },
      handler: async (req, who) => {
        const s = await ownStatus(req, who);
        const page = pageQuery(req.query, DEFAULT_LIMIT, MAX_LIMIT);
        const me = who.record.user.accountId;
        const list = await d.quotes.page(s.id, me, page);
        const entities = await d.views.many(list, me);
        return jsonPieces(
          200,
          pushStatusesJson(entities, []),
          timelineLinks(
            d.baseUrl + req.path,
            page,
            list.map((q) => q.id),
          ),
        );
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/statuses/:id/quotes/:quoting_status_id/revoke',
      auth: { scopes: ['write:statuses'], member: true },
      handler: async (req, who) => {
        const s = await ownStatus(req, who);
        const quotingId = req.params['quoting_status_id']!;
        if (!isId(quotingId) || !(await d.quotes.revoke(s.id, quotingId))) throw Errors.notFound();
        const me = who.record.user.accountId;
        const quoting = await d.statuses.readable(quotingId, me);
        if (!quoting) return json(200, {});
        return json(200, await d.views.one(quoting, me));
      },
    }),
  ];
}
