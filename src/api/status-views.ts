// Statuses as API entities: authors, mentioned accounts, boosted statuses, counts and the viewer's flags loaded
// once per page (a handful of queries whatever the page size).
import type { LocalUris } from '../urls/local-uris.js';
import { statusEditEntity, statusEntity } from '../entities/status.js';
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
    const originals = new Map((await this.statuses.byIds(list.flatMap((s) => (s.reblogOfId ? [s.reblogOfId] : [])))).map((s) => [s.id, s]));
    const all = [...list, ...originals.values()];
    const accountIds = new Set<string>();
    for (const s of all) {
      accountIds.add(s.accountId);
      for (const m of s.mentionIds) accountIds.add(m);
    }
    const byId = new Map<string, Account>((await this.accounts.byIds([...accountIds])).map((a) => [a.id, a]));
    const authors = [...new Set(all.map((s) => s.accountId))].map((id) => byId.get(id)).filter((a): a is Account => !!a);
    const entities = await this.accountViews.many(authors);
    const entityOf = new Map(authors.map((a, i) => [a.id, entities[i]]));
    const ids = all.map((s) => s.id);
    const [apps, counts, flags, media] = await Promise.all([
      this.apps.shown([...new Set(all.flatMap((s) => (s.applicationId ? [s.applicationId] : [])))]),
      this.interactions.counts(ids),
      viewerId ? this.interactions.flags(viewerId, ids) : null,
      this.media.ofStatuses(ids),
    ]);
    const polls = await this.polls.ofStatuses(ids);
    const reactions = await this.reactions.summaries(ids, viewerId);
    const ownVotes = viewerId
      ? await this.polls.ownVotes(
          viewerId,
          [...polls.values()].map((p) => p.id),
        )
      : null;
    const now = Date.now();
    const render = (s: Status, reblog?: unknown) => {
      const author = byId.get(s.accountId);
      if (!author) return null;
      return statusEntity(s, {
        uris: this.uris,
        account: entityOf.get(author.id),
        author,
        mentions: s.mentionIds.map((id) => byId.get(id)).filter((a): a is Account => !!a),
        repliesCount: counts.replies.get(s.id) ?? 0,
        quotesCount: counts.quotes.get(s.id) ?? 0,
        reblogsCount: counts.reblogs.get(s.id) ?? 0,
        favouritesCount: counts.favourites.get(s.id) ?? 0,
        favourited: flags?.favourited.has(s.id) ?? false,
        reblogged: flags?.reblogged.has(s.id) ?? false,
        bookmarked: flags?.bookmarked.has(s.id) ?? false,
        pinned: flags?.pinned.has(s.id) ?? false,
        muted: flags?.muted.has(s.id) ?? false,
        application: s.applicationId ? apps.get(s.applicationId) : undefined,
        own: viewerId === s.accountId,
        withText: opts.withText,
        reblog,
        media: (media.get(s.id) ?? []).map((m) => mediaEntity(m, this.mediaUrls.url(m, s.visibility))),
        reactions: (reactions.get(s.id) ?? []).map((r) => ({ name: r.name, count: r.count, me: r.me, url: r.url })),
        poll: ((p) => (p ? pollEntity(p, now, ownVotes ? (ownVotes.get(p.id) ?? []) : null, viewerId === s.accountId) : null))(polls.get(s.id)),
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
