// Applies numbered SQL migrations (NNN_name.sql) in order, each in its own transaction, under an advisory lock so
// two nodes starting together never race. Already-applied versions are skipped: restarting is idempotent.
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.js';
import type { Database } from './db.js';

// Compiled to dist/src/store/migrate.js; the .sql files stay in src/store/migrations (tsc does not copy them).
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../src/store/migrations/', import.meta.url));
const LOCK_KEY = 0x5370a; // arbitrary, fixed: "Stoa migrations"

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => /^\d{3,}_[\w-]+\.sql$/.test(f)).sort();
  const out: Migration[] = [];
  for (const f of files) {
    const version = Number(f.slice(0, f.indexOf('_')));
    if (out.some((m) => m.version === version)) throw new Error(`two migrations share version ${version}`);
    out.push({ version, name: f.replace(/\.sql$/, ''), sql: await fs.readFile(`${dir}/${f}`, 'utf8') });
  }
  return out;
}

/** Returns the versions applied by this call (empty when the schema was already current). */
export async function migrate(db: Database, log: Logger, migrations?: Migration[]): Promise<number[]> {
  const list = migrations ?? (await loadMigrations());
  const client = await db.pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    for (const m of list) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
      }
      applied.push(m.version);
      log.info({ migration: m.name }, 'migration applied');
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
  return applied;
}
