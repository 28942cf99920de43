// timestamptz as PostgreSQL writes it (DateStyle ISO: "2026-11-26 12:05:23.123456+00") read without regular
// expressions: pg's parser (postgres-date) runs three per value, ~2 % of a notifications page's Node time for its forty
// timestamps (issue 19). Anything not in that exact form (BC, infinity, years before 1000) goes to pg's parser, and
// the result is the same Date either way (test/store/pg-dates.test.ts).
import pg from 'pg';

/** pg's own parser (postgres-date), for every form the fast path does not take. */
export const pgParseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (s: string) => Date | number | null;

const digit = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : Number.NaN;
};
const two = (s: string, i: number): number => digit(s, i) * 10 + digit(s, i + 1);

/** Registered for timestamptz by store/db.ts. */
export function parseTimestamptz(s: string): Date | number | null {
  const n = s.length;
  if (n < 22 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 32 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) {
    return pgParseTimestamptz(s);
  }
  const year = two(s, 0) * 100 + two(s, 2);
  const month = two(s, 5);
  const day = two(s, 8);
  const hour = two(s, 11);
  const minute = two(s, 14);
  const second = two(s, 17);
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(i) === 46) {
    const start = i;
    i++;
    while (i < n && !Number.isNaN(digit(s, i))) i++;
    // As postgres-date computes it (1000 × the fraction, truncated by Date.UTC): the same Date to the millisecond.
    ms = 1000 * Number.parseFloat(s.slice(start, i));
  }
  const sign = s.charCodeAt(i);
  const rest = n - i;
  // ±HH, ±HH:MM or ±HH:MM:SS, and nothing after.
  if ((sign !== 43 && sign !== 45) || (rest !== 3 && rest !== 6 && rest !== 9) || year < 1000) return pgParseTimestamptz(s);
  let offset = two(s, i + 1) * 3600;
  if (rest >= 6) offset += s.charCodeAt(i + 3) === 58 ? two(s, i + 4) * 60 : Number.NaN;
  if (rest === 9) offset += s.charCodeAt(i + 6) === 58 ? two(s, i + 7) : Number.NaN;
  const t = Date.UTC(year, month - 1, day, hour, minute, second, ms) - (sign === 45 ? -offset : offset) * 1000;
  return Number.isNaN(t) ? pgParseTimestamptz(s) : new Date(t);
}
