// Remote actors: resolved by handle (WebFinger) or by URI, validated, stored, and kept fresh. Every fetch goes through
// the signed HTTP client (as the instance actor). Concurrent resolutions of the same actor share one fetch.
import type { Config } from '../../config/schema.js';
import type { Logger } from '../log.js';
import type { Account, AccountStore, RemoteAccountData } from '../store/accounts.js';
import { actorSchema, keyOrActorSchema, orderedCollectionSchema, type ActorDoc, type CommunityDoc } from './as2.js';
import { actorLink, webFingerSchema, type WebFingerDoc } from './webfinger-doc.js';
import { FetchError } from './fetch-errors.js';
import type { HttpClient, Signer } from './http-client.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { JsonSource } from './json-source.js';
import { sanitizeHtml } from '../text/sanitize-html.js';

/** A stored actor older than this is refetched when it is looked up (best effort: the stored copy serves on failure). */
const STALE_AFTER_MS = 24 * 3_600_000;

export interface RemoteActorsDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly http: HttpClient;
  readonly uris: LocalUris;
  /** Signs GETs as the instance actor (servers in authorized-fetch mode refuse unsigned ones). */
  readonly signer: Signer;
  /** Verifies and stores the identity statements of every actor document stored. */
  readonly statements: { sync(account: Account, attachment: readonly unknown[], source?: JsonSource): Promise<void> };
  /** Files every Group stored as a community (community-actors.ts). */
  readonly communities?: { stored(group: Account, c: CommunityDoc): Promise<void> };
}

export class RemoteActors {
  private readonly inflight = new Map<string, Promise<Account>>();
  private readonly scheme: string;

  constructor(private readonly d: RemoteActorsDeps) {
    // Production servers speak https; a development or test installation on http talks http to its peers.
    this.scheme = new URL(d.config.baseUrl).protocol === 'http:' ? 'http' : 'https';
  }

  /** The stored account for an actor URI, fetching it when unknown or stale (a stale copy serves if the fetch fails). */
  async byUri(uri: string, opts: { refresh?: boolean } = {}): Promise<Account> {
    const stored = await this.d.accounts.byUri(uri);
    if (stored && !opts.refresh && !isStale(stored)) return stored;
    try {
      return await this.fetchActor(uri, undefined);
    } catch (e) {
      if (stored && !opts.refresh && e instanceof FetchError && e.kind === 'transient') return stored;
      throw e;
    }
  }

  /** Resolves `user@domain` through WebFinger on that domain. */
  async byHandle(username: string, domain: string): Promise<Account> {
    const stored = await this.d.accounts.byHandle(username, domain);
    if (stored?.domain && !isStale(stored)) return stored;
    const resource = `acct:${username}@${domain}`;
    const link = actorLink(await this.webfinger(domain, resource));
    if (!link) throw new FetchError('unsupported', 'no_actor_link', resource);
    const account = await this.fetchActor(link, domain);
    if (account.username.toLowerCase() !== username.toLowerCase()) {
      throw new FetchError('unsupported', 'handle_mismatch', link);
    }
    return account;
  }

  /**
   * The account whose key is keyId. refresh: refetch even if stored (the signature failed with the stored key:
   * the actor may have rotated it). The key must be published by its owner's actor document.
   */
  async byKeyId(keyId: string, refresh = false): Promise<Account> {
    if (!refresh) {
      const stored = await this.d.accounts.byPublicKeyId(keyId);
      if (stored?.publicKeyPem && !stored.deletedAt) return stored;
    }
    const { value, url, text } = await this.d.http.getJson(keyId, keyOrActorSchema, { sign: this.d.signer });
    let account: Account;
    if (value.kind === 'actor') {
      account = await this.store(value.actor, url, undefined, text);
    } else {
      if (!sameOrigin(value.key.id, value.key.owner) || !sameOrigin(value.key.id, url)) throw new FetchError('unsupported', 'origin_mismatch', keyId);
      account = await this.byUri(value.key.owner, { refresh: true });
    }
    if (account.publicKeyId !== keyId || !account.publicKeyPem) throw new FetchError('unsupported', 'key_not_owned', keyId);
    return account;
  }

  /** Stores an actor document received inside a signed activity (Update) from its own origin. */
  async storeReceived(doc: ActorDoc, existing: Account, source?: JsonSource): Promise<Account> {
    if (doc.id !== existing.uri) throw new FetchError('unsupported', 'origin_mismatch', doc.id);
    this.checkOrigins(doc, doc.id);
    return this.stored(doc, await this.d.accounts.upsertRemote(toRemoteData(doc, existing.domain ?? new URL(doc.id).host)), source);
  }

  private async stored(doc: ActorDoc, account: Account, source: JsonSource | undefined): Promise<Account> {
    await this.d.statements.sync(account, doc.attachment, source);
    if (doc.community && this.d.communities) await this.d.communities.stored(account, doc.community);
    return account;
  }

  /** claimedDomain: the domain whose WebFinger led here (unverified until the actor's own host agrees). */
  private fetchActor(uri: string, claimedDomain: string | undefined): Promise<Account> {
    if (this.d.uris.isLocal(uri)) return Promise.reject(new FetchError('unsupported', 'local_actor', uri));
    let p = this.inflight.get(uri);
    if (!p) {
      p = this.fetchAndStore(uri, claimedDomain).finally(() => this.inflight.delete(uri));
      this.inflight.set(uri, p);
    }
    return p;
  }

  private async fetchAndStore(uri: string, claimedDomain: string | undefined): Promise<Account> {
    const { value, url, text } = await this.d.http.getJson(uri, actorSchema, { sign: this.d.signer });
    const account = await this.store(value, url, claimedDomain, text);
    void this.refreshCounts(account);
    return account;
  }

  /** Follower/following totals as the actor's server declares them (best effort, in the background). */
  private async refreshCounts(a: Account): Promise<void> {
    const total = async (url: string | null): Promise<number | null> => {
      if (!url || !sameOrigin(url, a.uri!)) return null;
      try {
        return (await this.d.http.getJson(url, orderedCollectionSchema, { sign: this.d.signer })).value.totalItems;
      } catch {
        return null; // hidden collections (403) and failures leave the counts as they were
      }
    };
    try {
      const [followers, following] = await Promise.all([total(a.followersUrl), total(a.followingUrl)]);
      if (followers !== null || following !== null) await this.d.accounts.setRemoteCounts(a.id, followers, following);
    } catch (e) {
      this.d.log.debug({ err: e, actor: a.uri }, 'remote counts not stored');
    }
  }

  /**
   * An actor may only be served by its own origin, with its inbox and key there too: a document naming another
   * server's id, inbox or key is a forgery attempt. Our own actors are never stored as remote ones.
   */
  private checkOrigins(doc: ActorDoc, fetchedFrom: string): void {
    if (this.d.uris.isLocal(doc.id)) throw new FetchError('unsupported', 'local_actor', doc.id);
    if (!sameOrigin(doc.id, fetchedFrom)) throw new FetchError('unsupported', 'origin_mismatch', fetchedFrom);
    if (!sameOrigin(doc.inbox, doc.id)) throw new FetchError('unsupported', 'inbox_origin_mismatch', doc.id);
    if (doc.publicKey && !sameOrigin(doc.publicKey.id, doc.id)) throw new FetchError('unsupported', 'key_origin_mismatch', doc.id);
  }

  private async store(doc: ActorDoc, fetchedFrom: string, claimedDomain: string | undefined, text: string): Promise<Account> {
    this.checkOrigins(doc, fetchedFrom);
    const existing = await this.d.accounts.byUri(doc.id);
    const host = new URL(doc.id).host.toLowerCase();
    let domain: string;
    if (claimedDomain === undefined) domain = existing?.domain ?? (await this.handleDomain(doc));
    else if (claimedDomain === host || claimedDomain === existing?.domain) domain = claimedDomain;
    else {
      // WebFinger on one domain pointed at an actor on another host: believed only if the actor's own host names
      // that domain as its handle domain (otherwise any server could give itself someone else's actor).
      domain = await this.handleDomain(doc);
      if (domain !== claimedDomain) throw new FetchError('unsupported', 'handle_mismatch', doc.id);
    }
    return this.stored(doc, await this.d.accounts.upsertRemote(toRemoteData(doc, domain)), { text, path: ['attachment'] });
  }

  private async webfinger(domain: string, resource: string): Promise<WebFingerDoc> {
    const url = `${this.scheme}://${domain}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
    return (await this.d.http.getJson(url, webFingerSchema, { jrd: true })).value;
  }

  /**
   * The domain in the actor's handle. Usually its host; a split-domain server publishes handles on another domain,
   * which is believed only when that domain's WebFinger points back at this very actor.
   */
  private async handleDomain(doc: ActorDoc): Promise<string> {
    const host = new URL(doc.id).host.toLowerCase();
    try {
      const { subject } = await this.webfinger(host, `acct:${doc.preferredUsername}@${host}`);
      const claimed = /^acct:([^@]+)@(.+)$/i.exec(subject)?.[2]?.toLowerCase();
      if (!claimed || claimed === host) return host;
      return actorLink(await this.webfinger(claimed, subject)) === doc.id ? claimed : host;
    } catch (e) {
      this.d.log.debug({ err: e, actor: doc.id }, 'webfinger check failed; using the actor host as its domain');
      return host;
    }
  }
}

function isStale(a: Account): boolean {
  return !a.fetchedAt || Date.now() - a.fetchedAt.getTime() > STALE_AFTER_MS;
}

export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

export function toRemoteData(doc: ActorDoc, domain: string): RemoteAccountData {
  return {
    uri: doc.id,
    username: doc.preferredUsername,
    domain,
    actorType: doc.type,
    displayName: doc.name ?? '',
    note: sanitizeHtml(doc.summary ?? ''),
    url: doc.url,
    locked: doc.manuallyApprovesFollowers,
    bot: doc.type === 'Service' || doc.type === 'Application',
    discoverable: doc.discoverable,
    inboxUrl: doc.inbox,
    // A shared inbox elsewhere would let an actor point our deliveries at a third party.
    sharedInboxUrl: doc.sharedInbox && sameOrigin(doc.sharedInbox, doc.id) ? doc.sharedInbox : null,
    outboxUrl: doc.outbox,
    followersUrl: doc.followers,
    followingUrl: doc.following,
    featuredUrl: doc.featured,
    avatarRemoteUrl: doc.icon,
    headerRemoteUrl: doc.image,
    fields: doc.fields.map((f) => ({ name: f.name, value: sanitizeHtml(f.value) })),
    attachment: doc.attachment,
    alsoKnownAs: doc.alsoKnownAs,
    movedToUri: doc.movedTo,
    publicKeyId: doc.publicKey?.id ?? null,
    publicKeyPem: doc.publicKey?.publicKeyPem ?? null,
    publishedAt: doc.published ? new Date(doc.published) : null,
  };
}
