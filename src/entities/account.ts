// Mastodon Account entity for local accounts (remote accounts join this when federation lands).
import type { Config } from '../../config/schema.js';
import type { LocalUser } from '../store/users.js';

export interface AccountRow {
  readonly id: string;
  readonly username: string;
  readonly displayName: string;
  readonly note: string;
  readonly locked: boolean;
  readonly bot: boolean;
  readonly discoverable: boolean | null;
  readonly createdAt: Date;
}

export function missingImage(config: Config, kind: 'avatars' | 'headers'): string {
  return `${config.baseUrl}/${kind}/original/missing.png`;
}

export function accountEntity(a: AccountRow, config: Config) {
  const avatar = missingImage(config, 'avatars');
  const header = missingImage(config, 'headers');
  const created = new Date(a.createdAt);
  created.setUTCHours(0, 0, 0, 0); // Mastodon reports the sign-up day, not the instant
  return {
    id: a.id,
    username: a.username,
    acct: a.username,
    display_name: a.displayName,
    locked: a.locked,
    bot: a.bot,
    discoverable: a.discoverable,
    indexable: false,
    group: false,
    created_at: created.toISOString(),
    note: a.note,
    url: `${config.baseUrl}/@${a.username}`,
    uri: `${config.baseUrl}/users/${a.username}`,
    avatar,
    avatar_static: avatar,
    avatar_description: '',
    header,
    header_static: header,
    header_description: '',
    followers_count: 0,
    following_count: 0,
    statuses_count: 0,
    last_status_at: null,
    hide_collections: null,
    noindex: false,
    emojis: [],
    roles: [],
    fields: [],
  };
}

function accountRowOf(u: LocalUser): AccountRow {
  return { id: u.accountId, username: u.username, displayName: u.displayName, note: u.note, locked: u.locked, bot: u.bot, discoverable: u.discoverable, createdAt: u.accountCreatedAt };
}

/** CredentialAccount: the member's own Account with `source` (editing defaults) and `role`. */
export function credentialAccountEntity(u: LocalUser, config: Config) {
  const role = { id: String(u.roleId), name: u.roleName === 'everyone' ? '' : u.roleName, permissions: String(u.permissions), color: u.roleColor, highlighted: u.roleHighlighted };
  return {
    ...accountEntity(accountRowOf(u), config),
    roles: u.roleHighlighted ? [{ id: role.id, name: role.name, color: role.color }] : [],
    source: {
      privacy: 'public',
      sensitive: false,
      language: '',
      note: u.note,
      fields: [],
      follow_requests_count: 0,
      hide_collections: null,
      discoverable: u.discoverable,
      indexable: false,
      attribution_domains: [],
      quote_policy: 'public',
    },
    role,
  };
}
