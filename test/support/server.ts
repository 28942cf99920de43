// Starts the real application on loopback against a fresh database, in this process.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../config/schema.js';
import { startApp, type App, type StartOptions } from '../../src/app.js';
import { freshDatabaseUrl } from './db.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface TestServer {
  readonly app: App;
  readonly url: string;
  readonly databaseUrl: string;
  stop(): Promise<void>;
}

export async function startTestServer(env: Record<string, string> = {}, databaseUrl?: string, opts: StartOptions = {}): Promise<TestServer> {
  const dbUrl = databaseUrl ?? (await freshDatabaseUrl());
  const port = await freePort();
  // `{port}` in any value (BASE_URL: 'http://127.0.0.1:{port}') becomes the port chosen here.
  const given = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replaceAll('{port}', String(port))]));
  const config = loadConfig({
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    DATABASE_URL: dbUrl,
    LOG_LEVEL: 'silent',
    SHUTDOWN_GRACE_MS: '2000',
    ...given,
  });
  const app = await startApp(config, pino({ level: env['LOG_LEVEL'] ?? 'silent' }), opts);
  return { app, url: app.url, databaseUrl: dbUrl, stop: () => app.stop() };
}

/** A test server whose data directory (media, temporary files) is its own, removed by stop(). */
export async function startServerWithDataDir(env: Record<string, string> = {}): Promise<TestServer & { readonly dataDir: string }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-data-'));
  await mkdir(path.join(dataDir, 'media'), { mode: 0o755 });
  const s = await startTestServer({ ...env, STOA_DATA_DIR: dataDir });
  return {
    ...s,
    dataDir,
    stop: async () => {
      await s.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
