// `npm test`: starts one embedded PostgreSQL for the whole run, migrates one template database in it (each test
// file then copies it: CREATE DATABASE … TEMPLATE, far cheaper than running every migration per server), runs every compiled
// *.test.js with node's test runner, and stops the cluster. Nothing outlives the run: the test processes run in a
// process group of their own that is killed at the end, and PostgreSQL stops if this process dies.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { startEmbeddedPostgres } from '../src/store/embedded.js';
import { migrate } from '../src/store/migrate.js';
import { TEMPLATE_DATABASE } from './support/db.js';

const here = path.dirname(fileURLToPath(import.meta.url));

async function findTests(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await findTests(p)));
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

/**
 * Test files run side by side: most of their time is spent waiting on servers, PostgreSQL and sockets, so one more
 * file than there are cores keeps the cores busy without starving the timing-sensitive ones.
 * STOA_TEST_CONCURRENCY overrides it.
 */
function concurrency(): number {
  const given = Number(process.env['STOA_TEST_CONCURRENCY']);
  if (Number.isInteger(given) && given > 0) return given;
  return os.availableParallelism() + 1;
}

async function createTemplate(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const db = new Database(adminUrl.replace('/postgres?', `/${TEMPLATE_DATABASE}?`), 1, pino({ level: 'silent' }));
  try {
    await migrate(db, pino({ level: 'silent' }));
  } finally {
    await db.close(); // a template may have no connection open while it is copied
  }
}

/** Kills whatever a test left behind in the run's process group (a server process, a PostgreSQL, a browser). */
function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // the group is empty: nothing was left behind
  }
}

async function main(): Promise<number> {
  const only = process.argv.slice(2);
  const files = only.length ? only : await findTests(here);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-test-pg-'));
  const pgServer = await startEmbeddedPostgres(dataDir, pino({ level: 'warn' }), { dieWithProcess: true });
  const adminUrl = pgServer.url.replace('/stoa?', '/postgres?');
  let group: number | undefined;
  const interrupted = () => {
    if (group !== undefined) killGroup(group);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    await createTemplate(adminUrl);
    return await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency()}`, '--test-timeout=180000', ...files], {
        stdio: 'inherit',
        detached: true,
        env: { ...process.env, STOA_TEST_PG_ADMIN_URL: adminUrl },
      });
      group = child.pid;
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    if (group !== undefined) killGroup(group);
    await pgServer.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`test runner failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
