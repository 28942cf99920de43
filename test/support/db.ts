// A fresh database per test file, created in the run's shared embedded PostgreSQL (see test/run.ts) as a copy of
// the template the run migrated once.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Migrated once per run by test/run.ts; never connected to afterwards, so it can be copied. */
export const TEMPLATE_DATABASE = 'stoa_template';

export function adminUrl(): string {
  const url = process.env['STOA_TEST_PG_ADMIN_URL'];
  if (!url) throw new Error('STOA_TEST_PG_ADMIN_URL is not set: run the suite with `npm test`');
  return url;
}

async function createDatabase(template: string | null): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return adminUrl().replace('/postgres?', `/${name}?`);
}

/** A database with every migration applied and no data: what a server finds on its first start. */
export function freshDatabaseUrl(): Promise<string> {
  return createDatabase(TEMPLATE_DATABASE);
}

/** A database with nothing in it at all, for the tests of migrating itself. */
export function emptyDatabaseUrl(): Promise<string> {
  return createDatabase(null);
}
