// What lemmy-js-client 0.19.9 declares, checked against JSON we answer: every required field present with the
// declared type (numbers as numbers, string-literal unions as one of their strings, nested interfaces and arrays
// recursively), optional fields of the declared type when present, and no field the client does not declare. Read
// from the package's own `dist/types/*.d.ts`, so the check follows the pinned client, not a copy of it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const TYPES = path.join(path.dirname(require.resolve('lemmy-js-client')), 'types');

interface Field {
  readonly name: string;
  readonly optional: boolean;
  readonly type: string;
}

type Decl = { readonly kind: 'interface'; readonly fields: readonly Field[] } | { readonly kind: 'alias'; readonly type: string };

const cache = new Map<string, Decl>();

/**
 * Fields this branch's views are known to leave out, as `Type.field`: Person.bot_account is missing from the Person
 * rows of store/link-rows.ts as merged here (i37-posts), and added there by its commit 206dccd. Remove the entry once
 * that commit is merged.
 */
const KNOWN_MISSING = new Set(['Person.bot_account']);

function declaration(name: string): Decl {
  const known = cache.get(name);
  if (known) return known;
  const text = readFileSync(path.join(TYPES, `${name}.d.ts`), 'utf8');
  const alias = /export type \w+ = ([^;]+);/.exec(text);
  let decl: Decl;
  if (alias) decl = { kind: 'alias', type: alias[1]!.trim() };
  else {
    const body = /export interface \w+ \{([\s\S]*?)\n\}/.exec(text);
    assert.ok(body, `${name}: no interface in its declaration`);
    const fields = [...body[1]!.matchAll(/^\s+(\w+)(\??): (.+);$/gm)].map((m) => ({ name: m[1]!, optional: m[2] === '?', type: m[3]!.trim() }));
    decl = { kind: 'interface', fields };
  }
  cache.set(name, decl);
  return decl;
}

function check(type: string, value: unknown, where: string): void {
  if (type === 'number') return assert.equal(typeof value, 'number', `${where}: a number`);
  if (type === 'string') return assert.equal(typeof value, 'string', `${where}: a string`);
  if (type === 'boolean') return assert.equal(typeof value, 'boolean', `${where}: a boolean`);
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    assert.ok(Array.isArray(value), `${where}: an array`);
    for (const [i, v] of value.entries()) check(array[1]!, v, `${where}[${i}]`);
    return;
  }
  if (/^"/.test(type)) {
    const allowed = type.split('|').map((s) => JSON.parse(s.trim()) as string);
    return assert.ok(allowed.includes(value as string), `${where}: one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  assert.match(type, /^\w+$/, `${where}: a declared type the checker reads (${type})`);
  assertDeclaredShape(type, value, where);
}

/** Asserts that `value` is what lemmy-js-client declares `typeName` to be (`where` names it in failures). */
export function assertDeclaredShape(typeName: string, value: unknown, where: string = typeName): void {
  const decl = declaration(typeName);
  if (decl.kind === 'alias') return check(decl.type, value, where);
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${where}: an object`);
  const o = value as Record<string, unknown>;
  for (const f of decl.fields) {
    if (o[f.name] === undefined) {
      assert.ok(f.optional || KNOWN_MISSING.has(`${typeName}.${f.name}`), `${where}.${f.name}: required by ${typeName}`);
      continue;
    }
    check(f.type, o[f.name], `${where}.${f.name}`);
  }
  const declared = new Set(decl.fields.map((f) => f.name));
  const extra = Object.keys(o).filter((k) => !declared.has(k));
  assert.deepEqual(extra, [], `${where}: fields ${typeName} does not declare`);
}
