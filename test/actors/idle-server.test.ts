// An idle server leaves the database alone: with nothing queued, the inbox worker, the delivery scheduler and the
// poll closer sleep until someone queues work (or their minute-long safety round), instead of asking PostgreSQL
// whether anything is due dozens of times a second.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { startTestServer, type TestServer } from '../support/server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Counts what the server sends through its connection pool from now on: statements, and transactions (a
 * connection taken for BEGIN…COMMIT). Counted at the pool rather than from pg_stat_database, whose figures a
 * backend may report up to 10 s late.
 */
function countQueries(pool: pg.Pool): { readonly n: number } {
  const counter = { n: 0 };
  const query = pool.query.bind(pool) as (...a: unknown[]) => unknown;
  const connect = pool.connect.bind(pool) as (...a: unknown[]) => unknown;
  Object.assign(pool, {
    query: (...a: unknown[]) => {
      counter.n++;
      return query(...a);
    },
    connect: (...a: unknown[]) => {
      counter.n++;
      return connect(...a);
    },
  });
  return counter;
}

describe('an idle server', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s?.stop());

  it('sends (next to) no query to PostgreSQL over three seconds', async (t) => {
    // The start-up rounds run at once and take milliseconds. What is measured is a span of time, so waiting is the
    // measurement itself, not a guess at when an event happens.
    await sleep(500);
    const sent = countQueries(s.app.db.pool);
    await sleep(3_000);
    t.diagnostic(`${sent.n} queries in 3 s`);
    assert.ok(sent.n <= 3, `${sent.n} queries in 3 s of idleness`);
  });
});
