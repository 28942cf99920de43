// The source text of values inside a JSON document. Signed documents embedded in a peer's JSON (identity
// statements in an actor's attachment) must be kept and shown as the peer wrote them (FEP-c390: "in their original
// form"), not as JSON.stringify would write them back: key order, escapes and number forms can all differ.
// Works on text that JSON.parse has already accepted; anything unexpected answers undefined, never throws.

/** Where a part of a document is: the document's text and the keys leading to it. */
export interface JsonSource {
  readonly text: string;
  readonly path: readonly string[];
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The text of each element of the array at `path` (a single object there counts as one element), in order; [] for
 * another value, undefined when the path is absent. As with JSON.parse, the last of repeated keys counts.
 */
export function elementTexts(text: string, path: readonly string[]): string[] | undefined {
  try {
    let at = skipWs(text, 0);
    for (const key of path) {
      if (text.charCodeAt(at) !== 0x7b /* { */) return undefined;
      const found = memberValue(text, at, key);
      if (found === undefined) return undefined;
      at = found;
    }
    const c = text.charCodeAt(at);
    if (c === 0x7b) return [text.slice(at, skipValue(text, at))];
    if (c !== 0x5b /* [ */) return [];
    const out: string[] = [];
    let i = skipWs(text, at + 1);
    if (text.charCodeAt(i) === 0x5d /* ] */) return out;
    for (;;) {
      const end = skipValue(text, i);
      out.push(text.slice(i, end));
      i = skipWs(text, end);
      if (text.charCodeAt(i) === 0x5d) return out;
      if (text.charCodeAt(i) !== 0x2c /* , */) return undefined;
      i = skipWs(text, i + 1);
    }
  } catch {
    return undefined;
  }
}

/** Where the value of `key` starts in the object at `start` (the last occurrence), or undefined. */
function memberValue(text: string, start: number, key: string): number | undefined {
  let found: number | undefined;
  let i = skipWs(text, start + 1);
  if (text.charCodeAt(i) === 0x7d /* } */) return undefined;
  for (;;) {
    const keyEnd = skipString(text, i);
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipWs(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a /* : */) throw new Error('not json');
    const valueStart = skipWs(text, i + 1);
    if (name === key) found = valueStart;
    i = skipWs(text, skipValue(text, valueStart));
    if (text.charCodeAt(i) === 0x7d) return found;
    if (text.charCodeAt(i) !== 0x2c) throw new Error('not json');
    i = skipWs(text, i + 1);
  }
}

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  return i;
}

/** The end of the string starting at i (the index after its closing quote). */
function skipString(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x22) throw new Error('not json');
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c /* \ */) j++;
    else if (c === 0x22) return j + 1;
  }
  throw new Error('not json');
}

/** The end of the value starting at i. Containers are skipped by counting brackets, so depth costs no stack. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return skipString(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    let j = i;
    while (j < text.length && !WS.has(text.charCodeAt(j)) && !',]}'.includes(text[j]!)) j++;
    if (j === i) throw new Error('not json');
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === 0x22) j = skipString(text, j) - 1;
    else if (d === 0x7b || d === 0x5b) depth++;
    else if (d === 0x7d || d === 0x5d) {
      if (--depth === 0) return j + 1;
    }
  }
  throw new Error('not json');
}
