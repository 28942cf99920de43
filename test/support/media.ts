// Media for tests: PNG headers of any size (enough for type and size sniffing) and uploads through POST /api/v2/media.
import http from 'node:http';
import type { Json } from './api.js';

/** The first bytes of a PNG of the given size (enough for type and size detection). */
export function png(width: number, height: number, extra = 64): Buffer {
  const b = Buffer.alloc(33 + extra);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).copy(b);
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

/** The first bytes of an ISO BMFF file (MP4, QuickTime, M4A, AVIF, HEIC): its ftyp box with these brands. */
export function ftyp(major: string, compatible: readonly string[] = [], extra = 64): Buffer {
  const size = 16 + 4 * compatible.length;
  const b = Buffer.alloc(size + extra);
  b.writeUInt32BE(size, 0);
  b.write('ftyp', 4, 'latin1');
  b.write(major, 8, 'latin1');
  for (const [i, c] of compatible.entries()) b.write(c, 16 + 4 * i, 'latin1');
  return b;
}

export async function upload(base: string, token: string | undefined, data: Buffer, fields: Record<string, string> = {}, type = 'image/png') {
  const form = new FormData();
  form.set('file', new Blob([data], { type }), 'picture.png');
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await fetch(`${base}/api/v2/media`, { method: 'POST', headers: token ? { Authorization: `Bearer ${token}` } : {}, body: form });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
}

export interface StreamedUpload {
  /** The first bytes of the file (what its type is sniffed from). */
  readonly head: Buffer;
  /** The whole file's length: `head` followed by filler, written a chunk at a time (no large buffer in the test). */
  readonly size: number;
  readonly fields?: Record<string, string>;
  /** A Content-Length to declare instead of the real one; the body is then not sent (for refusals on the header). */
  readonly declaredLength?: number;
}

/** POST /api/v2/media with a multipart body generated while it is sent: large files cost the test one 1 MiB chunk. */
export async function uploadStreamed(base: string, token: string, u: StreamedUpload): Promise<{ status: number; body: Json }> {
  const boundary = `----stoa-test-${Date.now().toString(36)}`;
  const fieldParts = Object.entries(u.fields ?? {})
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const open = Buffer.from(
    `${fieldParts}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const close = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = open.length + u.size + close.length;
  const url = new URL('/api/v2/media', base);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(u.declaredLength ?? length),
      },
    });
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString();
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null });
        req.destroy();
      });
    });
    req.on('error', reject); // after the answer (a server closing once it has refused), this changes nothing
    if (u.declaredLength !== undefined) {
      req.flushHeaders();
      return;
    }
    const chunk = Buffer.alloc(1024 * 1024, 0x2a);
    let left = u.size - u.head.length;
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
      }
      req.end(close);
    };
    req.write(open);
    req.write(u.head);
    pump();
  });
}
