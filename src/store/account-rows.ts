// What an account row is: the Account the code sees, the columns read and their mapping, and the shapes written
// (a member's profile change, a remote actor's document as stored, a local account's key pair). The statements are
// in accounts.ts.
import type { Visibility } from './status-rows.js';

export interface ProfileField {
  readonly name: string;
  readonly value: string;
}

export interface Account {
  readonly id: string;
  readonly username: string;
  /** null for local accounts. */
  readonly domain: string | null;
  readonly displayName: string;
  readonly note: string;
  readonly locked: boolean;
  readonly bot: boolean;
  readonly discoverable: boolean | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly uri: string | null;
  readonly url: string | null;
  readonly actorType: string;
  readonly inboxUrl: string | null;
  readonly sharedInboxUrl: string | null;
  readonly outboxUrl: string | null;
  readonly followersUrl: string | null;
  readonly followingUrl: string | null;
  readonly featuredUrl: string | null;
  readonly avatarRemoteUrl: string | null;
  readonly headerRemoteUrl: string | null;
  /** Local accounts: their avatar and header files under the data directory. */
  readonly avatarFile: string | null;
  readonly headerFile: string | null;
  readonly fields: readonly ProfileField[];
  readonly attachment: readonly unknown[];
  readonly alsoKnownAs: readonly string[];
  readonly movedToUri: string | null;
  readonly publicKeyId: string | null;
  readonly publicKeyPem: string | null;
  readonly remoteFollowersCount: number | null;
  readonly remoteFollowingCount: number | null;
  readonly remoteStatusesCount: number | null;
  readonly publishedAt: Date | null;
  readonly fetchedAt: Date | null;
  readonly deletedAt: Date | null;
  /** A moderator (or a domain block) suspended it: its posts are hidden and nothing is fetched for it. */
  readonly suspendedAt: Date | null;
  /** A moderator silenced it: its posts stay out of the public feeds. */
  readonly silencedAt: Date | null;
  /** A moderator marked its media sensitive: every post with media is shown as sensitive. */
  readonly sensitizedAt: Date | null;
  readonly instanceActor: boolean;
  /** Local accounts that can sign in have a user; the instance actor has none. */
  readonly hasUser: boolean;
}

/** A member's profile edit (update_credentials): undefined leaves a value alone, null removes an image or language. */
export interface ProfileChange {
  readonly displayName?: string;
  readonly note?: string;
  readonly locked?: boolean;
  readonly bot?: boolean;
  readonly discoverable?: boolean;
  readonly fields?: readonly ProfileField[];
  readonly avatarFile?: string | null;
  readonly headerFile?: string | null;
  readonly defaultPrivacy?: Visibility;
  readonly defaultSensitive?: boolean;
  readonly defaultLanguage?: string | null;
}

/** What a remote server published about an actor, already validated and normalised. */
export interface RemoteAccountData {
  readonly uri: string;
  readonly username: string;
  readonly domain: string;
  readonly actorType: string;
  readonly displayName: string;
  readonly note: string;
  readonly url: string | null;
  readonly locked: boolean;
  readonly bot: boolean;
  readonly discoverable: boolean | null;
  readonly inboxUrl: string;
  readonly sharedInboxUrl: string | null;
  readonly outboxUrl: string | null;
  readonly followersUrl: string | null;
  readonly followingUrl: string | null;
  readonly featuredUrl: string | null;
  readonly avatarRemoteUrl: string | null;
  readonly headerRemoteUrl: string | null;
  readonly fields: readonly ProfileField[];
  readonly attachment: readonly unknown[];
  readonly alsoKnownAs: readonly string[];
  readonly movedToUri: string | null;
  readonly publicKeyId: string | null;
  readonly publicKeyPem: string | null;
  readonly publishedAt: Date | null;
  readonly remoteFollowersCount?: number | null;
  readonly remoteFollowingCount?: number | null;
  readonly remoteStatusesCount?: number | null;
}

export const ACCOUNT_COLUMNS = `a.id, a.username, a.domain, a.display_name, a.note, a.locked, a.bot, a.discoverable, a.created_at, a.updated_at,
  a.uri, a.url, a.actor_type, a.inbox_url, a.shared_inbox_url, a.outbox_url, a.followers_url, a.following_url, a.featured_url,
  a.avatar_remote_url, a.header_remote_url, a.avatar_file, a.header_file, a.fields, a.attachment, a.also_known_as, a.moved_to_uri, a.public_key_id,
  a.public_key_pem, a.remote_followers_count, a.remote_following_count, a.remote_statuses_count, a.published_at,
  a.fetched_at, a.deleted_at, a.suspended_at, a.silenced_at, a.sensitized_at, a.instance_actor, EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id) AS has_user`;

export interface AccountDbRow extends Record<string, unknown> {
  id: string;
  username: string;
  domain: string | null;
  display_name: string;
  note: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean | null;
  created_at: Date;
  updated_at: Date;
  uri: string | null;
  url: string | null;
  actor_type: string;
  inbox_url: string | null;
  shared_inbox_url: string | null;
  outbox_url: string | null;
  followers_url: string | null;
  following_url: string | null;
  featured_url: string | null;
  avatar_remote_url: string | null;
  header_remote_url: string | null;
  avatar_file: string | null;
  header_file: string | null;
  fields: ProfileField[];
  attachment: unknown[];
  also_known_as: string[];
  moved_to_uri: string | null;
  public_key_id: string | null;
  public_key_pem: string | null;
  remote_followers_count: number | null;
  remote_following_count: number | null;
  remote_statuses_count: number | null;
  published_at: Date | null;
  fetched_at: Date | null;
  deleted_at: Date | null;
  suspended_at: Date | null;
  silenced_at: Date | null;
  sensitized_at: Date | null;
  instance_actor: boolean;
  has_user: boolean;
}

export function toAccount(r: AccountDbRow): Account {
  return {
    id: r.id,
    username: r.username,
    domain: r.domain,
    displayName: r.display_name,
    note: r.note,
    locked: r.locked,
    bot: r.bot,
    discoverable: r.discoverable,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    uri: r.uri,
    url: r.url,
    actorType: r.actor_type,
    inboxUrl: r.inbox_url,
    sharedInboxUrl: r.shared_inbox_url,
    outboxUrl: r.outbox_url,
    followersUrl: r.followers_url,
    followingUrl: r.following_url,
    featuredUrl: r.featured_url,
    avatarRemoteUrl: r.avatar_remote_url,
    headerRemoteUrl: r.header_remote_url,
    avatarFile: r.avatar_file,
    headerFile: r.header_file,
    fields: r.fields,
    attachment: r.attachment,
    alsoKnownAs: r.also_known_as,
    movedToUri: r.moved_to_uri,
    publicKeyId: r.public_key_id,
    publicKeyPem: r.public_key_pem,
    remoteFollowersCount: r.remote_followers_count,
    remoteFollowingCount: r.remote_following_count,
    remoteStatusesCount: r.remote_statuses_count,
    publishedAt: r.published_at,
    fetchedAt: r.fetched_at,
    deletedAt: r.deleted_at,
    suspendedAt: r.suspended_at,
    silencedAt: r.silenced_at,
    sensitizedAt: r.sensitized_at,
    instanceActor: r.instance_actor,
    hasUser: r.has_user,
  };
}

export interface LocalKeys {
  readonly publicKeyPem: string;
  readonly privateKeyPem: string;
}
