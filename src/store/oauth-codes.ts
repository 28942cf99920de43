// Authorization codes: single use, short-lived, bound to the app, member, redirect URI, scopes and PKCE challenge.
import { hashSecret, newSecret } from '../auth/secrets.js';
import type { Database } from './db.js';

export interface AuthorizationCode {
  readonly appId: string;
  readonly userId: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly codeChallenge: string | null;
  readonly expiresAt: Date;
}

interface CodeRow extends Record<string, unknown> {
  app_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string | null;
  expires_at: Date;
}

export class CodeStore {
  constructor(private readonly db: Database) {}

  async issue(c: AuthorizationCode): Promise<string> {
    const code = newSecret();
    // Expired codes are swept here, where codes are made (same statement), so the table stays the size of the codes
    // in flight.
    await this.db.exec(
      `WITH swept AS (DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 hour')
       INSERT INTO oauth_codes (code_hash, app_id, user_id, redirect_uri, scopes, code_challenge, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [hashSecret(code), c.appId, c.userId, c.redirectUri, c.scopes, c.codeChallenge, c.expiresAt],
    );
    return code;
  }

  /** Removes the code and returns what it was bound to: whatever the exchange then decides, it cannot be replayed. */
  async consume(code: string): Promise<AuthorizationCode | undefined> {
    const r = await this.db.one<CodeRow>(
      'DELETE FROM oauth_codes WHERE code_hash = $1 RETURNING app_id, user_id, redirect_uri, scopes, code_challenge, expires_at',
      [hashSecret(code)],
    );
    return r && { appId: r.app_id, userId: r.user_id, redirectUri: r.redirect_uri, scopes: r.scopes, codeChallenge: r.code_challenge, expiresAt: r.expires_at };
  }
}
