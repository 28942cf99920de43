// Prepared statements (issue 19): a statement sent with 'prepared' is parsed once per connection and executed by
// name afterwards, on the pool's clients and on the ambient transaction's client alike, including after a
// transaction that prepared it rolled back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { freshDatabaseUrl } from '../support/db.js';

const TEXT = 'SELECT $1::int + 1 AS n';

describe('prepared statements', () => {
  let db: Database;
  before(async () => {
    db = new Database(await freshDatabaseUrl(), 1, pino({ level: 'silent' }));
  });
  after(() => db?.close());

  /** How often this connection ran the statement from its prepared plan (none: never prepared here). */
  const executions = async () =>
    (await db.one<{ n: number }>('SELECT coalesce(sum(generic_plans + custom_plans), 0)::int AS n FROM pg_prepared_statements WHERE statement = $1', [TEXT]))
      ?.n;

  it('plans once per connection and reuses the statement, inside and outside a transaction', async () => {
    // A pool of one: every call below runs on the same connection, so the prepared statement is seen by all of them.
    assert.equal(await executions(), 0);
    assert.equal((await db.one<{ n: number }>(TEXT, [1], 'prepared'))?.n, 2);
    assert.equal(await executions(), 1);
    await db.tx(async () => {
      assert.equal((await db.one<{ n: number }>(TEXT, [2], 'prepared'))?.n, 3);
      assert.equal((await db.one<{ n: number }>(TEXT, [3], 'prepared'))?.n, 4);
      assert.equal(await executions(), 3, 'the transaction ran the statement prepared on its connection');
    });
    const rows = await db.rows<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE statement = $1', [TEXT]);
    assert.equal(rows.length, 1, 'one statement, not one per call');
  });

  it('keeps working after a transaction that used it rolled back', async () => {
    await assert.rejects(
      db.tx(async () => {
        await db.one(TEXT, [4], 'prepared');
        await db.one('SELECT 1 / 0');
      }),
      /division by zero/,
    );
    assert.equal((await db.one<{ n: number }>(TEXT, [5], 'prepared'))?.n, 6);
    assert.ok((await executions())! >= 5);
  });
});
