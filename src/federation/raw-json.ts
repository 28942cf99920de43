// JSON text embedded verbatim in a larger document: signed documents (identity statements) are published in their
// original form, never re-serialised. JSON.stringify cannot emit raw text on Node 20 (no JSON.rawJSON), so each
// RawJson value is written as a marker string and the marker is then replaced by the text. The marker carries a
// per-process random token: user content cannot spell it.
import { randomBytes } from 'node:crypto';

export class RawJson {
  /** text must be one complete JSON value (it was parsed successfully before it was stored). */
  constructor(readonly text: string) {}
}

const TOKEN = randomBytes(16).toString('hex');
const MARKER = new RegExp(`"\\\\u0000raw:${TOKEN}:(\\d+)"`, 'g');

export function stringifyWithRaw(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof RawJson ? `\u0000raw:${TOKEN}:${raws.push(v.text) - 1}` : v));
  return raws.length === 0 ? text : text.replace(MARKER, (_m, i: string) => raws[Number(i)]!);
}
