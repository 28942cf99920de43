// Direct-message conversations (/api/v1/conversations): the member's list with Link-header pages, marking one
// read (or unread again: Mastodon's undocumented `…/unread`), removing one from the list (REST::ConversationSerializer: id, unread, accounts, last_status).
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { AccountStore } from '../store/accounts.js';
import type { Conversation, ConversationStore } from '../store/conversations.js';
import { isId } from '../store/ids.js';
import type { StatusStore } from '../store/statuses.js';
import type { AccountViews } from '../views/account-views.js';
import type { StatusViews } from '../views/status-views.js';
import { renderConversations } from '../views/conversation-views.js';

export interface ConversationApiDeps {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly conversations: ConversationStore;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
}

export function conversationRoutes(d: ConversationApiDeps): Route[] {
  const id = (req: Request): string => {
    const v = req.params['id']!;
    if (!isId(v)) throw Errors.notFound();
    return v;
  };

  const render = (list: readonly Conversation[], viewer: string) => renderConversations(d, list, viewer);

  return [
    route({
      method: 'GET',
      path: '/api/v1/conversations',
      auth: { scopes: ['read:statuses'], member: true },
      handler: async (req, who) => {
        const viewer = who.record.user.accountId;
        const page = pageQuery(req.query, 20, 40);
        const list = await d.conversations.list(viewer, page);
        return json(
          200,
          await render(list, viewer),
          timelineLinks(
            d.baseUrl + req.path,
            page,
            list.map((c) => c.lastStatusId),
          ),
        );
      },
    }),
    ...(['read', 'unread'] as const).map((mark) =>
      route({
        method: 'POST',
        path: `/api/v1/conversations/:id/${mark}`,
        auth: { scopes: ['write:conversations'], member: true },
        body: true,
        handler: async (req, who) => {
          const viewer = who.record.user.accountId;
          const c = await d.conversations.setUnread(viewer, id(req), mark === 'unread');
          if (!c) throw Errors.notFound();
          return json(200, (await render([c], viewer))[0]);
        },
      }),
    ),
    route({
      method: 'DELETE',
      path: '/api/v1/conversations/:id',
      auth: { scopes: ['write:conversations'], member: true },
      handler: async (req, who) => {
        if (!(await d.conversations.remove(who.record.user.accountId, id(req)))) throw Errors.notFound();
        return json(200, {});
      },
    }),
  ];
}
