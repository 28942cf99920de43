// Re-encoding an uploaded image with sharp, so that nothing but its pixels reaches other people: EXIF (GPS position,
// camera serial), XMP, IPTC and comments are dropped, the EXIF orientation is applied to the pixels, the ICC colour
// profile is kept. Same format out as in. For an attachment, its `small` preview and blurhash (preview.ts); for an
// avatar or header, Mastodon's size (image-sizes.ts) and, for a GIF or WebP, a still PNG of its first frame. Runs
// inside the image pool (actors/image-pool.ts), never on the event loop.
import { rm } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';
import { AVATAR_SIDE, boundedByArea, HEADER_PIXELS } from './image-sizes.js';
import { writePreview, type Preview } from './preview.js';

/** The formats sniff.ts accepts as images. */
export type ImageFormat = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp' | 'image/avif';

export interface ReencodeTask {
  readonly input: string;
  readonly output: string;
  readonly contentType: string;
  /** Width × height (all frames of an animation together) above which the file is refused before decoding. */
  readonly maxPixels: number;
  /** An attachment's: where its small preview is written (the result names the format chosen). */
  readonly preview?: string;
  /** A profile image's: the size it is given (Mastodon's avatar or header). */
  readonly shape?: 'avatar' | 'header';
  /** A profile image's: where a still PNG of its first frame is written when it is a GIF or a WebP. */
  readonly still?: string;
}

export type ReencodeResult =
  | {
      readonly ok: true;
      readonly width: number;
      readonly height: number;
      readonly size: number;
      readonly preview?: Preview;
      /** Whether `still` was written. */
      readonly still?: boolean;
    }
  | { readonly ok: false; readonly reason: 'too_many_pixels' | 'unreadable' | 'unsupported' };

/** The re-encoding, as the pool offers it to the API. */
export interface ImageReencoder {
  reencode(task: ReencodeTask): Promise<ReencodeResult>;
}

// Animated GIF and WebP stay animated (libvips reads and writes every frame), so a GIF is re-encoded like any
// other image rather than kept byte for byte: its comment and XMP extensions are metadata too.
export const ANIMATED = new Set(['image/gif', 'image/webp']);

export async function reencodeImage(task: ReencodeTask): Promise<ReencodeResult> {
  try {
    // failOn 'warning' (the default, said here on purpose): a truncated or damaged file is refused, not half-decoded.
    const open = (animated: boolean): Sharp => sharp(task.input, { limitInputPixels: task.maxPixels, animated, failOn: 'warning' }).autoOrient();
    let img = open(ANIMATED.has(task.contentType)).keepIccProfile();
    if (task.shape) img = await shaped(img, task.shape);
    const out = encoded(img, task.contentType);
    if (!out) return { ok: false, reason: 'unsupported' };
    const info = await out.toFile(task.output);
    const width = info.width;
    const height = info.pageHeight ?? info.height;
    // From the input again, its first frame only: JPEG and WebP shrink on load, so this decodes far fewer pixels.
    const preview = task.preview === undefined ? undefined : await writePreview(open(false), { width, height }, task.preview);
    let still: boolean | undefined;
    if (task.still !== undefined && ANIMATED.has(task.contentType)) {
      let first = open(false);
      if (task.shape) first = await shaped(first, task.shape);
      await first.png().toFile(task.still);
      still = true;
    }
    return { ok: true, width, height, size: info.size, ...(preview && { preview }), ...(still && { still }) };
  } catch (e) {
    await Promise.all([task.output, task.preview, task.still].map((f) => f !== undefined && rm(f, { force: true })));
    return { ok: false, reason: e instanceof Error && /pixel limit/i.test(e.message) ? 'too_many_pixels' : 'unreadable' };
  }
}

function encoded(img: Sharp, contentType: string): Sharp | undefined {
  switch (contentType) {
    case 'image/jpeg':
      return img.jpeg({ quality: 90 });
    case 'image/png':
      return img.png();
    case 'image/gif':
      return img.gif();
    case 'image/webp':
      return img.webp({ quality: 90 });
    case 'image/avif':
      return img.avif({ quality: 70, effort: 2 });
    default:
      return undefined;
  }
}

/**
 * Mastodon's avatar (a centred square, 400×400, or the image's shorter side when smaller: never enlarged) or header
 * (at most 1500×500 by area, aspect kept, never enlarged). Sizes as shown: after the orientation.
 */
async function shaped(img: Sharp, shape: 'avatar' | 'header'): Promise<Sharp> {
  const m = await img.metadata();
  const [w, h] = (m.orientation ?? 1) >= 5 ? [m.pageHeight ?? m.height, m.width] : [m.width, m.pageHeight ?? m.height];
  if (shape === 'avatar') {
    const side = Math.min(AVATAR_SIDE, w, h);
    return side === w && side === h ? img : img.resize(side, side, { fit: 'cover', position: 'centre' });
  }
  const to = boundedByArea(w, h, HEADER_PIXELS);
  return to.width === w && to.height === h ? img : img.resize(to.width, to.height, { fit: 'fill' });
}
