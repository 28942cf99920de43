// Registered OAuth client applications. The client secret is returned once, at creation, and stored as a hash.
import { hashSecret, newSecret, secretMatches } from '../auth/secrets.js';
import type { Database } from './db.js';

export interface OAuthApp {
  readonly id: string;
  readonly name: string;
  readonly website: string | null;
  readonly redirectUris: readonly string[];
  readonly scopes: readonly string[];
  readonly clientId: string;
  readonly createdAt: Date;
}

interface AppRow extends Record<string, unknown> {
  id: string;
  name: string;
  website: string | null;
  redirect_uris: string[];
  scopes: string[];
  client_id: string;
  secret_hash: Buffer;
  created_at: Date;
}

const COLUMNS = 'id, name, website, redirect_uris, scopes, client_id, secret_hash, created_at';

function toApp(r: AppRow): OAuthApp {
  return { id: r.id, name: r.name, website: r.website, redirectUris: r.redirect_uris, scopes: r.scopes, clientId: r.client_id, createdAt: r.created_at };
}

export interface NewApp {
  readonly name: string;
  readonly website: string | null;
  readonly redirectUris: readonly string[];
  readonly scopes: readonly string[];
}

export class AppStore {
  constructor(private readonly db: Database) {}

  async create(a: NewApp): Promise<{ app: OAuthApp; clientSecret: string }> {
    const clientSecret = newSecret();
    const row = await this.db.one<AppRow>(
      `INSERT INTO oauth_apps (name, website, redirect_uris, scopes, client_id, secret_hash)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [a.name, a.website, a.redirectUris, a.scopes, newSecret(), hashSecret(clientSecret)],
    );
    return { app: toApp(row!), clientSecret };
  }

  async byId(id: string): Promise<OAuthApp | undefined> {
    const r = await this.db.one<AppRow>(`SELECT ${COLUMNS} FROM oauth_apps WHERE id = $1`, [id]);
    return r && toApp(r);
  }

  /** Name and website of each of these apps (how statuses show the app they were posted with). */
  async shown(ids: readonly string[]): Promise<Map<string, { name: string; website: string | null }>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.rows<{ id: string; name: string; website: string | null }>(
      'SELECT id, name, website FROM oauth_apps WHERE id = ANY($1::bigint[])',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, { name: r.name, website: r.website }]));
  }

  async byClientId(clientId: string): Promise<OAuthApp | undefined> {
    const r = await this.rowByClientId(clientId);
    return r && toApp(r);
  }

  /** The app when the client id and secret match, compared in constant time. */
  async authenticate(clientId: string, clientSecret: string): Promise<OAuthApp | undefined> {
    const r = await this.rowByClientId(clientId);
    return r && secretMatches(clientSecret, r.secret_hash) ? toApp(r) : undefined;
  }

  private rowByClientId(clientId: string): Promise<AppRow | undefined> {
    return this.db.one<AppRow>(`SELECT ${COLUMNS} FROM oauth_apps WHERE client_id = $1`, [clientId]);
  }
}
