// What an uploaded file really is, from its first bytes (the client's Content-Type is not trusted), and an image's
// size from its header. Only the formats below are accepted.
export interface Sniffed {
  readonly contentType: string;
  readonly type: 'image' | 'video' | 'audio';
  readonly width: number | null;
  readonly height: number | null;
}

const starts = (b: Buffer, sig: number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);

export function sniff(b: Buffer): Sniffed | null {
  if (starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { contentType: 'image/png', type: 'image', width: b.length >= 24 ? b.readUInt32BE(16) : null, height: b.length >= 24 ? b.readUInt32BE(20) : null };
  }
  if (starts(b, [0x47, 0x49, 0x46, 0x38])) {
    return { contentType: 'image/gif', type: 'image', width: b.length >= 10 ? b.readUInt16LE(6) : null, height: b.length >= 10 ? b.readUInt16LE(8) : null };
  }
  if (starts(b, [0xff, 0xd8, 0xff])) return { contentType: 'image/jpeg', type: 'image', ...jpegSize(b) };
  if (starts(b, [0x52, 0x49, 0x46, 0x46]) && starts(b, [0x57, 0x45, 0x42, 0x50], 8)) return { contentType: 'image/webp', type: 'image', ...webpSize(b) };
  if (starts(b, [0x66, 0x74, 0x79, 0x70], 4)) {
    const brand = b.toString('latin1', 8, 12);
    if (brand === 'avif') return { contentType: 'image/avif', type: 'image', width: null, height: null };
    if (brand.startsWith('M4A')) return { contentType: 'audio/mp4', type: 'audio', width: null, height: null };
    return { contentType: 'video/mp4', type: 'video', width: null, height: null };
  }
  if (starts(b, [0x1a, 0x45, 0xdf, 0xa3])) return { contentType: 'video/webm', type: 'video', width: null, height: null };
  if (starts(b, [0x4f, 0x67, 0x67, 0x53])) return { contentType: 'audio/ogg', type: 'audio', width: null, height: null };
  if (starts(b, [0x49, 0x44, 0x33]) || starts(b, [0xff, 0xfb]) || starts(b, [0xff, 0xf3])) return { contentType: 'audio/mpeg', type: 'audio', width: null, height: null };
  return null;
}

/** The size from the first start-of-frame marker; null when the header is cut or odd. */
function jpegSize(b: Buffer): { width: number | null; height: number | null } {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return { width: null, height: null };
    const marker = b[i + 1]!;
    const len = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
    }
    i += 2 + len;
  }
  return { width: null, height: null };
}

function webpSize(b: Buffer): { width: number | null; height: number | null } {
  if (b.length < 30) return { width: null, height: null };
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return { width: null, height: null };
}
