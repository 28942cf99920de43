// For the tests of a migration's backfill: an empty database migrated up to (not including) one migration, so that
// rows can be written under the schema before it, and the rest of the migrations applied afterwards.
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { emptyDatabaseUrl } from './db.js';

const silent = pino({ level: 'silent' });

/** `db` migrated up to the migration whose name ends with `suffix`; `migrateRest()` applies it and those after it. */
export async function databaseBefore(suffix: string): Promise<{ db: Database; migrateRest: () => Promise<unknown> }> {
  const db = new Database(await emptyDatabaseUrl(), 2, silent);
  const all = await loadMigrations();
  const target = all.find((m) => m.name.endsWith(suffix));
  if (!target) throw new Error(`no migration named *${suffix}`);
  await migrate(
    db,
    silent,
    all.filter((m) => m.version < target.version),
  );
  return { db, migrateRest: () => migrate(db, silent, all) };
}
