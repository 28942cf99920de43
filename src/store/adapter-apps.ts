// The built-in OAuth application the link-aggregator adapter signs Lemmy clients in through (POST /api/v3/user/login
// issues its tokens): one oauth_apps row for the cluster, made on first use and remembered in settings, so members
// see it (and can revoke it) under Authorized applications like any app.
import { hashSecret, newSecret } from '../auth/secrets.js';
import type { Database } from './db.js';

export const LEMMY_APP_NAME = 'Lemmy clients (/api/v3)';
const KEY = 'lemmy_adapter_app_id';

export class AdapterAppStore {
  constructor(private readonly db: Database) {}

  /** The adapter app's id, made once (nodes starting together agree: the first to take the lock makes it). */
  async lemmyApp(): Promise<string> {
    return this.db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [KEY]);
      const found = await q.query<{ id: string }>(
        `SELECT a.id::text AS id FROM settings s JOIN oauth_apps a ON a.id = (s.value #>> '{}')::bigint WHERE s.key = $1`,
        [KEY],
      );
      if (found.rows[0]) return found.rows[0].id;
      // No client secret is ever handed out: the app only receives tokens from the sign-in route.
      const made = await q.query<{ id: string }>(
        `INSERT INTO oauth_apps (name, website, redirect_uris, scopes, client_id, secret_hash)
         VALUES ($1, NULL, '{}', '{read,write,follow}', $2, $3) RETURNING id::text AS id`,
        [LEMMY_APP_NAME, newSecret(), hashSecret(newSecret())],
      );
      const id = made.rows[0]!.id;
      await q.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`, [
        KEY,
        JSON.stringify(id),
      ]);
      return id;
    });
  }
}
