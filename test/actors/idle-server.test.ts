// An idle server leaves the database alone: with nothing queued, the inbox worker, the delivery scheduler and the
// poll closer sleep until someone queues work (or their minute-long safety round), instead of asking PostgreSQL
// whether anything is due dozens of times a second.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { adminUrl } from '../support/db.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Transactions PostgreSQL has counted in `database` (every statement outside BEGIN is one). */
async function transactions(database: string): Promise<number> {
  // A connection of its own to another database, so that reading the counter does not add to it.
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    const r = await c.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1', [database]);
    return Number(r.rows[0]!.n);
  } finally {
    await c.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an idle server', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.stop());

  it('sends (next to) no query to PostgreSQL over three seconds', async (t) => {
    const database = new URL(s.databaseUrl).pathname.slice(1);
    // The start-up rounds run at once; a backend reports its counts within a second of going idle. What is measured
    // is a span of time, so waiting is the measurement itself, not a guess at when an event happens.
    await sleep(2_000);
    const before = await transactions(database);
    await sleep(3_000);
    const during = (await transactions(database)) - before;
    t.diagnostic(`${during} transactions in 3 s`);
    assert.ok(during <= 5, `${during} transactions in 3 s of idleness`);
  });
});
