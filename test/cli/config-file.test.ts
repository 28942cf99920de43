// `npx stoa` as an operator runs it, as a real process: it reads the server's configuration file (.env.production in
// the working directory, or --env-file), says which database it acted on, and never creates a database of its own.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

const STOA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/stoa.js');

/** The test process's environment without any Stoa setting, as on a fresh shell. */
function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(DATABASE_URL|STOA_DATA_DIR|LOG_|PORT$|BASE_URL$)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

function stoa(args: string[], cwd: string, env = bareEnv()): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [STOA, ...args], { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

const tmp = (name: string) => mkdtemp(path.join(os.tmpdir(), `stoa-cli-${name}-`));

describe('the stoa command and the configuration file', () => {
  let s: TestServer;
  let dbName: string;
  let dbPassword: string;
  before(async () => {
    s = await startTestServer();
    const u = new URL(s.databaseUrl);
    dbName = u.pathname.slice(1);
    dbPassword = decodeURIComponent(u.password);
  });
  after(() => s.stop());

  it('without a configuration and without a database, exits 1 telling what to do, and creates nothing', async () => {
    const dir = await tmp('bare');
    const r = await stoa(['users', 'create', '--username', 'nobody', '--password', 'a long password'], dir);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /no database to act on: DATABASE_URL is not set and there is no embedded database in .*\/data/);
    assert.match(r.stderr, /Start the server first/);
    assert.match(r.stderr, /--env-file/);
    assert.deepEqual(await readdir(dir), [], 'no data directory, no embedded cluster');
  });

  it('with --env-file naming the server database, creates the user there (the server sees it) and names the database', async () => {
    const conf = await tmp('conf');
    const file = path.join(conf, 'stoa.env');
    await writeFile(file, `# the server's settings\nDATABASE_URL="${s.databaseUrl}"\nLOCAL_DOMAIN=example.test\n`);
    const elsewhere = await tmp('cwd');
    const r = await stoa(['--env-file', file, 'users', 'create', '--username', 'carol', '--password', 'a long password'], elsewhere);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`Configuration: ${file}`));
    assert.match(r.stdout, new RegExp(`Database: PostgreSQL database "${dbName}" on `));
    assert.match(r.stdout, /Created @carol \(user\)/);
    assert.ok(!r.stdout.includes(dbPassword) && !r.stderr.includes(dbPassword), 'the database password is never printed');
    assert.deepEqual(await readdir(elsewhere), []);
    const seen = await api(s.url, undefined, 'GET', '/api/v1/accounts/lookup?acct=carol');
    assert.equal(seen.status, 200);
    assert.equal(seen.body.username, 'carol');
  });

  it('reads .env.production in the working directory, and the real environment wins over it', async () => {
    const dir = await tmp('prod');
    // The file names a database that does not exist; the real environment names the server's.
    await writeFile(path.join(dir, '.env.production'), 'DATABASE_URL=postgres://nobody@127.0.0.1:1/nothing\nLOCAL_DOMAIN=example.test\n');
    const r = await stoa(['users', 'create', '--username', 'dana', '--password', 'a long password'], dir, bareEnv({ DATABASE_URL: s.databaseUrl }));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`Configuration: ${path.join(dir, '.env.production')}`));
    assert.match(r.stdout, new RegExp(`Database: PostgreSQL database "${dbName}"`));
    const dana = await api(s.url, undefined, 'GET', '/api/v1/accounts/lookup?acct=dana');
    assert.equal(dana.status, 200);

    // Without the real variable, the file's database is the one used: it cannot be reached, and nothing is created.
    const fromFile = await stoa(['users', 'create', '--username', 'erin', '--password', 'a long password'], dir);
    assert.equal(fromFile.code, 1, fromFile.stdout + fromFile.stderr);
    assert.match(fromFile.stderr, /ECONNREFUSED|connect/);
    assert.equal((await api(s.url, undefined, 'GET', '/api/v1/accounts/lookup?acct=erin')).status, 404);
  });
});
