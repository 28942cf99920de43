// post/list's page_cursor / next_page: the sort and the sort keys of the last post shown, opaque to the client
// (base64url of a JSON array). Keys, not a position: the next page starts strictly after them, wherever new posts
// land. Each key is checked against its column's form so a forged cursor is a 400, never a database error.
import { Errors } from '../../errors.js';
import { LinkPageStore, type PostSort } from '../../store/link-pages.js';

const FORMS = {
  float8: /^(-?(\d{1,20}(\.\d{0,20})?|\.\d{1,20})(e[-+]?\d{1,3})?|NaN|-?Infinity)$/i,
  timestamptz: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d(:\d\d)?$/,
  int: /^-?\d{1,9}$/,
  bigint: /^-?\d{1,18}$/,
} as const;

export function encodePostCursor(sort: PostSort, keys: readonly string[]): string {
  return Buffer.from(JSON.stringify([sort, ...keys])).toString('base64url');
}

/** The keys a cursor made for `sort` holds; anything else (another sort's, malformed, forged) is invalid_query. */
export function decodePostCursor(sort: PostSort, cursor: string): string[] {
  const types = LinkPageStore.postKeyTypes(sort);
  let parsed: unknown;
  try {
    parsed = cursor.length <= 400 && /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== types.length + 1 || parsed[0] !== sort) throw Errors.lemmy(400, 'invalid_query');
  const keys = parsed.slice(1);
  if (!keys.every((k, i) => typeof k === 'string' && FORMS[types[i]!].test(k) && castable(types[i]!, k))) throw Errors.lemmy(400, 'invalid_query');
  return keys as string[];
}

/**
 * The key also means what its form says, so that PostgreSQL's cast cannot fail: a finite number (1e999 is not), a
 * date that exists (not February 30th, not year 0).
 */
function castable(type: keyof typeof FORMS, k: string): boolean {
  if (type === 'float8') return Number.isFinite(Number(k));
  if (type !== 'timestamptz') return true;
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.\d+)?[+-](\d\d)(?::(\d\d))?$/.exec(k);
  if (!m) return false;
  const [y, mo, d, h, mi, sec, oh, om] = m.slice(1).map((x) => Number(x ?? 0)) as number[];
  const t = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!));
  return (
    y! >= 1 &&
    t.getUTCFullYear() === y &&
    t.getUTCMonth() === mo! - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi &&
    t.getUTCSeconds() === sec &&
    oh! <= 15 &&
    om! < 60
  );
}
