// The URLs of our own actors and collections, derived from BASE_URL in one place. Handles use LOCAL_DOMAIN;
// everything dereferenceable lives on the hosting origin (split-domain installations).
import type { Config } from '../../config/schema.js';

export class LocalUris {
  readonly base: string;
  readonly instanceActor: string;
  readonly instanceKeyId: string;
  readonly sharedInbox: string;
  private readonly usersPrefix: string;
  private readonly origin: string;

  constructor(config: Config) {
    this.base = config.baseUrl;
    this.instanceActor = `${this.base}/actor`;
    this.instanceKeyId = `${this.instanceActor}#main-key`;
    this.sharedInbox = `${this.base}/inbox`;
    this.usersPrefix = `${this.base}/users/`;
    this.origin = new URL(this.base).origin;
  }

  actor(username: string): string {
    return this.usersPrefix + username;
  }
  keyId(username: string): string {
    return `${this.actor(username)}#main-key`;
  }
  inbox(username: string): string {
    return `${this.actor(username)}/inbox`;
  }
  outbox(username: string): string {
    return `${this.actor(username)}/outbox`;
  }
  followers(username: string): string {
    return `${this.actor(username)}/followers`;
  }
  following(username: string): string {
    return `${this.actor(username)}/following`;
  }
  featured(username: string): string {
    return `${this.actor(username)}/collections/featured`;
  }
  profile(username: string): string {
    return `${this.base}/@${username}`;
  }
  /** A local status's ActivityPub id (the Note). */
  status(username: string, id: string): string {
    return `${this.actor(username)}/statuses/${id}`;
  }
  /** The page a person opens for a local status. */
  statusUrl(username: string, id: string): string {
    return `${this.base}/@${username}/${id}`;
  }
  tag(name: string): string {
    return `${this.base}/tags/${encodeURIComponent(name)}`;
  }
  /** A member's posts with a tag (a FeaturedTag's url, Mastodon's short_account_tag_url). */
  taggedBy(username: string, name: string): string {
    return `${this.profile(username)}/tagged/${encodeURIComponent(name)}`;
  }
  /** A local actor's featured hashtags (the actor's `featuredTags`, Mastodon's collections/tags). */
  featuredTags(username: string): string {
    return `${this.actor(username)}/collections/tags`;
  }
  /** The status id of a local status URI (`…/users/NAME/statuses/ID`), or undefined. */
  statusIdOf(uri: string): string | undefined {
    if (!uri.startsWith(this.usersPrefix)) return undefined;
    const m = /^[A-Za-z0-9_]+\/statuses\/(\d{1,19})$/.exec(uri.slice(this.usersPrefix.length));
    return m?.[1];
  }

  /**
   * The local status a URL names, by its page (`/@NAME/ID`) or its ActivityPub id (`/users/NAME/statuses/ID`) on our
   * origin; undefined for anything else (another origin, another path, not a URL at all). Outside input: oEmbed's `url`.
   */
  statusOfUrl(url: string): { username: string; id: string } | undefined {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    if (u.origin !== this.origin) return undefined;
    const m = /^\/(?:@([A-Za-z0-9_]{1,64})|users\/([A-Za-z0-9_]{1,64})\/statuses)\/(\d{1,19})\/?$/.exec(u.pathname);
    return m ? { username: (m[1] ?? m[2])!, id: m[3]! } : undefined;
  }

  /** The username of a local actor URI (`…/users/NAME`), or undefined for anything else. */
  usernameOf(uri: string): string | undefined {
    if (!uri.startsWith(this.usersPrefix)) return undefined;
    const rest = uri.slice(this.usersPrefix.length);
    return /^[A-Za-z0-9_]+$/.test(rest) ? rest : undefined;
  }

  isLocal(uri: string): boolean {
    return uri === this.instanceActor || uri.startsWith(this.base + '/');
  }
}
