// Statuses as API entities: authors, mentioned accounts, boosted and quoted statuses, counts and the viewer's flags
// loaded once per page, in one statement whatever the page size (store/render-bundle.ts). What every reader sees
// alike is kept rendered in the StatusCache (status-cache.ts): a cached status is not rendered again, only merged
// with the page's counts, flags, poll and reactions. The entries for the rows the caller holds are taken before the
// bundle is read, and the bundle then skips those statuses' rows, authors, mentions and attachments; what it does
// load covers every other status (boosted and quoted ones, misses), so a miss needs no second round trip. Accounts
// likewise: those the AccountCache (account-cache.ts) holds are not read by the bundle (only their counts are) nor
// rendered again.
import type { LocalUris } from '../urls/local-uris.js';
import { previewCardEntity } from '../entities/preview-card.js';
import type { PreviewCard } from '../store/preview-cards.js';
import { quoteApproval, statusEditEntity, statusEntity, statusParts, type QuoteApproval } from '../entities/status.js';
import { accountJsonParts, accountJsonWithCounts, withAccountCounts } from '../entities/account.js';
import type { Account } from '../store/accounts.js';
import { mediaEntity } from '../entities/media.js';
import type { MediaUrls } from '../urls/media-urls.js';
import type { MediaStore } from '../store/media.js';
import { pollEntity } from '../entities/poll.js';
import type { PollStore } from '../store/polls.js';
import type { RenderBundle, RenderBundleStore } from '../store/render-bundle.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { StatusRef } from '../store/status-refs.js';
import type { RefPage } from '../store/ref-pages.js';
import type { StatusVersion } from '../store/status-edits.js';
import type { AccountEntity, AccountViews } from './account-views.js';
import type { CachedStatus, StatusCache } from './status-cache.js';
import { madeOf } from './status-json.js';
import type { AccountCache, CachedAccount } from './account-cache.js';
import type { FilterContext } from '../store/filters.js';
import { applyFilters, type FilterCache } from './filter-apply.js';

type StatusEntity = ReturnType<typeof statusEntity>;
/** Cached entries taken for the caller's rows before the bundle was read, by status id. */
type Held = Map<string, CachedStatus>;
/**
 * An account a page names: its row, its entity without counts (kept), and, made only when asked for, its entity with
 * counts or that entity's JSON (written from kept parts: no object made, nothing serialised again).
 */
export interface PageAccount {
  readonly row: Account;
  readonly bare: AccountEntity;
  readonly entity: () => AccountEntity;
  readonly json: () => string;
}
/** What a page's render uses besides its bundle: the caches' tickets and entries taken before it was read. */
interface Ctx {
  readonly ticket: number;
  readonly held: Held;
  /** An account's entity without counts: the cache's entry, or rendered once per page (and kept). */
  readonly bare: (a: Account) => CachedAccount;
  /** Quote approvals of a "followers" policy, settled once the viewer's follows of their authors are read. */
  readonly pending: { readonly approval: QuoteApproval; readonly authorId: string }[];
}

export class StatusViews {
  constructor(
    private readonly accountViews: AccountViews,
    private readonly statuses: StatusStore,
    private readonly uris: LocalUris,
    private readonly media: MediaStore,
    private readonly mediaUrls: MediaUrls,
    private readonly polls: PollStore,
    private readonly bundles: RenderBundleStore,
    private readonly cache: StatusCache,
    private readonly filters: FilterCache,
    private readonly accountCache: AccountCache,
  ) {}

  /**
   * A page shown in a context: rendered, then the viewer's content filters of that context (null: of any) applied
   * (filter-apply.ts): matches carry `filtered`, and `hide` matches are left out unless hide is false.
   */
  async inContext(list: readonly Status[], viewerId: string | null, context: FilterContext | null, hide = true): Promise<StatusEntity[]> {
    const [entities, filters] = await Promise.all([this.many(list, viewerId), this.filters.of(viewerId)]);
    return applyFilters(entities, filters, context, hide);
  }

  /**
   * A page named by refs (store/status-refs.ts, the timelines' pages), shown in a context as inContext shows rows:
   * the cache's entries for the very versions named (and for the boosted statuses') are taken, and the bundle reads
   * the rows of the others (see loaded).
   */
  async inContextRefs(page: RefPage, viewerId: string | null, context: FilterContext, hide = true): Promise<StatusEntity[]> {
    const [entities, filters] = await Promise.all([this.fromRefs(page, viewerId), this.filters.of(viewerId)]);
    return applyFilters(entities, filters, context, hide);
  }

  private async fromRefs({ refs, dynamics }: RefPage, viewerId: string | null): Promise<StatusEntity[]> {
    if (refs.length === 0) return [];
    const held = this.takeRefs(refs);
    const ids = refs.map((r) => r.id);
    // Statuses gone between the page and the bundle (deleted meanwhile) are left out, as they would have been a moment later.
    const rowsOf = (b: RenderBundle) =>
      refs.flatMap((r) => {
        const s = held.get(r.id)?.row ?? b.statuses.get(r.id);
        return s && !s.deletedAt ? [s] : [];
      });
    return this.loaded(ids, viewerId, [], (b, ctx) => this.render(rowsOf(b), b, viewerId, {}, ctx), [], held, dynamics);
  }

  /** The cache's entries for the very versions the refs name, and for those of the statuses they boost. */
  private takeRefs(refs: readonly StatusRef[]): Held {
    const held: Held = new Map();
    const take = (id: string, version: string | null) => {
      const hit = this.cache.byVersion(id, version);
      if (hit) held.set(id, hit);
    };
    for (const r of refs) {
      take(r.id, r.version);
      if (r.reblogOfId) take(r.reblogOfId, r.reblogVersion);
    }
    return held;
  }

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
    return versions.map((v) => statusEditEntity(v, entity?.account, media, (m) => this.mediaUrls.addresses(m, s.visibility)));
  }

  async many(list: readonly Status[], viewerId: string | null, opts: { withText?: boolean } = {}): Promise<StatusEntity[]> {
    return this.loaded(
      list.map((s) => s.id),
      viewerId,
      [],
      (b, ctx) => this.render(list, b, viewerId, opts, ctx),
      list,
    );
  }

  /**
   * A page naming statuses by ref (their version null when not known) and accounts by id (notifications): both
   * loaded in the one statement, the statuses as entities by id (those gone, or hidden by the viewer's filters of the context, are missing) and the accounts as
   * rows with their entities.
   */
  async page(
    refs: readonly StatusRef[],
    accountIds: readonly string[],
    viewerId: string,
    context?: FilterContext,
    dynamics: RenderBundle | null = null,
  ): Promise<{ statuses: Map<string, StatusEntity>; accounts: Map<string, PageAccount> }> {
    const held = this.takeRefs(refs);
    const statusIds = refs.map((r) => r.id);
    const [page, filters] = await Promise.all([
      this.loaded(
        statusIds,
        viewerId,
        accountIds,
        (b, ctx) => {
          const list = statusIds.flatMap((id) => {
            const s = held.get(id)?.row ?? b.statuses.get(id);
            return s ? [s] : [];
          });
          const statuses = this.render(list, b, viewerId, {}, ctx);
          const accounts = new Map<string, PageAccount>();
          for (const id of accountIds) {
            const a = b.accounts.get(id);
            if (!a) continue;
            const c = ctx.bare(a);
            const counts = b.accountCounts.get(id);
            accounts.set(id, {
              row: a,
              bare: c.entity,
              entity: () => withAccountCounts(c.entity, a, counts),
              json: () => accountJsonWithCounts((c.json ??= accountJsonParts(c.entity)), a, counts),
            });
          }
          return { statuses, accounts };
        },
        [],
        held,
        dynamics,
      ),
      context ? this.filters.of(viewerId) : undefined,
    ]);
    const shown = filters && context ? applyFilters(page.statuses, filters, context) : page.statuses;
    return { statuses: new Map(shown.map((e) => [e.id, e])), accounts: page.accounts };
  }

  /**
   * The page's bundle, loaded under a cache ticket taken before it is read (status-cache.ts), then fn. The cached
   * entries of the rows the caller holds (`rows`) are taken first and passed on: the bundle leaves their parts out,
   * so they are used even if dropped meanwhile (as a hit a moment earlier would have been). The same for the accounts
   * named (`accountIds`, and the authors and mentions of the rows not held): the bundle has no row of those held.
   * `taken`: entries the caller took already (by row version, fromRefs), held as those of `rows` are. When every
   * status asked for is held (and every status they boost), none quotes, and every account named is held, the bundle
   * is only the page's dynamic parts (RenderBundleStore.dynamics): a quarter of its PostgreSQL time (issue 19), or
   * none at all when the page's own statement read them (`dynamics`, store/ref-pages.ts).
   */
  private async loaded<T>(
    statusIds: readonly string[],
    viewerId: string | null,
    accountIds: readonly string[],
    fn: (b: RenderBundle, ctx: Ctx) => T,
    rows: readonly Status[] = [],
    taken: Held = new Map(),
    dynamics: RenderBundle | null = null,
  ): Promise<T> {
    const ticket = this.cache.begin();
    const accountTicket = this.accountCache.begin();
    try {
      const held: Held = new Map(taken);
      for (const s of rows) {
        const hit = s.deletedAt ? undefined : this.cache.get(s);
        if (hit) held.set(s.id, hit);
      }
      const heldAccounts = new Map<string, CachedAccount>();
      const take = (id: string) => {
        if (heldAccounts.has(id)) return;
        const hit = this.accountCache.get(id);
        if (hit) heldAccounts.set(id, hit);
      };
      for (const id of accountIds) take(id);
      for (const s of rows) {
        if (held.has(s.id)) continue;
        take(s.accountId);
        for (const id of s.mentionIds) take(id);
      }
      // Everything held, no quote (whose showing depends on the viewer): only what changes per page is read.
      const warm =
        statusIds.every((id) => {
          const c = held.get(id);
          return c && !c.row.quoteOfId && (!c.row.reblogOfId || held.has(c.row.reblogOfId));
        }) && accountIds.every((id) => heldAccounts.has(id));
      const entries = [...held.values()];
      const loaded = warm
        ? (dynamics ??
          (await this.bundles.dynamics(
            [...held.keys()],
            viewerId,
            [...new Set([...entries.map((c) => c.author.id), ...accountIds])],
            entries.filter((c) => c.hasPoll).map((c) => c.row.id),
          )))
        : await this.bundles.load(statusIds, viewerId, accountIds, [...held.keys()], [...heldAccounts.keys()]);
      const bareById = new Map<string, CachedAccount>();
      let b = loaded;
      if (heldAccounts.size > 0) {
        const accounts = new Map(loaded.accounts);
        for (const [id, c] of heldAccounts) {
          accounts.set(id, c.row);
          bareById.set(id, c);
        }
        b = { ...loaded, accounts };
      }
      const bare = (a: Account): CachedAccount => {
        let c = bareById.get(a.id);
        if (!c) {
          bareById.set(a.id, (c = { row: a, entity: frozen(this.accountViews.bare(a)) }));
          this.accountCache.put(accountTicket, c);
        }
        return c;
      };
      const pending: Ctx['pending'] = [];
      const out = fn(b, { ticket, held, bare, pending });
      if (pending.length > 0 && viewerId !== null) {
        const followed = await this.statuses.followedAmong(viewerId, [...new Set(pending.map((p) => p.authorId))]);
        for (const p of pending) if (followed.has(p.authorId)) p.approval.current_user = 'automatic';
      }
      return out;
    } finally {
      this.accountCache.end();
      this.cache.end();
    }
  }

  /** What every reader sees of s: from the cache when it holds this very row, else rendered from the bundle and kept. */
  private partsOf(s: Status, b: RenderBundle, ctx: Ctx): CachedStatus | null {
    const taken = ctx.held.get(s.id);
    if (taken) return taken;
    const hit = this.cache.get(s);
    if (hit) return hit;
    const author = b.accounts.get(s.accountId);
    if (!author) return null;
    const account = ctx.bare(author).entity;
    const entry: CachedStatus = Object.freeze({
      row: s,
      author,
      account,
      parts: frozen(
        statusParts(s, {
          uris: this.uris,
          author,
          mentions: s.mentionIds.map((id) => b.accounts.get(id)).filter((a): a is Account => !!a),
          application: s.applicationId ? b.apps.get(s.applicationId) : undefined,
          media: (b.media.get(s.id) ?? []).map((m) => mediaEntity(m, this.mediaUrls.addresses(m, s.visibility))),
          card: cardOf(b.cards.get(s.id), this.mediaUrls.baseUrl),
        }),
      ),
      hasPoll: b.polls.has(s.id),
    });
    // A deleted status is shown only in the answer to its deletion: never kept.
    if (!s.deletedAt) this.cache.put(ctx.ticket, entry);
    return entry;
  }

  private render(list: readonly Status[], b: RenderBundle, viewerId: string | null, opts: { withText?: boolean }, ctx: Ctx): StatusEntity[] {
    // The bundle has no row for a held status: a boost or quote of one finds it among the caller's rows or the held.
    const given = new Map(list.map((s) => [s.id, s]));
    const row = (id: string) => b.statuses.get(id) ?? given.get(id) ?? ctx.held.get(id)?.row;
    const parts = new Map<string, CachedStatus | null>();
    const accountOf = new Map<string, { entity: AccountEntity; bare: AccountEntity }>(); // one Account entity per author and page
    const now = Date.now();
    const one = (s: Status, reblog?: unknown, proper: Status = s) => {
      let c = parts.get(s.id);
      if (c === undefined) parts.set(s.id, (c = this.partsOf(s, b, ctx)));
      if (!c) return null;
      let account = accountOf.get(c.author.id);
      if (!account)
        accountOf.set(c.author.id, (account = { entity: withAccountCounts(c.account, c.author, b.accountCounts.get(c.author.id)), bare: c.account }));
      const counts = b.counts.get(s.id);
      const flags = b.flags;
      const own = viewerId === s.accountId;
      const poll = b.polls.get(s.id);
      // A boost shows the boosted status's policy (Mastodon's object.proper).
      const q = quoteApproval(proper, viewerId);
      if (q.needsFollow) ctx.pending.push({ approval: q.approval, authorId: proper.accountId });
      const e = statusEntity(s, c.parts, {
        account: account.entity,
        repliesCount: counts?.replies ?? 0,
        quotesCount: counts?.quotes ?? 0,
        reblogsCount: counts?.reblogs ?? 0,
        favouritesCount: counts?.favourites ?? 0,
        favourited: flags?.favourited.has(s.id) ?? false,
        reblogged: flags?.reblogged.has(s.id) ?? false,
        bookmarked: flags?.bookmarked.has(s.id) ?? false,
        pinned: flags?.pinned.has(s.id) ?? false,
        muted: flags?.muted.has(s.id) ?? false,
        own,
        withText: opts.withText,
        reblog,
        reactions: (b.reactions.get(s.id) ?? []).map((r) => ({ name: r.name, count: r.count, me: r.me, url: r.url })),
        poll: poll ? pollEntity(poll, now, b.ownVotes ? (b.ownVotes.get(poll.id) ?? []) : null, own) : null,
        quoteApproval: q.approval,
      });
      return madeOf(e, c, account.bare);
    };
    const plain = (s: Status) => {
      if (!s.reblogOfId) return one(s);
      const original = row(s.reblogOfId);
      const inner = original && !original.deletedAt ? one(original) : null;
      if (!inner) return null; // the boosted status is gone: so is the boost
      return one(s, inner, original!);
    };
    // Quoted statuses are rendered one level deep (a quote inside a quote shows as its state only).
    const quoted = new Map<string, StatusEntity | null>();
    return list.flatMap((s) => {
      const e = plain(s);
      if (!e) return [];
      // A quote its quoted author revoked shows as such (Mastodon's state "revoked"), without the quoted status.
      if (!s.quoteOfId) return s.quoteRevoked ? [{ ...e, quote: { state: 'revoked' as const, quoted_status: null } }] : [e];
      // A quote of a post we do not hold shows as none (its text usually links to it).
      let q = quoted.get(s.quoteOfId);
      if (q === undefined) {
        const qs = b.quotesShown.has(s.quoteOfId) ? row(s.quoteOfId) : undefined;
        q = qs ? plain(qs) : null;
        quoted.set(s.quoteOfId, q);
      }
      if (q) return [{ ...e, quote: { state: 'accepted' as const, quoted_status: q } }];
      return [{ ...e, quote: { state: b.quotesDeleted.has(s.quoteOfId) ? ('deleted' as const) : ('unauthorized' as const), quoted_status: null } }];
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

function cardOf(c: PreviewCard | undefined, baseUrl: string) {
  return c ? previewCardEntity(c, baseUrl) : null;
}
