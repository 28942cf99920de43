// Rails-style parameter decoding shared by query strings, url-encoded forms and multipart fields, because
// Mastodon clients send `a[]=1&a[]=2` and `poll[options][]=x` and expect them read as arrays and objects.

export type ParamValue = string | ParamValue[] | { [key: string]: ParamValue } | UploadedFile;
export type Params = Record<string, ParamValue>;

/** A multipart file part, streamed to a temporary file (removed after the request, unless the handler moved it). */
export interface UploadedFile {
  readonly kind: 'file';
  readonly filename: string;
  /** As the client named it; never trusted (media/sniff.ts reads the bytes). */
  readonly contentType: string;
  readonly path: string;
  readonly size: number;
  /** The file's first bytes (up to 64 KiB), to sniff its type without reading the file again. */
  readonly head: Buffer;
}

const MAX_DEPTH = 8;
// Keys that would reach Object.prototype through a nested assignment; such pairs are dropped.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function emptyObject(): { [key: string]: ParamValue } {
  return Object.create(null) as { [key: string]: ParamValue };
}
const MAX_KEYS = 1000;

/** Splits `a[b][]` into ['a', 'b', '']; returns null for a key that is not well formed. */
function splitKey(key: string): string[] | null {
  const open = key.indexOf('[');
  if (open === -1) return [key];
  if (open === 0) return null;
  const parts = [key.slice(0, open)];
  let i = open;
  while (i < key.length) {
    if (key[i] !== '[') return null;
    const close = key.indexOf(']', i);
    if (close === -1) return null;
    parts.push(key.slice(i + 1, close));
    i = close + 1;
  }
  return parts.length > MAX_DEPTH ? null : parts;
}

function isObject(v: ParamValue | undefined): v is { [key: string]: ParamValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isUploadedFile(v);
}

/** A real upload (multipart part with a filename), never a look-alike built from form fields. */
export function isUploadedFile(v: unknown): v is UploadedFile {
  return typeof v === 'object' && v !== null && (v as UploadedFile).kind === 'file' && Buffer.isBuffer((v as UploadedFile).head);
}

/** Whether obj already holds a value at the key path (a path through an array never counts, as in Rails). */
function hasPath(obj: { [key: string]: ParamValue }, path: readonly string[]): boolean {
  let node: ParamValue = obj;
  for (const part of path) {
    if (part === '' || !isObject(node) || !Object.hasOwn(node, part)) return false;
    node = node[part]!;
  }
  return true;
}

/** Adds one decoded pair into target. Malformed keys are kept verbatim as flat keys rather than dropped. */
export function assignParam(target: Params, key: string, value: string | UploadedFile): void {
  const parts = splitKey(key);
  if (!parts) {
    if (!FORBIDDEN_KEYS.has(key)) target[key] = value;
    return;
  }
  if (parts.some((p) => FORBIDDEN_KEYS.has(p))) return;
  let node: Record<string, ParamValue> | ParamValue[] = target;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const last = i === parts.length - 1;
    const nextIsArray = !last && parts[i + 1] === '';
    if (Array.isArray(node)) {
      // `a[]` appends the value. `a[][b]=1&a[][c]=2` is one object {b, c}, as in Rails: a key goes into the last
      // object unless that object already has it, which starts the next (media_attributes[][id]=…&[description]=…).
      if (last) {
        node.push(value);
        return;
      }
      const tail: ParamValue | undefined = node[node.length - 1];
      if (!nextIsArray && isObject(tail) && !hasPath(tail, parts.slice(i + 1))) {
        node = tail;
        continue;
      }
      const child: ParamValue = nextIsArray ? [] : emptyObject();
      node.push(child);
      node = child as Record<string, ParamValue> | ParamValue[];
      continue;
    }
    if (part === '') return; // `a[b][]` where the parent was not an array: ignore rather than corrupt.
    if (last) {
      node[part] = value;
      return;
    }
    const existing: ParamValue | undefined = node[part];
    if (nextIsArray) {
      if (!Array.isArray(existing)) node[part] = [];
    } else if (!isObject(existing)) {
      node[part] = emptyObject();
    }
    node = node[part] as Record<string, ParamValue> | ParamValue[];
  }
}

export function parseUrlEncoded(text: string): Params {
  const out: Params = emptyObject();
  if (text.length === 0) return out;
  let count = 0;
  for (const [k, v] of new URLSearchParams(text)) {
    if (++count > MAX_KEYS) break;
    assignParam(out, k, v);
  }
  return out;
}
