// src/store/schema.sql is a snapshot of what the migrations build; this keeps it true. A migration that changes the
// schema without the snapshot being regenerated fails here, with the command that regenerates it.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { emptyDatabaseUrl } from '../support/db.js';
import { dumpSchema, REGENERATE, SCHEMA_FILE } from '../support/schema-dump.js';

const silent = pino({ level: 'silent' });

describe('src/store/schema.sql', () => {
  it('is what the migrations build', async () => {
    // An empty database migrated here rather than the run's template, so the snapshot is held against migrate()
    // itself.
    const db = new Database(await emptyDatabaseUrl(), 1, silent);
    try {
      await migrate(db, silent);
      const actual = await dumpSchema(db);
      const stored = await fs.readFile(SCHEMA_FILE, 'utf8').catch(() => '');
      assert.ok(actual.includes('CREATE TABLE statuses ('), 'the dump reads the migrated tables');
      assert.equal(stored, actual, `src/store/schema.sql differs from the migrated schema: run \`${REGENERATE}\` and commit it`);
    } finally {
      await db.close();
    }
  });
});
