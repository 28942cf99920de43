// XML Schema 1.1 dateTimeStamp (a dateTime with a required time zone), as Data Integrity's `created` and `expires`
// use it. Parsed by hand: V8's Date.parse accepts "2023-02-30" and rolls it into March.
const DATE_TIME_STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch, or null when the text is not a valid dateTimeStamp (4-digit years only). */
export function parseDateTimeStamp(text: string): number | null {
  const m = DATE_TIME_STAMP.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  const midnight = hour === 24 && minute === 0 && second === 0 && (m[7] === undefined || /^\.0+$/.test(m[7]));
  if ((hour > 23 && !midnight) || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (om > 59 || oh > 14 || (oh === 14 && om !== 0)) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  // Date.UTC alone reads years 0–99 as 1900–1999; setUTCFullYear takes the year as written. The time is added
  // after, so that 24:00:00 is the next midnight.
  const midnightOf = new Date(0);
  midnightOf.setUTCFullYear(year, month - 1, day);
  return midnightOf.getTime() + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + fraction;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
