// Conversations as Mastodon's Conversation entities (REST::ConversationSerializer), for the REST list and streaming.
import type { AccountStore } from '../store/accounts.js';
import type { Conversation } from '../store/conversations.js';
import type { StatusStore } from '../store/statuses.js';
import type { AccountViews } from './account-views.js';
import type { StatusViews } from './status-views.js';

export interface ConversationViewDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly accountViews: AccountViews;
  readonly statusViews: StatusViews;
}

/** Conversations as entities: the other participants (oneself for a note to oneself) and the last status if readable. */
export async function renderConversations(d: ConversationViewDeps, list: readonly Conversation[], viewer: string) {
  const accountRows = (await d.accounts.byIds([...new Set(list.flatMap((c) => (c.participantIds.length ? c.participantIds : [c.accountId])))])).filter(
    (a) => !a.deletedAt,
  );
  const accounts = new Map((await d.accountViews.many(accountRows)).map((e) => [e.id, e]));
  const readable = [];
  for (const s of await d.statuses.byIds(list.map((c) => c.lastStatusId))) if (await d.statuses.canSee(s, viewer)) readable.push(s);
  const statuses = new Map((await d.statusViews.many(readable, viewer)).map((e) => [e.id, e]));
  return list.map((c) => ({
    id: c.id,
    unread: c.unread,
    accounts: (c.participantIds.length ? c.participantIds : [c.accountId]).flatMap((p) => accounts.get(p) ?? []),
    last_status: statuses.get(c.lastStatusId) ?? null,
  }));
}
