// A fresh database per test file, created in the run's shared embedded PostgreSQL (see test/run.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function adminUrl(): string {
  const url = process.env['STOA_TEST_PG_ADMIN_URL'];
  if (!url) throw new Error('STOA_TEST_PG_ADMIN_URL is not set: run the suite with `npm test`');
  return url;
}

export async function freshDatabaseUrl(): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return adminUrl().replace('/postgres?', `/${name}?`);
}
