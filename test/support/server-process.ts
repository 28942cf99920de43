// Starts the real server as a separate process (`node dist/src/main.js`), for tests that need a second node on the
// same database or a process to kill -9, and waits until it serves.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './server.js';

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

interface StartOptions {
  readonly databaseUrl: string;
  /** The port to listen on; none: a free one, taken again if another process binds it first. */
  readonly port?: number;
  readonly host?: string;
  /** Everything beyond PORT, BASE_URL (http://<host>:<port>), DATABASE_URL, LOG_LEVEL and SHUTDOWN_GRACE_MS. */
  readonly env?: Record<string, string> | ((port: number) => Record<string, string>);
}

/** A free port can be taken by another process between the probe and the bind: that start is tried again. */
const PORT_ATTEMPTS = 5;

export async function startServerProcess(o: StartOptions): Promise<ServerProcess & { readonly port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = o.port ?? (await freePort());
    try {
      return { ...(await startOnce(o, port)), port };
    } catch (e) {
      if (o.port !== undefined || attempt >= PORT_ATTEMPTS || !(e instanceof PortTaken)) throw e;
    }
  }
}

class PortTaken extends Error {}

async function startOnce(o: StartOptions, port: number): Promise<ServerProcess> {
  const url = `http://${o.host ?? 'localhost'}:${port}`;
  const env = typeof o.env === 'function' ? o.env(port) : o.env;
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: String(port), BASE_URL: url, DATABASE_URL: o.databaseUrl, LOG_LEVEL: 'silent', SHUTDOWN_GRACE_MS: '2000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d.toString()));
  child.stderr!.on('data', (d) => (out += d.toString()));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  const deadline = Date.now() + 30_000;
  while (!out.includes('Stoa is running at')) {
    if (code !== undefined) {
      const message = `the server process exited with ${code} before serving:\n${out}`;
      throw out.includes(`port ${port} is in use`) ? new PortTaken(message) : new Error(message);
    }
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
