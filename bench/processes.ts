// Spawns the servers under test, each in its own Node process so that wrk, the bare server and Stoa never share
// an event loop. Every child also gets an IPC channel: if this process dies, the children see 'disconnect' and exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ServerProcess {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after graceMs; resolves once the process has exited. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export interface StoaProcess extends ServerProcess {
  /** Its RSS and V8 heap in bytes, after a full collection if it was started with --expose-gc. */
  memory(): Promise<{ rss: number; heapUsed: number }>;
  /** Statements it has sent to PostgreSQL since it started (each one a round trip). */
  statements(): Promise<number>;
  /** When it heard status `id`'s streaming `update` (performance.timeOrigin + now), or null if it did not. */
  streamHeard(id: string): Promise<number | null>;
}

const script = (name: string) => fileURLToPath(new URL(`./${name}.js`, import.meta.url));
const STARTUP_TIMEOUT_MS = 60_000;

/** The bare uWS server; it prints its port on stdout. */
export function startBare(): Promise<ServerProcess> {
  const child = spawn(process.execPath, [script('bare-uws')], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  return awaitPort('bare', child, (onPort) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = /^(\d+)\n/.exec(out);
      if (line) onPort(Number(line[1]));
    });
  });
}

/**
 * Node's flags for the server, as `npm start` gives them (package.json): a young generation of 64 MiB semi-spaces.
 * At the default 16 MiB a page of forty notifications (~100 KB written, rows parsed, entities made) scavenged so often
 * that what lived across its round trip to PostgreSQL was promoted and collected again: ~30 % of the Node time of the
 * notification pages (bench/RESULTS.md, issue 19).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/** Stoa with its logs on stdout sent to /dev/null ('ignore'); it reports { port } over IPC. */
export async function startStoa(env: Record<string, string>, nodeArgs: readonly string[] = []): Promise<StoaProcess> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, script('stoa-server')], {
    // BENCH_STOA_LOG=<file>: Stoa's log lines appended there (diagnosis); by default they go nowhere, paid for all the same.
    stdio: ['ignore', process.env['BENCH_STOA_LOG'] ? openSync(process.env['BENCH_STOA_LOG'], 'a') : 'ignore', 'pipe', 'ipc'],
    env: { ...process.env, ...env },
  });
  const server = await awaitPort('stoa', child, (onPort) => {
    child.on('message', (m: unknown) => {
      const port = (m as { port?: unknown } | null)?.port;
      if (typeof port === 'number') onPort(port);
    });
  });
  /** Sends { [key]: value } and resolves with the first reply carrying that key. */
  const ask = <T>(key: string, value: unknown = true) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        const answer = (m as Record<string, unknown> | null)?.[key];
        if (answer === undefined) return;
        child.off('message', onMessage);
        resolve(answer as T);
      };
      child.on('message', onMessage);
      child.send({ [key]: value }, (e) => {
        if (e) {
          child.off('message', onMessage);
          reject(e);
        }
      });
    });
  return {
    ...server,
    memory: () => ask<{ rss: number; heapUsed: number }>('memory'),
    statements: () => ask<number>('statements'),
    streamHeard: async (id: string) => (await ask<{ at: number | null }>('streamHeard', id)).at,
  };
}

function awaitPort(name: string, child: ChildProcess, listen: (onPort: (port: number) => void) => void): Promise<ServerProcess> {
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-8192);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping: Promise<void> | null = null;
  const stop = (graceMs = 5_000) =>
    (stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    })());

  return new Promise<ServerProcess>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop(1_000);
      reject(new Error(`${name} server ${why}${stderr.trim() ? `:\n${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(() => fail(`did not report a port within ${STARTUP_TIMEOUT_MS / 1000} s`), STARTUP_TIMEOUT_MS);
    child.once('error', (e) => fail(`could not be spawned (${e.message})`));
    const onEarlyExit = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited during start-up (${signal ?? `code ${code}`})`);
    child.once('exit', onEarlyExit);
    listen((port) => {
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      resolve({ name, url: `http://127.0.0.1:${port}`, pid: child.pid!, stop });
    });
  });
}
