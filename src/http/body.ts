// Request bodies: read into one buffer under a hard byte limit, then decoded by content type into the value
// handlers validate with zod; multipart bodies are decoded as they arrive, their files streamed to disk.
// Mastodon accepts JSON, url-encoded and multipart on every endpoint, so do we.
import { Errors } from '../errors.js';
import { guard } from './guard.js';
import type { HttpResponse } from './uws.js';
import { MAX_TEXT_FIELD_BYTES, MultipartError, MultipartReader } from './multipart.js';
import { parseUrlEncoded, type Params } from './params.js';

export interface BodyLimits {
  readonly bodyBytes: number;
  readonly formBytes: number;
  readonly multipartBytes: number;
}

export type BodyKind = 'json' | 'form' | 'multipart' | 'none';

export function bodyKindOf(contentType: string): BodyKind | null {
  if (contentType === '') return 'none';
  const base = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (base === 'application/json' || base.endsWith('+json')) return 'json';
  if (base === 'application/x-www-form-urlencoded') return 'form';
  if (base === 'multipart/form-data') return 'multipart';
  return null;
}

/** What a route's body may weigh: the multipart ceiling only where the route takes files, else the JSON limit. */
export function limitFor(kind: BodyKind, limits: BodyLimits, route: { readonly maxBodyBytes?: number; readonly takesFiles?: boolean }): number {
  if (route.maxBodyBytes !== undefined) return route.maxBodyBytes;
  if (kind === 'multipart') return route.takesFiles ? limits.multipartBytes : limits.bodyBytes;
  if (kind === 'form') return limits.formBytes;
  return limits.bodyBytes;
}

export type BodyOutcome =
  | { ok: true; data: Buffer }
  | { ok: false; reason: 'too_large' | 'length_mismatch' | 'over_budget' }
  /** Something threw while the body was read (a bug): the request's error path answers it. */
  | { ok: false; reason: 'error'; error: unknown };

/**
 * Streams the body into a buffer. With a Content-Length the buffer is allocated once at that size; chunked bodies
 * grow under the same limit. uWS reuses each chunk's memory after the callback, so bytes are copied out at once.
 */
export function readBody(
  res: HttpResponse,
  declaredLength: number | null,
  limit: number,
  done: (o: BodyOutcome) => void,
  /** A chunked body's bytes are admitted to the in-flight budget as they come (a declared length was admitted whole). */
  admit: (bytes: number) => boolean = () => true,
  /** Told of each chunk that arrives after the outcome (a refused body still coming), none of it kept. */
  late: (isLast: boolean) => void = () => undefined,
  /** Told when the body's last chunk arrives, before anything else is done with it. */
  ended: () => void = () => undefined,
): void {
  let finished = false;
  const finish = (o: BodyOutcome) => {
    if (finished) return;
    finished = true;
    done(o);
  };
  // uWS calls onData on its own stack: a throw there would end the process, so it ends this request instead.
  const onData = (fn: (chunk: ArrayBuffer, isLast: boolean) => void) =>
    res.onData(
      guard(
        (chunk: ArrayBuffer, isLast: boolean) => {
          if (isLast) ended();
          fn(chunk, isLast);
        },
        (error) => finish({ ok: false, reason: 'error', error }),
      ),
    );
  if (declaredLength !== null) {
    const buf = Buffer.allocUnsafe(declaredLength);
    let offset = 0;
    onData((chunk, isLast) => {
      if (finished) return late(isLast);
      const bytes = chunk.byteLength;
      if (offset + bytes > declaredLength) return finish({ ok: false, reason: 'length_mismatch' });
      Buffer.from(chunk).copy(buf, offset);
      offset += bytes;
      if (isLast) finish(offset === declaredLength ? { ok: true, data: buf } : { ok: false, reason: 'length_mismatch' });
    });
    return;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  onData((chunk, isLast) => {
    if (finished) return late(isLast);
    total += chunk.byteLength;
    if (total > limit) return finish({ ok: false, reason: 'too_large' });
    if (!admit(chunk.byteLength)) return finish({ ok: false, reason: 'over_budget' });
    chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) finish({ ok: true, data: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total) });
  });
}

export type MultipartOutcome = { ok: true; params: Params } | { ok: false; error: unknown };

/**
 * Reads a multipart body under the same byte limit, decoding it as it arrives: files go to temporary files in
 * tempDir, so memory holds a chunk or two whatever the upload's size. Disk slower than the network pauses the
 * socket. The returned reader must be discarded when the request ends (after the handler, or on abort).
 */
export function readMultipart(
  res: HttpResponse,
  declaredLength: number | null,
  limit: number,
  contentType: string,
  tempDir: string,
  takesFiles: boolean,
  done: (o: MultipartOutcome) => void,
  /** As readBody's: the chunks that arrive after the outcome, dropped. */
  late: (isLast: boolean) => void = () => undefined,
  /** As readBody's: the body's last chunk arrived. */
  ended: () => void = () => undefined,
): MultipartReader | null {
  let finished = false;
  let paused = false;
  const finish = (o: MultipartOutcome) => {
    if (finished) return;
    finished = true;
    // A paused socket would never read the connection's next request. (On abort nothing is finished: the reader is
    // discarded, and the response is not touched again.)
    if (paused) res.resume();
    done(o.ok ? o : { ok: false, error: multipartError(o.error) });
  };
  let reader: MultipartReader;
  try {
    reader = new MultipartReader(contentType, tempDir, (r) => finish(r), takesFiles);
  } catch (e) {
    // No reader (a malformed boundary): the body is dropped as it comes, after the answer.
    res.onData((_chunk, isLast) => {
      if (isLast) ended();
      late(isLast);
    });
    finish({ ok: false, error: e });
    return null;
  }
  let total = 0;
  // As in readBody: a throw on uWS's stack (here, or in busboy's callbacks under write) ends this request only.
  const onData = guard(
    (chunk: ArrayBuffer, isLast: boolean) => {
      if (isLast) ended();
      if (finished) return late(isLast);
      total += chunk.byteLength;
      if (total > limit) return finish({ ok: false, error: Errors.bodyTooLarge(limit) });
      if (declaredLength !== null && (total > declaredLength || (isLast && total !== declaredLength))) {
        return finish({ ok: false, error: Errors.badRequest('Body length does not match Content-Length') });
      }
      const more = reader.write(Buffer.from(chunk.slice(0)));
      // The write may have ended the body (a refused part): the request is answered, the rest of the body dropped.
      if (finished) return late(isLast);
      if (!more && !paused) {
        paused = true;
        res.pause();
        reader.onDrain(() => {
          if (finished || !paused) return;
          paused = false;
          res.resume();
        });
      }
      if (isLast) reader.end();
    },
    (error) => finish({ ok: false, error }),
  );
  res.onData(onData);
  return reader;
}

/** Maps a multipart decoding failure to the client's error (400, or 413 for oversized text fields). */
export function multipartError(e: unknown): unknown {
  if (!(e instanceof MultipartError)) return e;
  return e.tooLarge ? Errors.bodyTooLarge(MAX_TEXT_FIELD_BYTES) : Errors.malformedBody(`multipart (${e.message})`);
}

/** Decodes a complete body; throws ApiError (400/415) on a client mistake. */
export function decodeBody(kind: BodyKind, contentType: string, data: Buffer): unknown {
  switch (kind) {
    case 'none':
      if (data.length > 0) throw Errors.unsupportedMediaType('');
      return {};
    case 'json': {
      if (data.length === 0) return {};
      try {
        return parseJson(data.toString('utf8'));
      } catch {
        throw Errors.malformedBody('JSON');
      }
    }
    case 'form':
      return parseUrlEncoded(data.toString('utf8'));
    case 'multipart':
      // Decoded while it arrives (readMultipart), never from a buffer.
      throw new Error(`multipart bodies are streamed, not decoded from a buffer (${contentType})`);
  }
}

// More than 15 digits may not survive a double, and ids are 64-bit: 9223372036854775807 would read as …808.
const LONG_DIGITS = /\d{16}/;
const LONG_INTEGER = /^[1-9]\d{15,}$/;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * JSON.parse, except that bare integers longer than 15 digits arrive as their digits in a string: Mastodon clients
 * send ids as JSON numbers (`"last_read_id": 1234…`), and id parameters take digit strings. Node 20 has no reviver
 * `context.source`, so the text is rewritten first, and only where it holds a run of 16 digits.
 */
export function parseJson(text: string): unknown {
  return JSON.parse(LONG_DIGITS.test(text) ? quoteLongIntegers(text) : text) as unknown;
}

/**
 * Quotes each bare integer literal of 16 or more digits, skipping strings (and their escapes). A negative or
 * fractional number, one with an exponent or a leading zero, and one standing where a key belongs (followed by `:`)
 * are left alone, so malformed JSON stays malformed and a fraction stays a number.
 */
export function quoteLongIntegers(text: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        i += d === BACKSLASH ? 2 : 1;
        if (d === QUOTE) break;
      }
    } else if (isNumberChar(c)) {
      const start = i;
      while (i < n && isNumberChar(text.charCodeAt(i))) i++;
      const token = text.slice(start, i);
      if (LONG_INTEGER.test(token) && !keyFollows(text, i)) {
        out += `${text.slice(copied, start)}"${token}"`;
        copied = i;
      }
    } else {
      i++;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The characters a JSON number is made of: a token of them is one number (or malformed). */
function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

function keyFollows(text: string, i: number): boolean {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return text[i] === ':';
}
