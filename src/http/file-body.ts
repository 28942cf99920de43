// Files as response bodies: a handler returns where the bytes are (and which range of them) instead of the bytes,
// and the front end streams them from storage (a local directory or a bucket) with backpressure (stream-file.ts). A 40 MiB video then costs one 64 KiB
// buffer per download rather than 40 MiB, and players that seek (Safari and iOS need it to play video at all) get
// the byte ranges they ask for.
import type { FileBody, Reply } from './types.js';

export function isFileBody(b: unknown): b is FileBody {
  return typeof b === 'object' && b !== null && !Buffer.isBuffer(b) && (b as FileBody).kind === 'file';
}

/**
 * The reply for a file of `size` bytes, honouring a single `Range: bytes=…` (206, or 416 when unsatisfiable); a
 * header we do not understand (several ranges, other units) is ignored and the whole file sent, as RFC 9110 allows.
 */
export function fileReply(
  file: { readonly size: number; readonly read: FileBody['read'] },
  range: string | undefined,
  headers: Readonly<Record<string, string>>,
): Reply {
  const { size, read } = file;
  const base = { ...headers, 'Accept-Ranges': 'bytes' };
  const r = range === undefined ? null : parseRange(range, size);
  if (r === 'unsatisfiable') return { status: 416, headers: { ...base, 'Content-Range': `bytes */${size}` }, body: '' };
  if (r)
    return {
      status: 206,
      headers: { ...base, 'Content-Range': `bytes ${r.start}-${r.end}/${size}` },
      body: { kind: 'file', read, start: r.start, end: r.end },
    };
  if (size === 0) return { status: 200, headers: base, body: '' };
  return { status: 200, headers: base, body: { kind: 'file', read, start: 0, end: size - 1 } };
}

const RANGE = /^bytes=(\d{0,15})-(\d{0,15})$/;

function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = RANGE.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    // bytes=-N: the last N bytes.
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  if (m[2] !== '' && Number(m[2]) < start) return null; // not a valid range: ignored
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
