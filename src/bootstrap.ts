// The database the server runs on (given or embedded), migrated; and the first start's Owner account.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { generatePassword, hashPassword } from './auth/password.js';
import { RoleId } from './auth/permissions.js';
import type { Logger } from './log.js';
import { Database } from './store/db.js';
import { startEmbeddedPostgres, type EmbeddedOptions } from './store/embedded.js';
import { migrate } from './store/migrate.js';
import type { UserStore } from './store/users.js';

export interface OpenedDatabase {
  readonly db: Database;
  /** Stops the embedded PostgreSQL, if this process started one. */
  readonly stopEmbedded: () => Promise<void>;
}

export interface OpenOptions extends EmbeddedOptions {
  /** false (the CLI): an embedded database that does not exist yet is an error, not created. */
  readonly createEmbedded?: boolean;
}

/** Nothing to act on: no DATABASE_URL and no embedded cluster yet, where creating one was not allowed. */
export class NoDatabaseError extends Error {
  constructor(readonly dataDir: string) {
    super(`DATABASE_URL is not set and there is no embedded database in ${dataDir}`);
    this.name = 'NoDatabaseError';
  }
}

/** Whether the embedded cluster store/embedded.ts keeps under dataDir/pg has been initialised. */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return existsSync(path.join(dataDir, 'pg', 'PG_VERSION'));
}

/** The database a configuration names, for people: host, port and name (or the embedded directory), never a password. */
export function describeDatabase(config: Config): string {
  if (!config.databaseUrl) return `embedded database in ${config.dataDir}`;
  const u = new URL(config.databaseUrl);
  const name = decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres';
  const socket = u.searchParams.get('host');
  const where = socket?.startsWith('/') ? `Unix socket in ${socket}` : `${socket ?? (u.hostname || 'localhost')}:${u.port || '5432'}`;
  return `PostgreSQL database "${name}" on ${where}${u.username ? ` as ${decodeURIComponent(u.username)}` : ''}`;
}

export async function openDatabase(config: Config, log: Logger, opts: OpenOptions = {}): Promise<OpenedDatabase> {
  let url = config.databaseUrl;
  let stopEmbedded = async () => undefined as void;
  if (!url) {
    if (opts.createEmbedded === false && !embeddedDatabaseExists(config.dataDir)) throw new NoDatabaseError(config.dataDir);
    const embedded = await startEmbeddedPostgres(config.dataDir, log, opts);
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const db = new Database(url, config.databasePoolMax, log.child({ component: 'db' }), { home_fan_out_threshold: config.homeFeed.fanOutThreshold });
  try {
    await migrate(db, log.child({ component: 'migrate' }));
  } catch (e) {
    await db.close().catch(() => undefined);
    await stopEmbedded().catch(() => undefined);
    throw e;
  }
  return { db, stopEmbedded };
}

export interface FirstAdmin {
  readonly username: string;
  readonly password: string;
}

/** On a server with no users, creates the Owner account with a generated password (shown once, never stored). */
export async function ensureFirstAdmin(users: UserStore, config: Config): Promise<FirstAdmin | null> {
  if ((await users.count()) > 0) return null;
  const password = generatePassword();
  try {
    await users.create({
      username: 'admin',
      email: config.instance.contactEmail || `admin@${config.localDomain.replace(/:\d+$/, '')}`,
      passwordHash: await hashPassword(password),
      roleId: RoleId.owner,
      approved: true,
    });
  } catch {
    return null; // another node created it first
  }
  return { username: 'admin', password };
}
