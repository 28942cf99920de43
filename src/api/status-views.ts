// Statuses as API entities: authors, mentioned accounts, boosted and quoted statuses, counts and the viewer's flags
// loaded once per page, in one statement whatever the page size (store/render-bundle.ts).
import type { LocalUris } from '../urls/local-uris.js';
import { statusEditEntity, statusEntity } from '../entities/status.js';
import type { Account } from '../store/accounts.js';
import { mediaEntity } from '../entities/media.js';
import type { MediaUrls } from '../urls/media-urls.js';
import type { MediaStore } from '../store/media.js';
import { pollEntity } from '../entities/poll.js';
import type { PollStore } from '../store/polls.js';
import type { RenderBundle, RenderBundleStore } from '../store/render-bundle.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { StatusVersion } from '../store/status-edits.js';
import type { AccountEntity, AccountViews } from './account-views.js';

type StatusEntity = ReturnType<typeof statusEntity>;

export class StatusViews {
  constructor(
    private readonly accountViews: AccountViews,
    private readonly statuses: StatusStore,
    private readonly uris: LocalUris,
    private readonly media: MediaStore,
    private readonly mediaUrls: MediaUrls,
    private readonly polls: PollStore,
    private readonly bundles: RenderBundleStore,
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

  async many(list: readonly Status[], viewerId: string | null, opts: { withText?: boolean } = {}): Promise<StatusEntity[]> {
    const b = await this.bundles.load(
      list.map((s) => s.id),
      viewerId,
    );
    return this.render(list, b, viewerId, opts);
  }

  /**
   * A page naming statuses and accounts by id (notifications): both loaded in the one statement, the statuses as
   * entities by id (those gone are missing) and the accounts as rows with their entities.
   */
  async page(
    statusIds: readonly string[],
    accountIds: readonly string[],
    viewerId: string,
  ): Promise<{ statuses: Map<string, StatusEntity>; accounts: Map<string, { row: Account; entity: AccountEntity }> }> {
    const b = await this.bundles.load(statusIds, viewerId, accountIds);
    const list = statusIds.flatMap((id) => {
      const s = b.statuses.get(id);
      return s ? [s] : [];
    });
    const statuses = new Map(this.render(list, b, viewerId, {}).map((e) => [e.id, e]));
    const accounts = new Map<string, { row: Account; entity: AccountEntity }>();
    for (const id of accountIds) {
      const a = b.accounts.get(id);
      if (a) accounts.set(id, { row: a, entity: this.accountViews.withCounts(a, b.accountCounts.get(id)) });
    }
    return { statuses, accounts };
  }

  private render(list: readonly Status[], b: RenderBundle, viewerId: string | null, opts: { withText?: boolean }): StatusEntity[] {
    const entityOf = new Map<string, AccountEntity>();
    const accountEntity = (id: string) => {
      let e = entityOf.get(id);
      const a = b.accounts.get(id);
      if (!e && a) entityOf.set(id, (e = this.accountViews.withCounts(a, b.accountCounts.get(id))));
      return e;
    };
    const now = Date.now();
    const one = (s: Status, reblog?: unknown) => {
      const author = b.accounts.get(s.accountId);
      if (!author) return null;
      const counts = b.counts.get(s.id);
      const flags = b.flags;
      return statusEntity(s, {
        uris: this.uris,
        account: accountEntity(author.id),
        author,
        mentions: s.mentionIds.map((id) => b.accounts.get(id)).filter((a): a is Account => !!a),
        repliesCount: counts?.replies ?? 0,
        quotesCount: counts?.quotes ?? 0,
        reblogsCount: counts?.reblogs ?? 0,
        favouritesCount: counts?.favourites ?? 0,
        favourited: flags?.favourited.has(s.id) ?? false,
        reblogged: flags?.reblogged.has(s.id) ?? false,
        bookmarked: flags?.bookmarked.has(s.id) ?? false,
        pinned: flags?.pinned.has(s.id) ?? false,
        muted: flags?.muted.has(s.id) ?? false,
        application: s.applicationId ? b.apps.get(s.applicationId) : undefined,
        own: viewerId === s.accountId,
        withText: opts.withText,
        reblog,
        media: (b.media.get(s.id) ?? []).map((m) => mediaEntity(m, this.mediaUrls.url(m, s.visibility))),
        reactions: (b.reactions.get(s.id) ?? []).map((r) => ({ name: r.name, count: r.count, me: r.me, url: r.url })),
        poll: ((p) => (p ? pollEntity(p, now, b.ownVotes ? (b.ownVotes.get(p.id) ?? []) : null, viewerId === s.accountId) : null))(b.polls.get(s.id)),
      });
    };
    const plain = (s: Status) => {
      if (!s.reblogOfId) return one(s);
      const original = b.statuses.get(s.reblogOfId);
      const inner = original && !original.deletedAt ? one(original) : null;
      if (!inner) return null; // the boosted status is gone: so is the boost
      return one(s, inner);
    };
    // Quoted statuses are rendered one level deep (a quote inside a quote shows as its state only).
    const quoted = new Map<string, StatusEntity | null>();
    return list.flatMap((s) => {
      const e = plain(s);
      if (!e) return [];
      if (!s.quoteOfId) return [e];
      // A quote of a post we do not hold shows as none (its text usually links to it).
      let q = quoted.get(s.quoteOfId);
      if (q === undefined) {
        const qs = b.quotesShown.has(s.quoteOfId) ? b.statuses.get(s.quoteOfId) : undefined;
        q = qs ? plain(qs) : null;
        quoted.set(s.quoteOfId, q);
      }
      if (q) return [{ ...e, quote: { state: 'accepted' as const, quoted_status: q } }];
      return [{ ...e, quote: { state: b.quotesDeleted.has(s.quoteOfId) ? ('deleted' as const) : ('unauthorized' as const), quoted_status: null } }];
    });
  }
}
