// Media for tests: real PNGs of any size, ISO BMFF headers, and uploads through POST /api/v2/media.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import type { Json } from './api.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

const pngs = new Map<string, Buffer>();

/**
 * A real (decodable) black greyscale PNG of the given size, followed by `extra` zero bytes that decoders ignore
 * (uploads are re-encoded, so the image must be whole; the padding makes a file of a chosen length).
 */
export function png(width: number, height: number, extra = 64): Buffer {
  const key = `${width}x${height}`;
  let image = pngs.get(key);
  if (!image) {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(width, 0);
    ihdr.writeUInt32BE(height, 4);
    ihdr[8] = 8; // bit depth
    ihdr[9] = 0; // greyscale
    const rows = Buffer.alloc((width + 1) * height); // each row: filter byte 0, then black pixels
    image = Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', zlib.deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]);
    pngs.set(key, image);
  }
  return Buffer.concat([image, Buffer.alloc(extra)]);
}

/** A PNG whose header declares this size over a few bytes of pixel data: a pixel bomb, for sizes past the limit. */
export function pngDeclaring(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))), pngChunk('IEND', Buffer.alloc(0))]);
}

/** What an image file is, decoded: its format and size (what a client displaying it would see). */
export async function imageInfo(data: Buffer): Promise<{ format: string | undefined; width: number | undefined; height: number | undefined }> {
  const m = await sharp(data).metadata();
  return { format: m.format, width: m.width, height: m.height };
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

let mp4: Buffer | undefined;

/** A real H.264 MP4 (1 s, 160×120, made once with ffmpeg): processing keeps it as sent. */
export function h264Mp4(): Buffer {
  if (!mp4) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'stoa-mp4-'));
    const file = path.join(dir, 'a.mp4');
    execFileSync('/usr/bin/ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      file,
    ]);
    mp4 = readFileSync(file);
    rmSync(dir, { recursive: true, force: true });
  }
  return mp4;
}

/** Uploads a video or audio file (202) and waits until GET /api/v1/media/:id answers it processed (200). */
export async function uploadProcessed(base: string, token: string | undefined, data: Buffer, fields: Record<string, string> = {}): Promise<Json> {
  const r = await upload(base, token, data, fields, 'application/octet-stream');
  if (r.status !== 202) throw new Error(`upload answered ${r.status}: ${JSON.stringify(r.body)}`);
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    const g = await fetch(`${base}/api/v1/media/${r.body.id}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    if (g.status === 200) return (await g.json()) as Json;
    if (g.status !== 206) throw new Error(`processing answered ${g.status}: ${await g.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('not processed within a minute');
}
