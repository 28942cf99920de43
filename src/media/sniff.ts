// What an uploaded file really is, from its first bytes (the client's Content-Type is not trusted), and an image's
// size from its header. Only the formats below are accepted.

/** Each format we accept (as served), with the other names clients give such files; the instance documents list them all. */
const FORMATS: readonly { readonly contentType: string; readonly alsoKnownAs: readonly string[] }[] = [
  { contentType: 'image/jpeg', alsoKnownAs: [] },
  { contentType: 'image/png', alsoKnownAs: [] },
  { contentType: 'image/gif', alsoKnownAs: [] },
  { contentType: 'image/webp', alsoKnownAs: [] },
  { contentType: 'image/avif', alsoKnownAs: [] },
  // QuickTime files are ISO BMFF like MP4 (iPhone videos are .mov) and are served as MP4.
  { contentType: 'video/mp4', alsoKnownAs: ['video/quicktime'] },
  { contentType: 'video/webm', alsoKnownAs: [] },
  { contentType: 'audio/mpeg', alsoKnownAs: ['audio/mp3'] },
  { contentType: 'audio/ogg', alsoKnownAs: [] },
  { contentType: 'audio/mp4', alsoKnownAs: ['audio/m4a', 'audio/x-m4a'] },
  // Accepted and made MP3 by the media processor (media/transcode.ts).
  { contentType: 'audio/wav', alsoKnownAs: ['audio/wave', 'audio/x-wav'] },
  { contentType: 'audio/flac', alsoKnownAs: ['audio/x-flac'] },
];

export const SUPPORTED_MIME_TYPES: readonly string[] = FORMATS.flatMap((f) => [f.contentType, ...f.alsoKnownAs]);

/** What the refusal of an unknown file tells the member. */
export const SUPPORTED_DESCRIPTION = 'Images (JPEG, PNG, GIF, WebP, AVIF), MP4, QuickTime and WebM video, MP3, Ogg, M4A, WAV and FLAC audio';

// HEIF images (iPhone photos) are ISO BMFF too, but browsers cannot show them and nothing here converts them.
const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs', 'mif1', 'msf1', 'mif2']);
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
  if (starts(b, [0x52, 0x49, 0x46, 0x46]) && starts(b, [0x57, 0x41, 0x56, 0x45], 8))
    return { contentType: 'audio/wav', type: 'audio', width: null, height: null };
  if (starts(b, [0x66, 0x4c, 0x61, 0x43])) return { contentType: 'audio/flac', type: 'audio', width: null, height: null };
  if (starts(b, [0x66, 0x74, 0x79, 0x70], 4)) return isoMedia(b);
  if (starts(b, [0x1a, 0x45, 0xdf, 0xa3])) return { contentType: 'video/webm', type: 'video', width: null, height: null };
  if (starts(b, [0x4f, 0x67, 0x67, 0x53])) return { contentType: 'audio/ogg', type: 'audio', width: null, height: null };
  if (starts(b, [0x49, 0x44, 0x33]) || starts(b, [0xff, 0xfb]) || starts(b, [0xff, 0xf3]))
    return { contentType: 'audio/mpeg', type: 'audio', width: null, height: null };
  return null;
}

/** An ISO BMFF file (MP4, QuickTime, M4A, AVIF, HEIF) by the brands of its ftyp box. */
function isoMedia(b: Buffer): Sniffed | null {
  const major = b.toString('latin1', 8, 12);
  // The compatible brands fill the rest of the ftyp box (its size is its first four bytes); a few are plenty.
  const boxEnd = Math.min(b.readUInt32BE(0), b.length, 256);
  const compatible: string[] = [];
  for (let i = 16; i + 4 <= boxEnd; i += 4) compatible.push(b.toString('latin1', i, i + 4));
  const avif = major === 'avif' || major === 'avis' || (HEIF_BRANDS.has(major) && (compatible.includes('avif') || compatible.includes('avis')));
  if (avif) return { contentType: 'image/avif', type: 'image', width: null, height: null };
  if (HEIF_BRANDS.has(major)) return null;
  if (major.startsWith('M4A') || major.startsWith('M4B')) return { contentType: 'audio/mp4', type: 'audio', width: null, height: null };
  return { contentType: 'video/mp4', type: 'video', width: null, height: null };
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
