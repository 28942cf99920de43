// Mastodon Account entity for local accounts (remote accounts join this when federation lands).
import type { Config } from '../../config/schema.js';

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
