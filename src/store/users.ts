// Local people: an account (the actor) plus a user (the sign-in), created together.
import { AUTH_CHANNEL, newNonce } from './auth-events.js';
import type { Database, Queryable } from './db.js';
import type { ProfileField } from './accounts.js';
import { VISIBILITIES, type Visibility } from './statuses.js';

export interface LocalUser {
  readonly userId: string;
  readonly accountId: string;
  readonly username: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly roleId: number;
  readonly roleName: string;
  /** The role's rank: a moderator acts only on members whose role ranks below theirs (Mastodon's overrides?). */
  readonly rolePosition: number;
  readonly permissions: bigint;
  readonly approved: boolean;
  readonly disabled: boolean;
  /** A moderator suspended the account: like disabled, the member can neither sign in nor use a token. */
  readonly suspended: boolean;
  readonly signUpReason: string | null;
  /** The application the member signed up through (POST /api/v1/accounts); null when signed up on the page. */
  readonly createdByAppId: string | null;
  readonly createdAt: Date;
  /** The account (profile) side, for the Account entity. */
  readonly displayName: string;
  readonly note: string;
  readonly locked: boolean;
  readonly bot: boolean;
  readonly discoverable: boolean | null;
  readonly accountCreatedAt: Date;
  readonly roleColor: string;
  readonly roleHighlighted: boolean;
  readonly avatarFile: string | null;
  readonly headerFile: string | null;
  readonly fields: readonly ProfileField[];
  /** Posting defaults (CredentialAccount source): visibility, sensitive media, language. */
  readonly defaultPrivacy: Visibility;
  readonly defaultSensitive: boolean;
  readonly defaultLanguage: string | null;
}

/** The columns of a LocalUser, for any query joining users u, accounts a and roles r. */
export const USER_COLUMNS = `u.id AS user_id, a.id AS account_id, a.username, u.email, u.password_hash, u.role_id,
  r.name AS role_name, r.position AS role_position, r.permissions, u.approved, u.disabled, a.suspended_at IS NOT NULL AS suspended, u.sign_up_reason, u.created_at, a.display_name, a.note,
  a.locked, a.bot, a.discoverable, a.created_at AS account_created_at, r.color AS role_color, r.highlighted AS role_highlighted,
  a.avatar_file, a.header_file, a.fields, u.default_privacy, u.default_sensitive, u.default_language,
  u.created_by_application_id`;

const SELECT_USER = `SELECT ${USER_COLUMNS} FROM users u JOIN accounts a ON a.id = u.account_id JOIN roles r ON r.id = u.role_id`;

export interface UserRow extends Record<string, unknown> {
  user_id: string;
  account_id: string;
  username: string;
  email: string;
  password_hash: string;
  role_id: string;
  role_name: string;
  role_position: number;
  permissions: string;
  approved: boolean;
  disabled: boolean;
  suspended: boolean;
  sign_up_reason: string | null;
  created_at: Date;
  display_name: string;
  note: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean | null;
  account_created_at: Date;
  role_color: string;
  role_highlighted: boolean;
  avatar_file: string | null;
  header_file: string | null;
  fields: ProfileField[];
  default_privacy: number;
  default_sensitive: boolean;
  default_language: string | null;
  created_by_application_id: string | null;
}

export function toUser(r: UserRow): LocalUser {
  return {
    userId: r.user_id,
    accountId: r.account_id,
    username: r.username,
    email: r.email,
    passwordHash: r.password_hash,
    roleId: Number(r.role_id),
    roleName: r.role_name,
    rolePosition: r.role_position,
    permissions: BigInt(r.permissions),
    approved: r.approved,
    disabled: r.disabled,
    suspended: r.suspended,
    signUpReason: r.sign_up_reason,
    createdAt: r.created_at,
    displayName: r.display_name,
    note: r.note,
    locked: r.locked,
    bot: r.bot,
    discoverable: r.discoverable,
    accountCreatedAt: r.account_created_at,
    roleColor: r.role_color,
    roleHighlighted: r.role_highlighted,
    avatarFile: r.avatar_file,
    headerFile: r.header_file,
    fields: r.fields,
    defaultPrivacy: VISIBILITIES[r.default_privacy] ?? 'public',
    defaultSensitive: r.default_sensitive,
    defaultLanguage: r.default_language,
    createdByAppId: r.created_by_application_id,
  };
}

/** A member as moderators see them: with the last sign-in (Admin::Account's ip and ips). */
export interface ModeratedUser extends LocalUser {
  readonly lastSignInIp: string | null;
  readonly lastSignInAt: Date | null;
}

export class DuplicateError extends Error {
  constructor(readonly field: 'username' | 'email') {
    super(`${field} is already taken`);
  }
}

export interface NewUser {
  username: string;
  email: string;
  passwordHash: string;
  roleId: number;
  approved: boolean;
  signUpReason?: string | null;
  createdByAppId?: string | null;
  locale?: string | null;
}

export class UserStore {
  constructor(private readonly db: Database) {}

  async create(u: NewUser, q: Queryable = this.db.pool): Promise<LocalUser> {
    try {
      const run = async (c: Queryable) => {
        const acct = await c.query<{ id: string }>('INSERT INTO accounts (username, domain) VALUES ($1, NULL) RETURNING id', [u.username]);
        await c.query(
          `INSERT INTO users (account_id, email, password_hash, role_id, approved, sign_up_reason, created_by_application_id, locale)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [acct.rows[0]!.id, u.email, u.passwordHash, u.roleId, u.approved, u.signUpReason ?? null, u.createdByAppId ?? null, u.locale ?? null],
        );
        return acct.rows[0]!.id;
      };
      const accountId = q === this.db.pool ? await this.db.tx(run) : await run(q);
      return (await this.byAccountId(accountId))!;
    } catch (e) {
      const err = e as { code?: string; constraint?: string };
      if (err.code === '23505') throw new DuplicateError(err.constraint === 'users_email' ? 'email' : 'username');
      throw e;
    }
  }

  async byLogin(login: string): Promise<LocalUser | undefined> {
    const where = login.includes('@') ? 'lower(u.email) = lower($1)' : 'lower(a.username) = lower($1) AND a.domain IS NULL';
    const r = await this.db.one<UserRow>(`${SELECT_USER} WHERE ${where}`, [login]);
    return r && toUser(r);
  }

  async byUserId(id: string): Promise<LocalUser | undefined> {
    const r = await this.db.one<UserRow>(`${SELECT_USER} WHERE u.id = $1`, [id]);
    return r && toUser(r);
  }

  async byAccountId(id: string): Promise<LocalUser | undefined> {
    const r = await this.db.one<UserRow>(`${SELECT_USER} WHERE a.id = $1`, [id]);
    return r && toUser(r);
  }

  async forModeration(accountIds: readonly string[]): Promise<ModeratedUser[]> {
    if (accountIds.length === 0) return [];
    const rows = await this.db.rows<UserRow & { last_sign_in_ip: string | null; last_sign_in_at: Date | null }>(
      `SELECT ${USER_COLUMNS}, u.last_sign_in_ip, u.last_sign_in_at FROM users u JOIN accounts a ON a.id = u.account_id JOIN roles r ON r.id = u.role_id
       WHERE u.account_id = ANY($1::bigint[])`,
      [accountIds],
    );
    return rows.map((r) => ({ ...toUser(r), lastSignInIp: r.last_sign_in_ip, lastSignInAt: r.last_sign_in_at }));
  }

  async count(): Promise<number> {
    const r = await this.db.one<{ n: string }>('SELECT count(*) AS n FROM users');
    return Number(r?.n ?? 0);
  }

  async pending(): Promise<LocalUser[]> {
    return (await this.db.rows<UserRow>(`${SELECT_USER} WHERE NOT u.approved ORDER BY u.created_at`)).map(toUser);
  }

  /** Approving notifies AUTH_CHANNEL as disabling does: a token the member got at sign-up (API) stops being refused. */
  async approve(userId: string, nonce = newNonce()): Promise<boolean> {
    return (
      (await this.db.exec(
        `WITH u AS (UPDATE users SET approved = true WHERE id = $1 AND NOT approved RETURNING id)
       SELECT pg_notify('${AUTH_CHANNEL}', 'user:' || id || '|' || $2) FROM u`,
        [userId, nonce],
      )) === 1
    );
  }

  /** Rejecting a pending sign-up removes it entirely, freeing the username and e-mail. */
  async reject(userId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM accounts WHERE id = (SELECT account_id FROM users WHERE id = $1 AND NOT approved)', [userId])) === 1;
  }

  /**
   * Disabling or enabling notifies AUTH_CHANNEL at commit, so every node's token cache drops the member; run it
   * through AuthEventListener.publish to wait until every node has.
   */
  async setDisabled(userId: string, disabled: boolean, nonce = newNonce()): Promise<boolean> {
    return (
      (await this.db.exec(
        `WITH u AS (UPDATE users SET disabled = $2 WHERE id = $1 RETURNING id)
       SELECT pg_notify('${AUTH_CHANNEL}', 'user:' || id || '|' || $3) FROM u`,
        [userId, disabled, nonce],
      )) === 1
    );
  }

  async recordSignIn(userId: string, ip: string): Promise<void> {
    await this.db.exec('UPDATE users SET last_sign_in_at = now(), last_sign_in_ip = $2 WHERE id = $1', [userId, ip]);
  }
}
