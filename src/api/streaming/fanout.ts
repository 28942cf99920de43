// Each streamed event, once per node: the rows read after commit, the audience among the clients connected here
// decided by one set-based query (store/stream-audience.ts), the status rendered once (viewer-independent) with
// the author's own rendering and viewers' flags patched in only where they differ, then written to each socket.
// Events are handled one at a time in the order heard, so a client sees update before delete; the queue is bounded,
// and past its bound every client is closed (it reconnects and refetches) rather than an event lost in silence.
// A subscriber whose content filters match a status gets their own payload, or none (stream-filters.ts).
import type { Logger } from '../../log.js';
import type { AnnouncementStore } from '../../store/announcements.js';
import type { ConversationStore } from '../../store/conversations.js';
import type { NotificationStore } from '../../store/notifications.js';
import type { StreamAudienceStore, StatusAudience } from '../../store/stream-audience.js';
import { parseStreamEvent, type StreamEvent } from '../../store/stream-events.js';
import { tagKey, type Status, type StatusStore } from '../../store/statuses.js';
import { renderConversations, type ConversationViewDeps } from '../../views/conversation-views.js';
import { renderNotifications, type NotificationViewDeps } from '../../views/notification-views.js';
import type { AnnouncementViews } from '../../views/announcement-views.js';
import type { StatusViews } from '../../views/status-views.js';
import type { Subscription } from './channels.js';
import { streamContext, type StreamFilters } from './stream-filters.js';
import { readsNotifications, type StreamClient, type StreamHub } from './hub.js';

const MAX_QUEUED = 10_000;

export interface FanoutDeps extends NotificationViewDeps, ConversationViewDeps {
  readonly statuses: StatusStore;
  readonly statusViews: StatusViews;
  readonly notifications: NotificationStore;
  readonly conversations: ConversationStore;
  readonly audience: StreamAudienceStore;
  readonly streamFilters: StreamFilters;
  readonly announcements: AnnouncementStore;
  readonly announcementViews: AnnouncementViews;
}

type Entity = Record<string, unknown>;

export class StreamFanout {
  private readonly queue: StreamEvent[] = [];
  private running = false;

  constructor(
    private readonly hub: StreamHub,
    private readonly d: FanoutDeps,
    private readonly log: Logger,
  ) {}

  /** A payload heard on the stream channel. */
  heard(payload: string): void {
    const e = parseStreamEvent(payload);
    if (!e) return void this.log.warn({ payload: payload.slice(0, 200) }, 'unreadable stream event ignored');
    if (this.hub.clients.size === 0) return; // nobody here to tell: nothing is read
    if (this.queue.length >= MAX_QUEUED) {
      // An event dropped here would be missing from every stream without a word: each client is closed instead, and
      // reconnects and refetches, as when it falls behind on its own socket. What was queued was for them.
      this.log.warn({ queued: this.queue.length, clients: this.hub.clients.size }, 'stream fan-out is behind: every streaming client closed');
      this.queue.length = 0;
      for (const c of [...this.hub.clients]) c.close();
      return;
    }
    this.queue.push(e);
    if (!this.running) void this.drain();
  }

  /** Resolves once every event queued so far is handled (tests and shutdown). */
  get idle(): boolean {
    return !this.running && this.queue.length === 0;
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let e = this.queue.shift(); e; e = this.queue.shift()) {
        try {
          await this.handle(e);
        } catch (err) {
          this.log.error({ err, event: e }, 'stream event not fanned out');
        }
      }
    } finally {
      this.running = false;
    }
  }

  private handle(e: StreamEvent): Promise<void> {
    switch (e.event) {
      case 'update':
      case 'status.update':
        return this.status(e.status, e.event);
      case 'delete':
        return this.deleted(e.status, e.account, e.visibility);
      case 'notification':
        return this.notification(e.notification, e.account);
      case 'conversation':
        return this.conversation(e.conversation, e.account);
      case 'filters_changed':
        return this.filtersChanged(e.account);
      case 'notifications_merged':
        // Mastodon's UnfilterNotificationsWorker: the payload is "1", on the streams that carry notifications.
        for (const c of this.hub.of(e.account)) for (const s of c.subs.values()) if (wantsNotifications(s, c)) c.send(s.stream, e.event, '1');
        return Promise.resolve();
      case 'announcement':
        return this.announcement(e.announcement);
      case 'announcement.delete':
        // Mastodon's UnpublishAnnouncementWorker: the id alone, on every member's user stream.
        this.toEveryMember('announcement.delete', () => e.announcement);
        return Promise.resolve();
      case 'announcement.reaction':
        return this.announcementReaction(e.announcement, e.name);
    }
  }

  private async status(id: string, event: 'update' | 'status.update'): Promise<void> {
    const begun = performance.now();
    const t = this.hub.targets();
    if (!t.any) return;
    const s = await this.d.statuses.byId(id);
    if (!s || s.deletedAt || s.history) return;
    const shownId = s.reblogOfId ?? s.id;
    // The audience and the rendering side by side: one round trip less before the first socket is written to.
    const [aud, [base]] = await Promise.all([this.d.audience.ofStatus(s.id, shownId, t), this.d.statusViews.many([s], null) as Promise<Entity[]>]);
    if (aud.home.size + aud.lists.size === 0 && !((aud.publicFeeds || aud.tagFeeds) && aud.quietFor.size > 0)) return;
    if (!base) return;
    const baseJson = JSON.stringify(base);
    // The author's own rendering (their flags, their poll) is read before the loop, and only if they are connected
    // here: the loop then runs without a single await, one synchronous pass over thousands of sockets.
    const authorHere = !this.hub.of(s.accountId)[Symbol.iterator]().next().done;
    const ownJson = authorHere ? JSON.stringify((await this.d.statusViews.many([s], s.accountId))[0] ?? base) : baseJson;
    // quote_approval.current_user is the viewer's (Mastodon 4.5): rendered for no one, the base says 'denied'; a
    // viewer the policy lets quote gets 'automatic' (a "followers" policy reads the connected viewers' follows once).
    const mayQuote = await this.quoters(s.reblogOfId ? (base['reblog'] as Entity) : base);
    const quotable = (e: Entity): Entity => {
      const approved = { ...(e['quote_approval'] as Entity), current_user: 'automatic' };
      return s.reblogOfId
        ? { ...e, quote_approval: approved, reblog: { ...(e['reblog'] as Entity), quote_approval: approved } }
        : { ...e, quote_approval: approved };
    };
    let quotableJson: string | undefined;
    const patched = new Map<string, string>();
    const payloadFor = (viewer: string): string => {
      if (viewer === s.accountId) return ownJson;
      const fav = aud.favourited.has(viewer);
      const boosted = aud.reblogged.has(viewer);
      const marked = aud.bookmarked.has(viewer);
      const quotes = mayQuote(viewer);
      if (!fav && !boosted && !marked) return quotes ? (quotableJson ??= JSON.stringify(quotable(base))) : baseJson;
      let p = patched.get(viewer);
      if (p === undefined) {
        const flags = { favourited: fav, reblogged: boosted, bookmarked: marked };
        const e = s.reblogOfId ? { ...base, reblog: { ...(base['reblog'] as Entity), ...flags } } : { ...base, ...flags };
        patched.set(viewer, (p = JSON.stringify(quotes ? quotable(e) : e)));
      }
      return p;
    };
    const filtered = await this.d.streamFilters.forStream(this.hub.clients, base, payloadFor);
    const started = performance.now();
    let sent = 0;
    for (const c of [...this.hub.clients]) {
      let payload: string | undefined;
      for (const sub of c.subs.values()) {
        if (!shows(sub, c, s, aud)) continue;
        // Only a viewer whose filters match gets a payload of their own (or none: hidden).
        const own = filtered.size ? filtered.get(`${c.accountId} ${streamContext(sub)}`) : undefined;
        if (own === null) continue;
        c.send(sub.stream, event, own ?? (payload ??= payloadFor(c.accountId)));
        sent++;
      }
    }
    // prepMs: from the event's start to the first send (its reads, rendering and filtering); ms: the sends.
    const ms = Math.round(performance.now() - started);
    this.log.debug({ event, status: s.id, sent, prepMs: Math.round(started - begun), ms }, 'stream event fanned out');
  }

  /** Who among this node's streaming viewers the shown status's quote policy lets quote it (its author always). */
  private async quoters(shown: Entity): Promise<(viewer: string) => boolean> {
    const automatic = ((shown['quote_approval'] as { automatic?: readonly string[] } | undefined)?.automatic ?? []) as readonly string[];
    const author = (shown['account'] as Entity)['id'] as string;
    if (automatic.includes('public')) return () => true;
    if (!automatic.includes('followers')) return (viewer) => viewer === author;
    const followers = await this.d.statuses.followersAmong(author, [...new Set([...this.hub.clients].map((c) => c.accountId))]);
    return (viewer) => viewer === author || followers.has(viewer);
  }

  private async deleted(id: string, authorId: string, visibility: number): Promise<void> {
    const t = this.hub.targets();
    if (!t.any) return;
    const aud = await this.d.audience.ofDelete(id, authorId, visibility, t);
    const s = visibility === 0 && t.public.length > 0 ? await this.d.statuses.byId(id) : undefined;
    for (const c of [...this.hub.clients]) {
      for (const sub of c.subs.values()) {
        const told =
          sub.channel === 'user'
            ? aud.home.has(c.accountId)
            : sub.channel === 'list'
              ? aud.lists.has(sub.list!)
              : s !== undefined && publicScope(sub, s) && (sub.tag === undefined || tagsOf(s).has(sub.tag));
        if (told) c.send(sub.stream, 'delete', id);
      }
    }
    // A boost shown in someone's feed goes with the post it boosts (Mastodon removes it): its own audience is told
    // of it under the boost's id. The boost's author may be anyone, so this is not covered by the audience above.
    for (const b of await this.d.audience.boostsOf(id)) await this.deleted(b.id, b.accountId, b.visibility);
  }

  private async notification(id: string, accountId: string): Promise<void> {
    const listeners = [...this.hub.of(accountId)].filter((c) => [...c.subs.values()].some((s) => wantsNotifications(s, c)));
    if (listeners.length === 0) return;
    // The member's own view of it: gone if filtered (a block, a muted sender's notifications, an unreadable status).
    const n = await this.d.notifications.one(accountId, id);
    if (!n) return;
    const [entity] = await renderNotifications(this.d, [n], accountId);
    if (!entity) return;
    const payload = JSON.stringify(entity);
    for (const c of listeners) for (const s of c.subs.values()) if (wantsNotifications(s, c)) c.send(s.stream, 'notification', payload);
  }

  /** Mastodon's `filters_changed`, on the member's user streams, with no payload. */
  private async filtersChanged(accountId: string): Promise<void> {
    for (const c of this.hub.of(accountId)) for (const s of c.subs.values()) if (s.channel === 'user') c.send(s.stream, 'filters_changed', undefined);
  }

  /** Mastodon's PublishAnnouncementWorker: the announcement as each member sees it, on their user streams. */
  private async announcement(id: string): Promise<void> {
    const members = [...new Set([...this.hub.clients].filter(onUserStream).map((c) => c.accountId))];
    if (members.length === 0) return;
    const a = await this.d.announcements.published(id);
    if (!a) return; // unpublished again before this was heard: its announcement.delete follows
    const payloads = await this.d.announcementViews.renderFor(a, members);
    this.toEveryMember('announcement', (member) => payloads.get(member));
  }

  /** Mastodon's announcement.reaction: `{name, count, announcement_id}`, the same for everyone. */
  private async announcementReaction(id: string, name: string): Promise<void> {
    if (![...this.hub.clients].some(onUserStream)) return;
    const count = await this.d.announcements.reactionCount(id, name);
    const payload = JSON.stringify({ name, count, announcement_id: id });
    this.toEveryMember('announcement.reaction', () => payload);
  }

  private toEveryMember(event: string, payloadFor: (member: string) => string | undefined): void {
    for (const c of [...this.hub.clients]) {
      for (const s of c.subs.values()) {
        if (s.channel !== 'user') continue;
        const p = payloadFor(c.accountId);
        if (p !== undefined) c.send(s.stream, event, p);
      }
    }
  }

  private async conversation(id: string, accountId: string): Promise<void> {
    const listeners = [...this.hub.of(accountId)].filter((c) => [...c.subs.values()].some((s) => s.channel === 'direct'));
    if (listeners.length === 0) return;
    const conv = await this.d.conversations.byId(accountId, id);
    if (!conv) return;
    const [entity] = await renderConversations(this.d, [conv], accountId);
    if (!entity) return;
    const payload = JSON.stringify(entity);
    for (const c of listeners) for (const s of c.subs.values()) if (s.channel === 'direct') c.send(s.stream, 'conversation', payload);
  }
}

function onUserStream(c: StreamClient): boolean {
  for (const s of c.subs.values()) if (s.channel === 'user') return true;
  return false;
}

function wantsNotifications(s: Subscription, c: StreamClient): boolean {
  return s.channel === 'user:notification' || (s.channel === 'user' && readsNotifications(c));
}

const tagSets = new WeakMap<Status, ReadonlySet<string>>();
function tagsOf(s: Status): ReadonlySet<string> {
  let t = tagSets.get(s);
  if (!t) tagSets.set(s, (t = new Set(s.tags.map((x) => tagKey(x)))));
  return t;
}

/** A public or hashtag subscription's local/remote scope admits the status. */
function publicScope(sub: Subscription, s: Status): boolean {
  const ch = sub.channel;
  if (!ch.startsWith('public') && !ch.startsWith('hashtag')) return false;
  if (ch.includes(':local')) return s.local;
  if (ch.includes(':remote')) return !s.local;
  return true;
}

/** Whether one subscription of a client shows the status, by the audience computed for it. */
function shows(sub: Subscription, c: StreamClient, s: Status, aud: StatusAudience): boolean {
  switch (sub.channel) {
    case 'user':
      return aud.home.has(c.accountId);
    case 'list':
      return aud.lists.has(sub.list!);
    case 'user:notification':
    case 'direct':
      return false;
    case 'hashtag':
    case 'hashtag:local':
      return aud.tagFeeds && aud.quietFor.has(c.accountId) && publicScope(sub, s) && tagsOf(s).has(sub.tag!);
    default:
      return aud.publicFeeds && aud.quietFor.has(c.accountId) && publicScope(sub, s) && (!sub.channel.endsWith(':media') || aud.hasMedia);
  }
}
