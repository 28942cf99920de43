// XML Schema dateTimeStamp as Data Integrity's created/expires use it: a time zone is required, impossible dates are
// refused (V8's Date.parse rolls 2023-02-30 into March), and the result is milliseconds since the epoch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDateTimeStamp } from '../../src/identity/date-time.js';

describe('parseDateTimeStamp', () => {
  it('parses UTC timestamps with Z', () => {
    assert.equal(parseDateTimeStamp('2023-02-24T23:36:38Z'), Date.UTC(2023, 1, 24, 23, 36, 38));
    assert.equal(parseDateTimeStamp('1970-01-01T00:00:00Z'), 0);
    assert.equal(parseDateTimeStamp('9999-12-31T23:59:59Z'), Date.UTC(9999, 11, 31, 23, 59, 59));
  });

  it('keeps years 0000 to 0099 as they are (Date.UTC alone would read them as 1900 to 1999)', () => {
    // Expected values from V8's ISO parser, which handles these years correctly.
    assert.equal(parseDateTimeStamp('0001-01-01T00:00:00Z'), Date.parse('0001-01-01T00:00:00Z'));
    assert.equal(parseDateTimeStamp('0001-01-01T00:00:00Z'), -62_135_596_800_000);
    assert.equal(parseDateTimeStamp('0099-12-31T23:59:59Z'), Date.parse('0099-12-31T23:59:59Z'));
    assert.equal(parseDateTimeStamp('0000-02-29T00:00:00Z'), Date.parse('0000-02-29T00:00:00Z'), 'year 0000 is a leap year');
  });

  it('applies positive and negative offsets, up to ±14:00', () => {
    const utc = Date.UTC(2023, 1, 24, 23, 36, 38);
    assert.equal(parseDateTimeStamp('2023-02-25T05:06:38+05:30'), utc);
    assert.equal(parseDateTimeStamp('2023-02-24T15:36:38-08:00'), utc);
    assert.equal(parseDateTimeStamp('2023-02-24T23:36:38+00:00'), utc);
    assert.equal(parseDateTimeStamp('2023-02-24T23:36:38-00:00'), utc);
    assert.equal(parseDateTimeStamp('2023-02-25T13:36:38+14:00'), utc);
    assert.equal(parseDateTimeStamp('2023-02-24T09:36:38-14:00'), utc);
  });

  it('keeps fractional seconds to the millisecond, truncating finer digits (Mitra emits nanoseconds)', () => {
    const base = Date.UTC(2023, 0, 28, 1, 22, 40);
    assert.equal(parseDateTimeStamp('2023-01-28T01:22:40.183273595Z'), base + 183);
    assert.equal(parseDateTimeStamp('2023-01-28T01:22:40.5Z'), base + 500);
    assert.equal(parseDateTimeStamp('2023-01-28T01:22:40.000Z'), base);
    assert.equal(parseDateTimeStamp('2023-01-28T01:22:40.999999999Z'), base + 999);
    assert.equal(parseDateTimeStamp('2023-01-28T01:22:40.1+01:00'), base + 100 - 3_600_000);
  });

  it('accepts leap days in leap years, the year 2000 included', () => {
    assert.equal(parseDateTimeStamp('2024-02-29T12:00:00Z'), Date.UTC(2024, 1, 29, 12));
    assert.equal(parseDateTimeStamp('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29));
    assert.equal(parseDateTimeStamp('1600-02-29T00:00:00Z'), Date.UTC(1600, 1, 29));
  });

  it('accepts the last day of every month and 24:00:00 as the end of the day', () => {
    const last = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    last.forEach((day, i) => {
      const text = `2023-${String(i + 1).padStart(2, '0')}-${day}T00:00:00Z`;
      assert.equal(parseDateTimeStamp(text), Date.UTC(2023, i, day), text);
    });
    assert.equal(parseDateTimeStamp('2023-12-31T24:00:00Z'), Date.UTC(2024, 0, 1));
    assert.equal(parseDateTimeStamp('2023-12-31T24:00:00.000Z'), Date.UTC(2024, 0, 1));
  });

  it('refuses impossible dates: February 29 outside leap years, February 30, April 31, month 0 or 13, day 0', () => {
    for (const text of [
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2023-02-30T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2023-04-31T00:00:00Z',
      '2023-06-31T00:00:00Z',
      '2023-09-31T00:00:00Z',
      '2023-11-31T00:00:00Z',
      '2023-01-32T00:00:00Z',
      '2023-00-10T00:00:00Z',
      '2023-13-10T00:00:00Z',
      '2023-01-00T00:00:00Z',
    ]) {
      assert.equal(parseDateTimeStamp(text), null, text);
    }
  });

  it('refuses impossible times: hour 25, 24:00:01, 24:01, minute 60, second 60', () => {
    for (const text of [
      '2023-01-01T25:00:00Z',
      '2023-01-01T24:00:01Z',
      '2023-01-01T24:01:00Z',
      '2023-01-01T24:00:00.5Z',
      '2023-01-01T12:60:00Z',
      '2023-01-01T12:00:60Z',
    ]) {
      assert.equal(parseDateTimeStamp(text), null, text);
    }
  });

  it('refuses a missing time zone, and offsets out of range or badly written', () => {
    for (const text of [
      '2023-02-24T23:36:38',
      '2023-02-24T23:36:38.123',
      '2023-02-24T23:36:38+15:00',
      '2023-02-24T23:36:38+14:30',
      '2023-02-24T23:36:38+05:60',
      '2023-02-24T23:36:38+0530',
      '2023-02-24T23:36:38+05',
      '2023-02-24T23:36:38 Z',
      '2023-02-24T23:36:38UTC',
      '2023-02-24T23:36:38GMT+1',
    ]) {
      assert.equal(parseDateTimeStamp(text), null, text);
    }
  });

  it('refuses other spellings: date only, space or lowercase separators, short fields, 5-digit or signed years, padding', () => {
    for (const text of [
      '2023-02-24',
      '2023-02-24Z',
      '2023-02-24 23:36:38Z',
      '2023-02-24t23:36:38Z',
      '2023-02-24T23:36:38z',
      '2023-2-24T23:36:38Z',
      '2023-02-24T23:36Z',
      '2023-02-24T3:36:38Z',
      '23-02-24T23:36:38Z',
      '12023-02-24T23:36:38Z',
      '-2023-02-24T23:36:38Z',
      '+2023-02-24T23:36:38Z',
      '2023-02-24T23:36:38.Z',
      ' 2023-02-24T23:36:38Z',
      '2023-02-24T23:36:38Z ',
      '2023-02-24T23:36:38Z\n',
      '2023-02-24T23:36:38ZZ',
      '\u0662\u0660\u0662\u0663-02-24T23:36:38Z',
      'Fri, 24 Feb 2023 23:36:38 GMT',
      '1677281798',
      '',
    ]) {
      assert.equal(parseDateTimeStamp(text), null, JSON.stringify(text));
    }
  });
});
