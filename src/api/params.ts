// Parameter shapes the API routes share (Rails-style booleans as clients send them in forms, JSON and queries).
import { z } from 'zod';
import { Errors, type ApiError } from '../errors.js';
import { MEDIA_LIMITS } from '../media/limits.js';
import { isId } from '../store/ids.js';

// Booleans as clients write them: JSON, or a form word in any case ("True" from Python clients, "t", "FALSE"). Rails
// takes any other word as true; here it is refused, and "no" is false.
const TRUE_WORDS = new Set(['true', 't', '1', 'on', 'yes']);
const FALSE_WORDS = new Set(['false', 'f', '0', 'off', 'no', '']);

export function castBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string') return undefined;
  const word = v.toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}

/** A body boolean, as JSON or as a form word; anything else is refused. */
export const railsBool = z.unknown().transform((v, ctx) => {
  const b = castBool(v);
  if (b === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    return z.NEVER;
  }
  return b;
});

/** A query flag: present and truthy. */
export function flag(v: unknown): boolean {
  return castBool(v) === true;
}

/** JSON null means "not given" to Mastodon clients (megalodon sends nulls for unset options). */
export function given(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null));
}

/**
 * An id: a digit string, or a JSON number as Mastodon accepts (a long one arrives as its digits already, see
 * http/body.ts parseJson; a shorter one is exact as a double).
 */
export function idWith(message: string) {
  return z.preprocess((v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : v), z.string().refine(isId, message));
}

export const idParam = idWith('must be an id');

/** A media description (uploads, and media_attributes[] of an edit). */
export const description = z.string().max(MEDIA_LIMITS.descriptionChars, `Description is too long (maximum is ${MEDIA_LIMITS.descriptionChars} characters)`);

/** A media focal point, "x,y" with each between -1 and 1. */
export const focus = z
  .string()
  .regex(/^-?\d+(\.\d+)?,-?\d+(\.\d+)?$/, 'focus must be "x,y"')
  .transform((v) => v.split(',').map(Number) as [number, number])
  .refine(([x, y]) => Math.abs(x) <= 1 && Math.abs(y) <= 1, 'focus values must be between -1 and 1');

/**
 * The ids of a repeatable `id[]` query parameter (or `id`), each once, in the order given; what is not an id names
 * nothing and is skipped.
 */
export function idList(query: Readonly<Record<string, unknown>>): string[] {
  return [...new Set((stringList(query['id[]'] ?? query['id']) ?? []).filter((x) => isId(x)))];
}

/** A repeatable query parameter (`types[]=a&types[]=b`, or given once) as its string values; undefined: absent. */
export function stringList(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}

// zod's own wording ("Invalid input: expected string, received undefined"), and a bare "must be …", name no parameter.
const UNNAMED = /^(Invalid|Too (big|small)|Unrecognized)|^[a-z]/;

/**
 * The first problem with a request's parameters as a 422, naming the parameter as Rails writes it (poll[expires_in])
 * when the message does not. `within`: the parameter the parsed value came from.
 */
export function invalid(e: z.ZodError, within?: string): ApiError {
  const issue = e.issues[0]!;
  const path = [...(within ? [within] : []), ...issue.path.map(String)];
  if (path.length === 0 || !UNNAMED.test(issue.message) || path.some((p) => issue.message.startsWith(p))) return Errors.validation(issue.message);
  const name =
    path[0]! +
    path
      .slice(1)
      .map((p) => `[${p}]`)
      .join('');
  return Errors.validation(/^[a-z]/.test(issue.message) ? `${name} ${issue.message}` : `${name}: ${issue.message}`);
}
