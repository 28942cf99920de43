// `scheduled_at` as clients send it: an ISO 8601 date and time (Mastodon reads it with Ruby's String#to_datetime;
// a time without a zone is UTC there too). Anything else is Mastodon's answer to an unreadable date: 422 "Record
// invalid" (its ArgumentError becomes ActiveRecord::RecordInvalid). Blank means not scheduled.
import { Errors } from '../errors.js';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** The time asked for; undefined when none was given (absent or blank). Throws 422 for anything unreadable. */
export function parseScheduledAt(v: unknown): Date | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 64) throw invalidDate();
  const m = ISO.exec(v.trim());
  if (!m) throw invalidDate();
  const [y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m.slice(1);
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) throw invalidDate();
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, Number((frac + '000').slice(0, 3)));
  // A day past the month's end (2026-02-30) rolls over in Date.UTC: refused, as Ruby refuses it.
  if (new Date(ms).getUTCDate() !== day) throw invalidDate();
  const offset = zone === 'Z' || zone === 'z' ? 0 : zoneMinutes(zone!);
  if (offset === null) throw invalidDate();
  return new Date(ms - offset * 60_000);
}

function zoneMinutes(z: string): number | null {
  const sign = z[0] === '-' ? -1 : 1;
  const digits = z.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}

const invalidDate = () => Errors.unprocessable('Record invalid');
