// Access tokens: stored as SHA-256, never expiring, revoked by the app they were issued to or by the member.
// Every revocation notifies AUTH_CHANNEL in the same statement, so caches on every node drop the token at commit.
import { hashSecret, newSecret } from '../auth/secrets.js';
import { AUTH_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';
import { toUser, USER_COLUMNS, type LocalUser, type UserRow } from './users.js';

export interface TokenRecord {
  readonly tokenId: string;
  readonly appId: string;
  readonly scopes: readonly string[];
  /** null for an application token (client_credentials). */
  readonly user: LocalUser | null;
}

interface LookupRow extends UserRow {
  token_id: string;
  app_id: string;
  scopes: string[];
  token_user_id: string | null;
}

export interface AuthorizedApp {
  readonly appId: string;
  readonly name: string;
  readonly website: string | null;
  readonly scopes: readonly string[];
  readonly authorizedAt: Date;
  readonly lastUsedAt: Date | null;
}

/** revoked: this call revoked it (and notified AUTH_CHANNEL) or it was revoked already. */
export type RevokeOutcome = { readonly kind: 'revoked'; readonly notified: boolean } | { readonly kind: 'unknown' } | { readonly kind: 'other_app' };

export class TokenStore {
  constructor(private readonly db: Database) {}

  async issue(appId: string, userId: string | null, scopes: readonly string[]): Promise<{ token: string; createdAt: Date }> {
    const token = newSecret();
    const r = await this.db.one<{ created_at: Date }>(
      'INSERT INTO oauth_tokens (token_hash, app_id, user_id, scopes) VALUES ($1, $2, $3, $4) RETURNING created_at',
      [hashSecret(token), appId, userId, scopes],
    );
    return { token, createdAt: r!.created_at };
  }

  /** A live token with its member (if any), by the hash of the bearer value. */
  async lookup(tokenHash: Buffer): Promise<TokenRecord | undefined> {
    const r = await this.db.one<LookupRow>(
      `SELECT t.id AS token_id, t.app_id, t.scopes, t.user_id AS token_user_id, ${USER_COLUMNS}
         FROM oauth_tokens t
         LEFT JOIN users u ON u.id = t.user_id
         LEFT JOIN accounts a ON a.id = u.account_id
         LEFT JOIN roles r ON r.id = u.role_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
      [tokenHash],
    );
    if (!r) return undefined;
    return { tokenId: r.token_id, appId: r.app_id, scopes: r.scopes, user: r.token_user_id === null ? null : toUser(r) };
  }

  /** Revokes a token on behalf of the app it was issued to (RFC 7009); another app's token is left alone. */
  async revokeForApp(token: string, appId: string, nonce: string): Promise<RevokeOutcome> {
    const r = await this.db.one<{ id: string; app_id: string; notified: boolean }>(
      `WITH t AS (SELECT id, app_id FROM oauth_tokens WHERE token_hash = $1),
            r AS (UPDATE oauth_tokens SET revoked_at = now()
                   WHERE id = (SELECT id FROM t) AND app_id = $2 AND revoked_at IS NULL RETURNING id),
            n AS MATERIALIZED (SELECT pg_notify('${AUTH_CHANNEL}', 'token:' || r.id || '|' || $3) FROM r)
       SELECT t.id, t.app_id, (SELECT count(*) FROM n) > 0 AS notified FROM t`,
      [hashSecret(token), appId, nonce],
    );
    if (!r) return { kind: 'unknown' };
    if (r.app_id !== appId) return { kind: 'other_app' };
    return { kind: 'revoked', notified: r.notified };
  }

  /** Revokes every token the member granted to an app, and any code not yet exchanged; returns how many tokens. */
  async revokeAppForUser(userId: string, appId: string, nonce: string): Promise<number> {
    return this.db.tx(async (q) => {
      await q.query('DELETE FROM oauth_codes WHERE user_id = $1 AND app_id = $2', [userId, appId]);
      const r = await q.query<{ n: string }>(
        'WITH r AS (UPDATE oauth_tokens SET revoked_at = now() WHERE user_id = $1 AND app_id = $2 AND revoked_at IS NULL RETURNING id) SELECT count(*) AS n FROM r',
        [userId, appId],
      );
      const n = Number(r.rows[0]!.n);
      // One notification for the whole grant, sent at commit.
      if (n > 0) await q.query(`SELECT pg_notify('${AUTH_CHANNEL}', 'grant:' || $1 || ':' || $2 || '|' || $3)`, [userId, appId, nonce]);
      return n;
    });
  }

  /** The apps a member has live tokens for, with the union of their scopes and the latest use. */
  async authorizedApps(userId: string): Promise<AuthorizedApp[]> {
    const rows = await this.db.rows<{ app_id: string; name: string; website: string | null; scopes: string[]; authorized_at: Date; last_used_at: Date | null }>(
      `SELECT a.id AS app_id, a.name, a.website,
              array(SELECT DISTINCT s FROM oauth_tokens t2, unnest(t2.scopes) s
                     WHERE t2.user_id = $1 AND t2.app_id = a.id AND t2.revoked_at IS NULL ORDER BY s) AS scopes,
              min(t.created_at) AS authorized_at, max(t.last_used_at) AS last_used_at
         FROM oauth_tokens t JOIN oauth_apps a ON a.id = t.app_id
        WHERE t.user_id = $1 AND t.revoked_at IS NULL
        GROUP BY a.id ORDER BY min(t.created_at)`,
      [userId],
    );
    return rows.map((r) => ({
      appId: r.app_id,
      name: r.name,
      website: r.website,
      scopes: r.scopes,
      authorizedAt: r.authorized_at,
      lastUsedAt: r.last_used_at,
    }));
  }

  /** Writes a batch of last-use times in one statement. */
  async recordUse(ids: readonly string[], times: readonly Date[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.exec(
      `UPDATE oauth_tokens t SET last_used_at = v.at
         FROM unnest($1::bigint[], $2::timestamptz[]) AS v(id, at)
        WHERE t.id = v.id AND (t.last_used_at IS NULL OR t.last_used_at < v.at)`,
      [ids, times],
    );
  }
}
