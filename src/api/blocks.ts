// Blocking and muting accounts, and the member's lists of blocked and muted accounts. A block ends follows both
// ways and is sent to the blocked account's server; a mute stays here (optionally with notifications, optionally
// for a time).
import { z } from 'zod';
import { relationshipEntity } from '../entities/relationship.js';
import { Errors } from '../errors.js';
import { linkHeader, pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type MemberPrincipal, type Reply, type Route } from '../http/types.js';
import type { Account } from '../store/accounts.js';
import type { MuteStore } from '../store/mutes.js';
import type { AccountApiDeps } from './deps.js';
import { given, invalid, railsBool } from './params.js';
import { isId } from '../store/ids.js';
import { memberAccount } from './callers.js';

const MAX_MUTE_SECONDS = 10 * 365 * 86_400;

const MuteBody = z.object({
  notifications: railsBool.optional(),
  duration: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,12}$/)
        .transform(Number),
    ])
    .optional(),
});

export function blockRoutes(d: AccountApiDeps & { readonly mutes: MuteStore }): Route[] {
  type MemberHandler = (req: Request, who: MemberPrincipal) => Promise<Reply>;
  const target = async (req: Request): Promise<Account> => {
    const id = req.params['id']!;
    const a = isId(id) ? await d.accounts.byId(id) : undefined;
    if (!a || a.deletedAt || a.instanceActor || (a.domain === null && !a.hasUser)) throw Errors.notFound();
    return a;
  };
  const act =
    (fn: (viewer: Account, other: Account, req: Request) => Promise<void>): MemberHandler =>
    async (req, who) => {
      const viewer = await memberAccount(d.accounts, who);
      const other = await target(req);
      await fn(viewer, other, req);
      return json(200, relationshipEntity((await d.follows.relationships(viewer.id, [other.id]))[0]!));
    };
  const list =
    (kind: 'blocks' | 'mutes'): MemberHandler =>
    async (req, who) => {
      const viewer = await memberAccount(d.accounts, who);
      const page = pageQuery(req.query, 40, 80);
      const rows = await d.mutes.page(kind, viewer.id, page);
      const accounts = new Map((await d.accounts.byIds(rows.map((r) => r[1]))).map((a) => [a.id, a]));
      const shown = rows.filter((r) => accounts.has(r[1]));
      const entities = await d.views.many(shown.map((r) => accounts.get(r[1])!));
      // Muted accounts carry when the mute ends, as Mastodon's MutedAccountSerializer adds it.
      const body = kind === 'mutes' ? entities.map((e, i) => ({ ...e, mute_expires_at: shown[i]![2]?.toISOString() ?? null })) : entities;
      return json(
        200,
        body,
        linkHeader(
          `${d.config.baseUrl}/api/v1/${kind}`,
          page,
          rows.map((r) => r[0]),
        ),
      );
    };

  return [
    route({
      method: 'POST',
      path: '/api/v1/accounts/:id/block',
      auth: { scopes: ['write:blocks', 'follow'], member: true },
      body: true,
      handler: act((v, o) => d.followService.block(v, o)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/accounts/:id/unblock',
      auth: { scopes: ['write:blocks', 'follow'], member: true },
      body: true,
      handler: act((v, o) => d.followService.unblock(v, o)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/accounts/:id/mute',
      auth: { scopes: ['write:mutes', 'follow'], member: true },
      body: true,
      handler: act(async (v, o, req) => {
        if (v.id === o.id) throw Errors.forbidden('You cannot mute yourself');
        const p = MuteBody.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const seconds = p.data.duration ?? 0;
        if (seconds < 0 || seconds > MAX_MUTE_SECONDS) throw Errors.validation('duration is out of range');
        await d.mutes.mute(v.id, o.id, p.data.notifications ?? true, seconds > 0 ? new Date(Date.now() + seconds * 1000) : null);
      }),
    }),
    route({
      method: 'POST',
      path: '/api/v1/accounts/:id/unmute',
      auth: { scopes: ['write:mutes', 'follow'], member: true },
      body: true,
      handler: act((v, o) => d.mutes.unmute(v.id, o.id)),
    }),
    route({ method: 'GET', path: '/api/v1/blocks', auth: { scopes: ['read:blocks', 'follow'], member: true }, handler: list('blocks') }),
    route({ method: 'GET', path: '/api/v1/mutes', auth: { scopes: ['read:mutes', 'follow'], member: true }, handler: list('mutes') }),
  ];
}
