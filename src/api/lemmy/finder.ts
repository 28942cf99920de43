// How the adapter finds what a Lemmy client names: a community by `name@host`, `!name@host` or a bare name already
// known here, a person by `name@host` or a local name, an object by its URL. What is not known here is resolved
// through WebFinger or its URL (the house's remote-actor and Note code) for signed-in members only: an anonymous
// request never makes us send requests (as the Mastodon search). A community is a Group account, filed in
// lemmy_communities when first found.
import { FetchError } from '../../federation/fetch-errors.js';
import type { NoteHandlers } from '../../federation/note-handlers.js';
import type { RemoteActors } from '../../federation/remote-actors.js';
import type { Logger } from '../../log.js';
import type { Account, AccountStore } from '../../store/accounts.js';
import type { LinkAggregatorStore } from '../../store/link-aggregator.js';
import type { LinkSiteStore } from '../../store/link-site.js';
import type { Status, StatusStore } from '../../store/statuses.js';
import type { LocalUris } from '../../urls/local-uris.js';

// name@host (host with an optional port), with Lemmy's `!` for communities and Mastodon's `@` tolerated.
const QUALIFIED = /^[!@]?([A-Za-z0-9_.-]{1,255})@([A-Za-z0-9.-]{1,253}(?::\d{1,5})?)$/;
const BARE = /^[!@]?([A-Za-z0-9_.-]{1,255})$/;

export interface FinderDeps {
  readonly config: { readonly baseUrl: string; readonly localDomain: string };
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly links: LinkAggregatorStore;
  readonly site: LinkSiteStore;
  readonly remote: RemoteActors;
  readonly notes: NoteHandlers;
  readonly uris: LocalUris;
}

/** What a URL or handle names, as resolve_object answers it. */
export type Found =
  | { readonly kind: 'community'; readonly id: number }
  | { readonly kind: 'person'; readonly account: Account }
  | { readonly kind: 'status'; readonly status: Status }
  | { readonly kind: 'none' };

const shown = (a: Account | undefined) => (a && !a.deletedAt && !a.suspendedAt && !a.instanceActor && (a.domain !== null || a.hasUser) ? a : undefined);

export class Finder {
  private readonly hostingDomain: string;

  constructor(private readonly d: FinderDeps) {
    this.hostingDomain = new URL(d.config.baseUrl).host.toLowerCase();
  }

  private isLocalDomain(domain: string): boolean {
    const h = domain.toLowerCase();
    return h === this.d.config.localDomain || h === this.hostingDomain;
  }

  /** A Group account as a community, filed in lemmy_communities if new; undefined for any other account. */
  async communityOfAccount(a: Account | undefined): Promise<number | undefined> {
    if (a?.actorType !== 'Group' || a.deletedAt || a.suspendedAt) return undefined;
    return (await this.d.links.communityOf(a.id)) ?? (await this.d.links.communityId(a.id));
  }

  /** The community a client names; `resolve` (a member asking) fetches one not known here. */
  async community(name: string, resolve: boolean): Promise<number | undefined> {
    const q = QUALIFIED.exec(name);
    if (q) {
      const [, user, domain] = q as unknown as [string, string, string];
      if (this.isLocalDomain(domain)) return undefined;
      const known = await this.d.site.communityByName(user, domain);
      if (known !== undefined || !resolve) return known;
      return this.communityOfAccount(await this.fetching(() => this.d.remote.byHandle(user, domain)));
    }
    const b = BARE.exec(name);
    return b ? this.d.site.communityByName(b[1]!, null) : undefined;
  }

  /** The person a client names (`name@host` or a local name); `resolve` fetches one not known here. */
  async person(name: string, resolve: boolean): Promise<Account | undefined> {
    const q = QUALIFIED.exec(name);
    if (q) {
      const [, user, domain] = q as unknown as [string, string, string];
      const local = this.isLocalDomain(domain);
      const known = shown(await this.d.accounts.byHandle(user, local ? null : domain));
      if (known || local || !resolve) return known;
      return shown(await this.fetching(() => this.d.remote.byHandle(user, domain)));
    }
    const b = BARE.exec(name);
    return b ? shown(await this.d.accounts.byHandle(b[1]!, null)) : undefined;
  }

  /** A URL or handle for resolve_object: a community, a person, or a status (a post or comment, if filed as one). */
  async object(q: string, resolve: boolean): Promise<Found> {
    if (!/^https?:\/\//i.test(q)) {
      const community = await this.community(q, resolve && q.startsWith('!'));
      if (community !== undefined) return { kind: 'community', id: community };
      if (q.startsWith('!')) return { kind: 'none' };
      const account = await this.person(q, resolve);
      if (!account) return { kind: 'none' };
      const asCommunity = await this.communityOfAccount(account);
      return asCommunity !== undefined ? { kind: 'community', id: asCommunity } : { kind: 'person', account };
    }
    if (this.d.uris.isLocal(q)) {
      const statusId = this.d.uris.statusIdOf(q);
      if (statusId) {
        const status = await this.d.statuses.byId(statusId);
        return status ? { kind: 'status', status } : { kind: 'none' };
      }
      const name = this.d.uris.usernameOf(q);
      const account = name ? shown(await this.d.accounts.byHandle(name, null)) : undefined;
      return account ? { kind: 'person', account } : { kind: 'none' };
    }
    const account = shown(await this.d.accounts.byUri(q));
    if (account) return this.ofAccount(account);
    const status = await this.d.statuses.byUri(q);
    if (status) return { kind: 'status', status };
    if (!resolve) return { kind: 'none' };
    const fetched = shown(await this.fetching(() => this.d.remote.byUri(q)));
    if (fetched) return this.ofAccount(fetched);
    const note = await this.fetching(() => this.d.notes.fetchPublic(q));
    return note ? { kind: 'status', status: note } : { kind: 'none' };
  }

  private async ofAccount(a: Account): Promise<Found> {
    const community = await this.communityOfAccount(a);
    return community !== undefined ? { kind: 'community', id: community } : { kind: 'person', account: a };
  }

  /** A fetch from elsewhere; what cannot be fetched (gone, refused, not an actor) is nothing found. */
  private async fetching<T>(f: () => Promise<T | undefined>): Promise<T | undefined> {
    try {
      return await f();
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      this.d.log.info({ reason: e.reason, kind: e.kind }, 'link aggregator could not resolve');
      return undefined;
    }
  }
}
