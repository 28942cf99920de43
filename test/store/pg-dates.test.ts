// The fast timestamptz reader gives the very Date pg's own parser gives, for what PostgreSQL writes in every time
// zone: microseconds or none, offsets in hours, minutes and (before standard time) seconds, BC, infinity, early years.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { parseTimestamptz, pgParseTimestamptz } from '../../src/store/pg-dates.js';
import { freshDatabaseUrl } from '../support/db.js';

let db: Database;
before(async () => {
  db = new Database(await freshDatabaseUrl(), 1, pino({ level: 'silent' }));
});
after(() => db.close());

const same = (text: string) => {
  const fast = parseTimestamptz(text);
  const slow = pgParseTimestamptz(text);
  const value = (d: Date | number | null) => (d instanceof Date ? d.getTime() : d);
  assert.ok(fast instanceof Date === slow instanceof Date, text);
  assert.equal(value(fast), value(slow), text);
};

describe('timestamptz reading', () => {
  for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Amsterdam', 'Pacific/Chatham', 'America/Los_Angeles']) {
    it(`reads what PostgreSQL writes in ${zone}`, async () => {
      const rows = await db.tx(async (q) => {
        await q.query(`SET LOCAL TimeZone = '${zone}'`);
        return (
          await q.query<{ t: string }>(
            `SELECT t::text AS t FROM (
               SELECT now() AS t UNION ALL SELECT date_trunc('second', now()) UNION ALL SELECT '2026-01-01 00:00:00.1+00'
               UNION ALL SELECT '2026-06-30 23:59:59.999999+00' UNION ALL SELECT '2026-03-01 12:00:00.009+00'
               UNION ALL SELECT '1900-01-01 00:00:00+00' UNION ALL SELECT '1000-01-01 00:00:00+00' UNION ALL SELECT '0099-12-31 23:00:00+00'
               UNION ALL SELECT '0044-03-15 12:00:00+00 BC' UNION ALL SELECT 'infinity' UNION ALL SELECT '-infinity'
               UNION ALL SELECT timestamptz '1970-01-01 00:00:00+00' + g * interval '7919 seconds 123457 microseconds' FROM generate_series(0, 500) g
               UNION ALL SELECT timestamptz '1850-01-01 00:00:00+00' + g * interval '97 days 13 hours' FROM generate_series(0, 800) g) x`,
          )
        ).rows;
      });
      for (const r of rows) same(r.t);
    });
  }

  it('hands anything else to pg’s parser', () => {
    for (const t of ['2026-11-26', '2026-11-26 10:00:00', '2026-11-26 10:00:00Z', '2026-11-26T10:00:00+00', '2026-1x-26 10:00:00+00', '2026-11-26 10:00:00+0a'])
      same(t);
  });
});
