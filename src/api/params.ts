// Parameter shapes the API routes share (Rails-style booleans as clients send them in forms, JSON and queries).
import { z } from 'zod';
import { isId } from '../store/ids.js';

export const railsBool = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0', 'on', 'off', '']).transform((v) => v === 'true' || v === '1' || v === 'on'),
]);

/** A query flag: present and truthy. */
export function flag(v: unknown): boolean {
  return v === true || v === 'true' || v === '1' || v === 'on';
}

/** JSON null means "not given" to Mastodon clients (megalodon sends nulls for unset options). */
export function given(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null));
}

export const idParam = z.string().refine(isId, 'must be an id');

/** A repeatable query parameter (`types[]=a&types[]=b`, or given once) as its string values; undefined: absent. */
export function stringList(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}
