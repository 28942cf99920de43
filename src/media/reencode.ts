// Re-encoding an uploaded image with sharp, so that nothing but its pixels reaches other people: EXIF (GPS position,
// camera serial), XMP, IPTC and comments are dropped, the EXIF orientation is applied to the pixels, the ICC colour
// profile is kept. Same format out as in. Runs inside the image pool (actors/image-pool.ts), never on the event loop.
import { rm } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';

/** The formats sniff.ts accepts as images. */
export type ImageFormat = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp' | 'image/avif';

export interface ReencodeTask {
  readonly input: string;
  readonly output: string;
  readonly contentType: string;
  /** Width × height (all frames of an animation together) above which the file is refused before decoding. */
  readonly maxPixels: number;
}

export type ReencodeResult =
  | { readonly ok: true; readonly width: number; readonly height: number; readonly size: number }
  | { readonly ok: false; readonly reason: 'too_many_pixels' | 'unreadable' | 'unsupported' };

/** The re-encoding, as the pool offers it to the API. */
export interface ImageReencoder {
  reencode(task: ReencodeTask): Promise<ReencodeResult>;
}

// Animated GIF and WebP stay animated (libvips reads and writes every frame), so a GIF is re-encoded like any
// other image rather than kept byte for byte: its comment and XMP extensions are metadata too.
const ANIMATED = new Set(['image/gif', 'image/webp']);

export async function reencodeImage(task: ReencodeTask): Promise<ReencodeResult> {
  let img: Sharp;
  try {
    // failOn 'warning' (the default, said here on purpose): a truncated or damaged file is refused, not half-decoded.
    img = sharp(task.input, { limitInputPixels: task.maxPixels, animated: ANIMATED.has(task.contentType), failOn: 'warning' })
      .autoOrient()
      .keepIccProfile();
    switch (task.contentType) {
      case 'image/jpeg':
        img = img.jpeg({ quality: 90 });
        break;
      case 'image/png':
        img = img.png();
        break;
      case 'image/gif':
        img = img.gif();
        break;
      case 'image/webp':
        img = img.webp({ quality: 90 });
        break;
      case 'image/avif':
        img = img.avif({ quality: 70, effort: 2 });
        break;
      default:
        return { ok: false, reason: 'unsupported' };
    }
    const info = await img.toFile(task.output);
    return { ok: true, width: info.width, height: info.pageHeight ?? info.height, size: info.size };
  } catch (e) {
    await rm(task.output, { force: true });
    return { ok: false, reason: e instanceof Error && /pixel limit/i.test(e.message) ? 'too_many_pixels' : 'unreadable' };
  }
}
