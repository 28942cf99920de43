// `npm test`: starts one embedded PostgreSQL for the whole run (each test file then creates its own fresh
// database in it), runs every compiled *.test.js with node's test runner, and stops the cluster.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startEmbeddedPostgres } from '../src/store/embedded.js';

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

async function main(): Promise<number> {
  const only = process.argv.slice(2);
  const files = only.length ? only : await findTests(here);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-test-pg-'));
  const pg = await startEmbeddedPostgres(dataDir, pino({ level: 'warn' }));
  const adminUrl = pg.url.replace('/stoa?', '/postgres?');
  try {
    return await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=180000', ...files], {
        stdio: 'inherit',
        env: { ...process.env, STOA_TEST_PG_ADMIN_URL: adminUrl },
      });
      child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    await pg.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (e: unknown) => {
  process.stderr.write(`test runner failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
