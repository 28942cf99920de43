// Statuses as API entities: authors, mentioned accounts, boosted statuses, counts and the viewer's flags loaded
// once per page (a handful of queries whatever the page size). What every reader sees alike is kept rendered in the
// StatusCache (status-cache.ts): a page of cached statuses reads only counts, flags, reactions and polls.
import type { LocalUris } from '../urls/local-uris.js';
import { statusEditEntity, statusEntity, statusParts } from '../entities/status.js';
import { type AccountEntity, withAccountCounts } from '../entities/account.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { mediaEntity } from '../entities/media.js';
import type { MediaUrls } from '../urls/media-urls.js';
import type { InteractionStore } from '../store/interactions.js';
import type { MediaStore } from '../store/media.js';
import { pollEntity } from '../entities/poll.js';
import type { PollStore } from '../store/polls.js';
import type { AppStore } from '../store/oauth-apps.js';
import type { ReactionStore } from '../store/reactions.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { StatusVersion } from '../store/status-edits.js';
import type { AccountViews } from './account-views.js';
import type { CachedStatus, StatusCache } from './status-cache.js';

export class StatusViews {
  constructor(
    private readonly accounts: AccountStore,
    private readonly accountViews: AccountViews,
    private readonly statuses: StatusStore,
    private readonly interactions: InteractionStore,
    private readonly uris: LocalUris,
    private readonly media: MediaStore,
    private readonly mediaUrls: MediaUrls,
    private readonly polls: PollStore,
    private readonly reactions: ReactionStore,
    private readonly apps: AppStore,
    private readonly cache: StatusCache,
  ) {}

  async one(s: Status, viewerId: string | null, opts: { withText?: boolean } = {}) {
    return (await this.many([s], viewerId, opts))[0]!;
  }

  /**
   * A status's versions as Mastodon's StatusEdit entities, oldest first, each with the attachments (and their
   * descriptions) and poll options it had; a status never edited has one version, itself.
   */
  async history(s: Status, viewerId: string | null): Promise<ReturnType<typeof statusEditEntity>[]> {
    const [entity] = await this.many([s], viewerId);
    let versions: readonly StatusVersion[] = await this.statuses.history(s.id);
    if (versions.length === 0) {
      const media = (await this.media.ofStatuses([s.id])).get(s.id) ?? [];
      const poll = (await this.polls.ofStatuses([s.id])).get(s.id);
      versions = [
        {
          content: s.content,
          spoilerText: s.spoilerText,
          sensitive: s.sensitive,
          createdAt: s.createdAt,
          mediaIds: media.map((m) => m.id),
          mediaDescriptions: media.map((m) => m.description),
          pollOptions: poll?.options ?? null,
        },
      ];
    }
    const media = await this.media.byIds([...new Set(versions.flatMap((v) => v.mediaIds))]);
    return versions.map((v) => statusEditEntity(v, entity?.account, media, (m) => this.mediaUrls.url(m, s.visibility)));
  }

  async many(list: readonly Status[], viewerId: string | null, opts: { withText?: boolean } = {}): Promise<ReturnType<typeof statusEntity>[]> {
    // Quoted statuses are rendered one level deep (a quote inside a quote shows as its state only).
    const quotedIds = [...new Set(list.flatMap((s) => (s.quoteOfId ? [s.quoteOfId] : [])))];
    const quoted = new Map<string, unknown>();
    const deleted = new Set<string>();
    if (quotedIds.length) {
      for (const q of await this.statuses.byIds(quotedIds)) if (q.deletedAt) deleted.add(q.id);
      for (const e of await this.plain(await this.statuses.visibleAmong(quotedIds, viewerId), viewerId, {})) quoted.set(e.id, e);
    }
    const byId = new Map(list.map((s) => [s.id, s]));
    return (await this.plain(list, viewerId, opts)).map((e) => {
      // A quote of a post we do not hold shows as none (its text usually links to it).
      const s = byId.get(e.id);
      if (!s?.quoteOfId) return e;
      const q = quoted.get(s.quoteOfId);
      if (q) return { ...e, quote: { state: 'accepted' as const, quoted_status: q } };
      return { ...e, quote: { state: deleted.has(s.quoteOfId) ? ('deleted' as const) : ('unauthorized' as const), quoted_status: null } };
    });
  }

  private async plain(list: readonly Status[], viewerId: string | null, opts: { withText?: boolean }) {
    // The ticket is taken before anything the cached parts are made of is read (status-cache.ts).
    const ticket = this.cache.begin();
    try {
      return await this.render(list, viewerId, opts, ticket);
    } finally {
      this.cache.end();
    }
  }

  private async render(list: readonly Status[], viewerId: string | null, opts: { withText?: boolean }, ticket: number) {
    // The boosted statuses are read for every page (not cached): a boost of a deleted status shows nothing.
    const originals = new Map((await this.statuses.byIds(list.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])))).map((s) => [s.id, s]));
    const all = [...list, ...originals.values()];
    const parts = new Map<string, CachedStatus>();
    const misses: Status[] = [];
    for (const s of all) {
      const c = this.cache.get(s);
      if (c) parts.set(s.id, c);
      else misses.push(s);
    }
    const missAccounts = new Set<string>();
    for (const s of misses) {
      missAccounts.add(s.accountId);
      for (const m of s.mentionIds) missAccounts.add(m);
    }
    const ids = all.map((s) => s.id);
    // Polls are read for every page that may hold one (votes change them); a cached status knows whether it has one.
    const pollIds = all.flatMap((s) => (parts.get(s.id)?.hasPoll === false ? [] : [s.id]));
    const [rows, apps, media, polls, accountCounts, counts, flags, reactions] = await Promise.all([
      this.accounts.byIds([...missAccounts]),
      this.apps.shown([...new Set(misses.flatMap((s) => (s.applicationId ? [s.applicationId] : [])))]),
      this.media.ofStatuses(misses.map((s) => s.id)),
      this.polls.ofStatuses(pollIds),
      this.accountViews.countsFor([...new Set(all.map((s) => s.accountId))]),
      this.interactions.counts(ids),
      viewerId ? this.interactions.flags(viewerId, ids) : null,
      this.reactions.summaries(ids, viewerId),
    ]);
    const ownVotes =
      viewerId && polls.size > 0
        ? await this.polls.ownVotes(
            viewerId,
            [...polls.values()].map((p) => p.id),
          )
        : null;

    const byId = new Map<string, Account>(rows.map((a) => [a.id, a]));
    const bare = new Map<string, AccountEntity>();
    for (const s of misses) {
      const author = byId.get(s.accountId);
      if (!author || parts.has(s.id)) continue;
      let account = bare.get(author.id);
      if (!account) bare.set(author.id, (account = frozen(this.accountViews.bare(author))));
      const entry: CachedStatus = Object.freeze({
        row: s,
        author,
        account,
        parts: frozen(
          statusParts(s, {
            uris: this.uris,
            author,
            mentions: s.mentionIds.map((id) => byId.get(id)).filter((a): a is Account => !!a),
            application: s.applicationId ? apps.get(s.applicationId) : undefined,
            media: (media.get(s.id) ?? []).map((m) => mediaEntity(m, this.mediaUrls.url(m, s.visibility))),
          }),
        ),
        hasPoll: polls.has(s.id),
      });
      parts.set(s.id, entry);
      this.cache.put(ticket, entry);
    }

    const now = Date.now();
    const accountOf = new Map<string, unknown>(); // one Account entity per author and page, as before the cache
    const render = (s: Status, reblog?: unknown) => {
      const c = parts.get(s.id);
      if (!c) return null;
      let account = accountOf.get(c.author.id);
      if (!account) accountOf.set(c.author.id, (account = withAccountCounts(c.account, c.author, accountCounts.get(c.author.id))));
      const own = viewerId === s.accountId;
      const poll = polls.get(s.id);
      return statusEntity(s, c.parts, {
        account,
        repliesCount: counts.replies.get(s.id) ?? 0,
        quotesCount: counts.quotes.get(s.id) ?? 0,
        reblogsCount: counts.reblogs.get(s.id) ?? 0,
        favouritesCount: counts.favourites.get(s.id) ?? 0,
        favourited: flags?.favourited.has(s.id) ?? false,
        reblogged: flags?.reblogged.has(s.id) ?? false,
        bookmarked: flags?.bookmarked.has(s.id) ?? false,
        pinned: flags?.pinned.has(s.id) ?? false,
        muted: flags?.muted.has(s.id) ?? false,
        own,
        withText: opts.withText,
        reblog,
        reactions: (reactions.get(s.id) ?? []).map((r) => ({ name: r.name, count: r.count, me: r.me, url: r.url })),
        poll: poll ? pollEntity(poll, now, ownVotes ? (ownVotes.get(poll.id) ?? []) : null, own) : null,
      });
    };
    return list.flatMap((s) => {
      if (!s.reblogOfId) {
        const e = render(s);
        return e ? [e] : [];
      }
      const original = originals.get(s.reblogOfId);
      const inner = original && !original.deletedAt ? render(original) : null;
      if (!inner) return []; // the boosted status is gone: so is the boost
      const e = render(s, inner);
      return e ? [e] : [];
    });
  }
}

/** Cached parts are shared by every request that shows them: frozen, so none can change another's. */
function frozen<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}
