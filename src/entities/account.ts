// Mastodon Account entity, for local and remote accounts.
import type { Config } from '../../config/schema.js';
import type { LocalUser } from '../store/users.js';
import { inlineHtml } from '../text/status-text.js';
import { plainTextToHtml } from '../text/plain-text.js';
import { missingImage, profileImageStaticUrl, profileImageUrl, remoteImageUrl } from '../urls/media-urls.js';

export interface AccountRow {
  readonly id: string;
  readonly username: string;
  readonly displayName: string;
  readonly note: string;
  readonly locked: boolean;
  readonly bot: boolean;
  readonly discoverable: boolean | null;
  readonly createdAt: Date;
  /** Remote accounts: their domain and what their server published. */
  readonly domain?: string | null;
  readonly uri?: string | null;
  readonly url?: string | null;
  readonly actorType?: string;
  readonly avatarRemoteUrl?: string | null;
  readonly headerRemoteUrl?: string | null;
  readonly avatarFile?: string | null;
  readonly headerFile?: string | null;
  readonly fields?: readonly { readonly name: string; readonly value: string }[];
  readonly remoteFollowersCount?: number | null;
  readonly remoteFollowingCount?: number | null;
  readonly remoteStatusesCount?: number | null;
  readonly publishedAt?: Date | null;
}

/** Follower and following counts we know from our own records. */
export interface AccountCounts {
  readonly followers: number;
  readonly following: number;
  /** Statuses we hold (for remote accounts, their server's figure wins when it published one). */
  readonly statuses?: number;
  readonly lastStatusAt?: Date | null;
  /** The day (UTC, YYYY-MM-DD) of the last status, as a page's counts carry it (render-bundle.ts dayText): shown as is. */
  readonly lastStatusDay?: string | null;
}

export function accountEntity(a: AccountRow, config: Config, counts?: AccountCounts) {
  const remote = !!a.domain;
  // Remote images go through our proxy; local ones are served from the media storage.
  const avatar =
    (remote
      ? a.avatarRemoteUrl && remoteImageUrl(config, a.id, 'avatar', a.avatarRemoteUrl)
      : a.avatarFile && profileImageUrl(config, 'avatars', a.avatarFile)) || missingImage(config, 'avatars');
  const header =
    (remote
      ? a.headerRemoteUrl && remoteImageUrl(config, a.id, 'header', a.headerRemoteUrl)
      : a.headerFile && profileImageUrl(config, 'headers', a.headerFile)) || missingImage(config, 'headers');
  // A local GIF or WebP has a still PNG twin; a remote account's image is given as it is (no still made of it yet).
  const avatarStatic = !remote && a.avatarFile ? profileImageStaticUrl(config, 'avatars', a.avatarFile) : avatar;
  const headerStatic = !remote && a.headerFile ? profileImageStaticUrl(config, 'headers', a.headerFile) : header;
  const created = new Date(remote && a.publishedAt ? a.publishedAt : a.createdAt);
  created.setUTCHours(0, 0, 0, 0); // Mastodon reports the sign-up day, not the instant
  return {
    id: a.id,
    username: a.username,
    acct: remote ? `${a.username}@${a.domain}` : a.username,
    display_name: a.displayName,
    locked: a.locked,
    bot: a.bot,
    discoverable: a.discoverable,
    indexable: false,
    group: a.actorType === 'Group',
    created_at: created.toISOString(),
    // Remote notes were reduced to safe HTML when stored; local ones are plain text.
    note: remote ? a.note : plainTextToHtml(a.note),
    url: remote ? (a.url ?? a.uri!) : `${config.baseUrl}/@${a.username}`,
    uri: remote ? a.uri! : `${config.baseUrl}/users/${a.username}`,
    avatar,
    avatar_static: avatarStatic,
    avatar_description: '',
    header,
    header_static: headerStatic,
    header_description: '',
    ...countFields(a, counts),
    hide_collections: null,
    noindex: false,
    emojis: [],
    roles: [],
    // Remote values were reduced to safe HTML when stored; local ones are the member's plain text.
    fields: (a.fields ?? []).map((f) => ({ name: f.name, value: remote ? f.value : inlineHtml(f.value), verified_at: null })),
  };
}

/** The entity's counts: a remote server's figures when it published them, else ours. */
function countFields(a: AccountRow, counts: AccountCounts | undefined) {
  const remote = !!a.domain;
  return {
    followers_count: (remote ? a.remoteFollowersCount : null) ?? counts?.followers ?? 0,
    following_count: (remote ? a.remoteFollowingCount : null) ?? counts?.following ?? 0,
    statuses_count: (remote ? a.remoteStatusesCount : null) ?? counts?.statuses ?? 0,
    last_status_at: counts?.lastStatusDay ?? (counts?.lastStatusAt ? counts.lastStatusAt.toISOString().slice(0, 10) : null),
  };
}

/**
 * An entity rendered without counts (kept by the rendered-status cache) with this moment's counts: the keys keep
 * their places, so the JSON is the same as accountEntity's. Written key by key: spreading the (frozen) entity took the
 * slow path for every key, once per author on every page (issue 19). test/api/entity-shapes.test.ts holds the keys
 * and their order equal to accountEntity's.
 */
export function withAccountCounts(e: AccountEntity, a: AccountRow, counts: AccountCounts | undefined): AccountEntity {
  const c = countFields(a, counts);
  return {
    id: e.id,
    username: e.username,
    acct: e.acct,
    display_name: e.display_name,
    locked: e.locked,
    bot: e.bot,
    discoverable: e.discoverable,
    indexable: e.indexable,
    group: e.group,
    created_at: e.created_at,
    note: e.note,
    url: e.url,
    uri: e.uri,
    avatar: e.avatar,
    avatar_static: e.avatar_static,
    avatar_description: e.avatar_description,
    header: e.header,
    header_static: e.header_static,
    header_description: e.header_description,
    followers_count: c.followers_count,
    following_count: c.following_count,
    statuses_count: c.statuses_count,
    last_status_at: c.last_status_at,
    hide_collections: e.hide_collections,
    noindex: e.noindex,
    emojis: e.emojis,
    roles: e.roles,
    fields: e.fields,
  };
}

export type AccountEntity = ReturnType<typeof accountEntity>;

/**
 * An entity's JSON without counts, split where they go (after header_description), so that a page writes it with
 * this moment's counts without serialising the rest again (issue 19). JSON.stringify escapes every quote inside a
 * string, so `,"followers_count":` and `,"hide_collections":` can only be the keys.
 */
export interface AccountJson {
  readonly head: string;
  readonly tail: string;
}

export function accountJsonParts(e: AccountEntity): AccountJson {
  const text = JSON.stringify(e);
  return { head: text.slice(0, text.indexOf(',"followers_count":') + 1), tail: text.slice(text.indexOf(',"hide_collections":')) };
}

/** The same text as JSON.stringify(withAccountCounts(e, a, counts)) for the entity the parts were made of. */
export function accountJsonWithCounts(p: AccountJson, a: AccountRow, counts: AccountCounts | undefined): string {
  return accountJsonOf(p, countFields(a, counts));
}

/** JSON text of a value that is a number when all is well (exactly as JSON.stringify writes it either way). */
const scalar = (v: unknown): string => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/**
 * The same text as JSON.stringify(e) for an entity with counts that withAccountCounts made of the entity `p` was made
 * of (or for that entity with `e`'s counts): the counts are read from e, written without serialising an object.
 */
export function accountJsonOf(p: AccountJson, e: ReturnType<typeof countFields>): string {
  return `${p.head}"followers_count":${scalar(e.followers_count)},"following_count":${scalar(e.following_count)},"statuses_count":${scalar(e.statuses_count)},"last_status_at":${scalar(e.last_status_at)}${p.tail}`;
}

function accountRowOf(u: LocalUser): AccountRow {
  return {
    id: u.accountId,
    username: u.username,
    displayName: u.displayName,
    note: u.note,
    locked: u.locked,
    bot: u.bot,
    discoverable: u.discoverable,
    createdAt: u.accountCreatedAt,
    avatarFile: u.avatarFile,
    headerFile: u.headerFile,
    fields: u.fields,
  };
}

/** Mastodon's Role entity (the base role, everyone, has no name). */
export function roleEntity(u: Pick<LocalUser, 'roleId' | 'roleName' | 'permissions' | 'roleColor' | 'roleHighlighted'>) {
  return {
    id: String(u.roleId),
    name: u.roleName === 'everyone' ? '' : u.roleName,
    permissions: String(u.permissions),
    color: u.roleColor,
    highlighted: u.roleHighlighted,
  };
}

/** CredentialAccount: the member's own Account with counts, `source` (editing defaults) and `role`. */
export function credentialAccountEntity(u: LocalUser, config: Config, counts: AccountCounts & { readonly requests: number }) {
  const role = roleEntity(u);
  return {
    ...accountEntity(accountRowOf(u), config, counts),
    roles: u.roleHighlighted ? [{ id: role.id, name: role.name, color: role.color }] : [],
    source: {
      privacy: u.defaultPrivacy,
      sensitive: u.defaultSensitive,
      language: u.defaultLanguage ?? '',
      note: u.note,
      fields: u.fields.map((f) => ({ name: f.name, value: f.value, verified_at: null })),
      follow_requests_count: counts.requests,
      hide_collections: null,
      discoverable: u.discoverable,
      indexable: false,
      attribution_domains: [],
      quote_policy: 'public',
    },
    role,
  };
}
