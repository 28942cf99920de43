// Starts the real server as a separate process (`node dist/src/main.js`), for tests that need a second node on the
// same database or a process to kill -9, and waits until it serves.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.js');

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  /** The first admin's one-time password, when this start created it. */
  readonly password: string | null;
  /** Everything the process printed so far. */
  output(): string;
}

/** env: everything beyond PORT, BASE_URL (http://<host>:<port>), DATABASE_URL, LOG_LEVEL and SHUTDOWN_GRACE_MS. */
export async function startServerProcess(o: { databaseUrl: string; port: number; host?: string; env?: Record<string, string> }): Promise<ServerProcess> {
  const url = `http://${o.host ?? 'localhost'}:${o.port}`;
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: String(o.port), BASE_URL: url, DATABASE_URL: o.databaseUrl, LOG_LEVEL: 'silent', SHUTDOWN_GRACE_MS: '2000', ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d.toString()));
  child.stderr!.on('data', (d) => (out += d.toString()));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  const deadline = Date.now() + 30_000;
  while (!out.includes('Stoa is running at')) {
    if (code !== undefined) throw new Error(`the server process exited with ${code} before serving:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server process did not start within 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // The banner is printed after the port is bound; one more tick lets the rest of it (the password) arrive.
  await new Promise((r) => setTimeout(r, 20));
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200, 'the server process serves');
  return { url, child, exited, password: /password: (\S+)/.exec(out)?.[1] ?? null, output: () => out };
}
