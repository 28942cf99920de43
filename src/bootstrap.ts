// The database the server runs on (given or embedded), migrated; and the first start's Owner account.
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

export async function openDatabase(config: Config, log: Logger, opts: EmbeddedOptions = {}): Promise<OpenedDatabase> {
  let url = config.databaseUrl;
  let stopEmbedded = async () => undefined as void;
  if (!url) {
    const embedded = await startEmbeddedPostgres(config.dataDir, log, opts);
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const db = new Database(url, config.databasePoolMax, log.child({ component: 'db' }));
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
