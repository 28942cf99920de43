// The real entry point as a process: it prints its URL, serves, and on SIGTERM finishes in-flight work and exits 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { freshDatabaseUrl } from '../support/db.js';
import { freePort } from '../support/server.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.js');

describe('process lifecycle', () => {
  it('prints its URL and first admin, serves, and exits cleanly on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, PORT: String(port), DATABASE_URL: await freshDatabaseUrl(), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 30_000;
      while (!out.includes('Stoa is running at') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.match(out, new RegExp(`Stoa is running at http://localhost:${port}`));
      assert.match(out, /username: admin\n\s+password: \S{12,}/);
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/instance`);
      assert.equal(r.status, 200);
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.match(out, /"msg":"stopped"/);
      await assert.rejects(fetch(`http://127.0.0.1:${port}/health`));
    } finally {
      child.kill('SIGKILL');
    }
  });
});
