// Lemmy's JSON shapes as lemmy-js-client declares them (node_modules/lemmy-js-client/dist/types/<Name>.d.ts), read
// at test time: a value must carry every required field, no field the client does not declare, and, recursively, the
// declared shapes of its nested objects and arrays; scalars must have the declared JavaScript type.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const typesDir = path.join(path.dirname(require.resolve('lemmy-js-client')), 'types');

interface Field {
  readonly optional: boolean;
  readonly type: string;
}

const declared = new Map<string, Map<string, Field> | string>();

/** The interface's fields, or the alias's text (`type X = "A" | "B"`, `type PostId = number`). */
function declaration(name: string): Map<string, Field> | string {
  const known = declared.get(name);
  if (known) return known;
  const text = readFileSync(path.join(typesDir, `${name}.d.ts`), 'utf8');
  const alias = /export type \w+ = ([^;]+);/.exec(text);
  let d: Map<string, Field> | string;
  if (alias) d = alias[1]!.trim();
  else {
    d = new Map();
    for (const m of text.matchAll(/^\s+(\w+)(\??): ([^;]+);$/gm)) d.set(m[1]!, { optional: m[2] === '?', type: m[3]!.trim() });
  }
  declared.set(name, d);
  return d;
}

function check(type: string, value: unknown, at: string): void {
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    assert.ok(Array.isArray(value), `${at}: an array`);
    for (const [i, v] of value.entries()) check(array[1]!, v, `${at}[${i}]`);
    return;
  }
  if (type === 'string' || type === 'number' || type === 'boolean') {
    assert.equal(typeof value, type, `${at}: a ${type}`);
    return;
  }
  const d = declaration(type);
  if (typeof d === 'string') {
    const strings = [...d.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    if (strings.length > 0) assert.ok(strings.includes(value as string), `${at}: ${JSON.stringify(value)} is not one of ${d}`);
    else check(d, value, at);
    return;
  }
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${at}: an object (${type})`);
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) assert.ok(d.has(k), `${at}.${k}: not a field of ${type}`);
  for (const [k, f] of d) {
    if (o[k] === undefined) {
      assert.ok(f.optional, `${at}.${k}: required by ${type}`);
      continue;
    }
    check(f.type, o[k], `${at}.${k}`);
  }
}

/** Asserts `value` is exactly a `type` (a lemmy-js-client type name: 'PostView', 'GetPostResponse' …). */
export function assertLemmyShape(type: string, value: unknown): void {
  check(type, value, type);
}
