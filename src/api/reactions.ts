// Emoji reactions through Pleroma's API (what Akkoma/Pleroma clients such as Pleroma-FE, Husky and Fedilab use):
// react, take a reaction back, and list a status's reactions with who reacted. A reaction is a Unicode emoji, or a
// remote custom emoji named as Akkoma names it (`blobcat@host`, colons allowed around it) that someone has already
// reacted with on that status (we have no emoji of our own, and learn a custom one's image from its reactions).
import { Errors } from '../errors.js';
import type { InteractionService } from '../services/interaction-service.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Principal, type Reply, type Route } from '../http/types.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { isEmoji, SHORTCODE, type ReactionEmoji, type ReactionStore } from '../store/reactions.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { AccountViews } from '../views/account-views.js';
import type { StatusViews } from '../views/status-views.js';
import { memberAccount, viewerOf } from './callers.js';

export interface ReactionApiDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly reactions: ReactionStore;
  readonly service: InteractionService;
  readonly views: StatusViews;
  readonly accountViews: AccountViews;
}

export function reactionRoutes(d: ReactionApiDeps): Route[] {
  const visible = async (req: Request, viewerId: string | null): Promise<Status> => {
    const s = await d.statuses.readable(req.params['id']!, viewerId, true);
    if (!s) throw Errors.notFound();
    return s;
  };
  /** The reaction's name from the path: a Unicode emoji or `shortcode@host`. */
  const nameOf = (req: Request): string => {
    // The router has already percent-decoded the segment.
    const raw = req.params['emoji']!.normalize('NFC');
    if (isEmoji(raw)) return raw;
    // Akkoma's `:shortcode@host:`, or without the colons; the host may carry a port.
    const bare = raw.length > 2 && raw.startsWith(':') && raw.endsWith(':') ? raw.slice(1, -1) : raw;
    const m = /^([^@]+)@([a-z0-9.-]+(?::\d{1,5})?)$/i.exec(bare);
    if (m && SHORTCODE.test(m[1]!)) return `${m[1]}@${m[2]!.toLowerCase()}`;
    throw Errors.validation('The reaction must be one Unicode emoji or a custom emoji as name@domain');
  };
  const emojiOf = async (req: Request, s: Status): Promise<ReactionEmoji> => {
    const name = nameOf(req);
    if (isEmoji(name)) return { name, url: null };
    const custom = await d.reactions.customEmoji(s.id, name);
    if (!custom) throw Errors.validation('Custom emoji can only be used when someone has already reacted with them on this status');
    return custom;
  };
  const list = async (req: Request, who: Principal | null): Promise<Reply> => {
    const viewerId = viewerOf(who);
    const s = await visible(req, viewerId);
    const only = req.params['emoji'] === undefined ? null : nameOf(req);
    const summaries = ((await d.reactions.summaries([s.id], viewerId)).get(s.id) ?? []).filter((r) => only === null || r.name === only);
    const accounts = new Map((await d.accounts.byIds(summaries.flatMap((r) => r.accountIds))).map((a) => [a.id, a]));
    const out = [];
    for (const r of summaries) {
      const people = r.accountIds.map((id) => accounts.get(id)).filter((a): a is Account => !!a && !a.deletedAt);
      out.push({ name: r.name, count: r.count, me: r.me, url: r.url, accounts: await d.accountViews.many(people) });
    }
    return json(200, out);
  };

  return [
    // Pleroma's EmojiReactionController asks write:statuses (not write:favourites) to react or take a reaction back.
    route({
      method: 'PUT',
      path: '/api/v1/pleroma/statuses/:id/reactions/:emoji',
      auth: { scopes: ['write:statuses'], member: true },
      body: true,
      handler: async (req, who) => {
        const member = await memberAccount(d.accounts, who);
        const s = await visible(req, member.id);
        const emoji = await emojiOf(req, s);
        if (
          !(await d.service.react(member, s, emoji)) &&
          !(await d.reactions.summaries([s.id], member.id)).get(s.id)?.some((r) => r.name === emoji.name && r.me)
        ) {
          throw Errors.validation('Too many different reactions on this status');
        }
        return json(200, await d.views.one(s, member.id));
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/pleroma/statuses/:id/reactions/:emoji',
      auth: { scopes: ['write:statuses'], member: true },
      handler: async (req, who) => {
        const member = await memberAccount(d.accounts, who);
        const s = await visible(req, member.id);
        await d.service.unreact(member, s, nameOf(req));
        return json(200, await d.views.one(s, member.id));
      },
    }),
    route({ method: 'GET', path: '/api/v1/pleroma/statuses/:id/reactions', auth: { scopes: ['read:statuses'], optional: true }, handler: list }),
    route({ method: 'GET', path: '/api/v1/pleroma/statuses/:id/reactions/:emoji', auth: { scopes: ['read:statuses'], optional: true }, handler: list }),
  ];
}
