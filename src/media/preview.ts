// An attachment's `small` preview, as Mastodon's IMAGE_STYLES small: at most 230,400 pixels (640×360 by area), never
// enlarged, the orientation applied, converted to sRGB, without metadata; and its blurhash (blurhash.ts) over the
// preview scaled to about 32 pixels. JPEG, as Mastodon serves most previews, unless the image has an alpha channel:
// then WebP, which keeps it (every Mastodon client shows WebP, an upload format Mastodon accepts). An animation's
// preview is its first frame, still. Runs inside the image pool.
import { rm } from 'node:fs/promises';
import sharp, { type Sharp } from 'sharp';
import { BLURHASH_SIDE, blurhashOf } from './blurhash.js';
import { boundedByArea, SMALL_PIXELS, type Size } from './image-sizes.js';

export interface Preview {
  readonly width: number;
  readonly height: number;
  readonly size: number;
  readonly contentType: 'image/jpeg' | 'image/webp';
  readonly blurhash: string;
}

/** A remote image kept as fetched (the media proxy): only its preview is made. */
export interface PreviewTask {
  readonly kind: 'preview';
  readonly input: string;
  readonly preview: string;
  /** Width × height above which the file is refused before decoding. */
  readonly maxPixels: number;
}

export type PreviewResult =
  | { readonly ok: true; readonly width: number; readonly height: number; readonly preview: Preview }
  | { readonly ok: false; readonly reason: 'too_many_pixels' | 'unreadable' };

/** The preview making, as the pool offers it. */
export interface ImagePreviewer {
  preview(task: PreviewTask): Promise<PreviewResult>;
}

/** The preview of an image file, with the file's size as shown (oriented; an animation's frame). */
export async function previewImage(task: PreviewTask): Promise<PreviewResult> {
  try {
    const source = sharp(task.input, { limitInputPixels: task.maxPixels, failOn: 'warning' }).autoOrient();
    const m = await source.metadata();
    const frame = m.pageHeight ?? m.height;
    const [width, height] = (m.orientation ?? 1) >= 5 ? [frame, m.width] : [m.width, frame];
    return { ok: true, width, height, preview: await writePreview(source, { width, height }, task.preview) };
  } catch (e) {
    await rm(task.preview, { force: true });
    return { ok: false, reason: e instanceof Error && /pixel limit/i.test(e.message) ? 'too_many_pixels' : 'unreadable' };
  }
}

/** Writes the preview of `source` (oriented, first frame; `oriented` is its size) to `output`. */
export async function writePreview(source: Sharp, oriented: Size, output: string): Promise<Preview> {
  const to = boundedByArea(oriented.width, oriented.height, SMALL_PIXELS);
  const alpha = (await source.metadata()).hasAlpha === true;
  const small = source.resize(to.width, to.height, { fit: 'fill' }).toColourspace('srgb');
  const info = await (alpha ? small.webp({ quality: 80 }) : small.flatten().jpeg({ quality: 80 })).toFile(output);
  return {
    width: info.width,
    height: info.height,
    size: info.size,
    contentType: alpha ? 'image/webp' : 'image/jpeg',
    blurhash: await blurhashOfFile(output),
  };
}

/** The blurhash of an image file, over its pixels scaled to fit BLURHASH_SIDE (the hash holds 4×4 components). */
export async function blurhashOfFile(file: string): Promise<string> {
  const { data, info } = await sharp(file)
    .resize(BLURHASH_SIDE, BLURHASH_SIDE, { fit: 'inside' })
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return blurhashOf(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height);
}
