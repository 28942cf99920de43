// Media for tests: PNG headers of any size (enough for type and size sniffing) and uploads through POST /api/v2/media.
import type { Json } from './api.js';

/** The first bytes of a PNG of the given size (enough for type and size detection). */
export function png(width: number, height: number, extra = 64): Buffer {
  const b = Buffer.alloc(33 + extra);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).copy(b);
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
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
