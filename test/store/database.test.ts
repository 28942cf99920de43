// Migrations against the real PostgreSQL, and the embedded PostgreSQL keeping data across a restart.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../config/schema.js';
import { startApp } from '../../src/app.js';
import { Database } from '../../src/store/db.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { UserStore } from '../../src/store/users.js';
import { emptyDatabaseUrl } from '../support/db.js';
import { freePort } from '../support/server.js';

const silent = pino({ level: 'silent' });

describe('migrations', () => {
  it('apply once and are a no-op on every later start', async () => {
    const db = new Database(await emptyDatabaseUrl(), 2, silent);
    try {
      const all = (await loadMigrations()).map((m) => m.version);
      assert.deepEqual(await migrate(db, silent), all);
      assert.deepEqual(await migrate(db, silent), []);
      const rows = await db.rows<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(
        rows.map((r) => r.version),
        all,
      );
    } finally {
      await db.close();
    }
  });

  it('roll back a failing migration entirely', async () => {
    const db = new Database(await emptyDatabaseUrl(), 2, silent);
    try {
      await assert.rejects(
        migrate(db, silent, [{ version: 1, name: '001_bad', sql: 'CREATE TABLE half (id int); SELECT no_such_function();' }]),
        /migration 001_bad failed/,
      );
      const t = await db.one("SELECT to_regclass('half') AS t");
      assert.equal(t?.['t'], null);
      assert.equal((await db.rows('SELECT * FROM schema_migrations')).length, 0);
    } finally {
      await db.close();
    }
  });

  it('are safe when two nodes start at once', async () => {
    const url = await emptyDatabaseUrl();
    const a = new Database(url, 2, silent);
    const b = new Database(url, 2, silent);
    try {
      const [ra, rb] = await Promise.all([migrate(a, silent), migrate(b, silent)]);
      assert.equal(ra.length + rb.length, (await loadMigrations()).length);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('embedded PostgreSQL', () => {
  it('starts with no DATABASE_URL and keeps data across a restart', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-embedded-'));
    const env = async () => {
      const port = await freePort();
      return loadConfig({ PORT: String(port), BASE_URL: `http://localhost:${port}`, STOA_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    };
    try {
      const first = await startApp(await env(), silent, { embeddedDiesWithProcess: true });
      assert.ok(first.firstAdmin, 'the first start creates an admin');
      await new UserStore(first.db).create({ username: 'kept', email: 'kept@example.com', passwordHash: 'x', roleId: 0, approved: true });
      await first.stop();

      const second = await startApp(await env(), silent, { embeddedDiesWithProcess: true });
      try {
        assert.equal(second.firstAdmin, null, 'no second admin on restart');
        const kept = await new UserStore(second.db).byLogin('kept');
        assert.equal(kept?.email, 'kept@example.com');
        const r = await fetch(`${second.url}/health`);
        assert.deepEqual(await r.json(), { status: 'ok', database: 'ok' });
      } finally {
        await second.stop();
      }
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
