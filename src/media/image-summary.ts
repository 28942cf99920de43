// A link card's image as Mastodon keeps it (PreviewCard's image style: at most 400×400, orientation applied,
// metadata dropped) with its blurhash (media/blurhash.ts, over the pixels scaled to ~32 px). Runs inside the image
// pool (actors/workers/image.ts, task kind 'card-image'), never on the event loop. A bad file is a result, not a throw.
import { rm } from 'node:fs/promises';
import sharp from 'sharp';
import { BLURHASH_SIDE, blurhashOf } from './blurhash.js';

/** Mastodon's preview card image geometry ('400x400>'). */
export const CARD_IMAGE_SIDE = 400;

export interface CardImageTask {
  readonly kind: 'card-image';
  readonly input: string;
  /** Written as JPEG (WebP when the source has an alpha channel or is WebP). */
  readonly output: string;
  /** Width × height above which the file is refused before decoding. */
  readonly maxPixels: number;
}

export type CardImageResult =
  | { readonly ok: true; readonly width: number; readonly height: number; readonly size: number; readonly contentType: string; readonly blurhash: string }
  | { readonly ok: false; readonly reason: 'too_many_pixels' | 'unreadable' };

export async function summarizeCardImage(task: CardImageTask): Promise<CardImageResult> {
  try {
    // The first frame only: a card's image is a still.
    const src = sharp(task.input, { limitInputPixels: task.maxPixels, failOn: 'warning' }).autoOrient();
    const meta = await src.metadata();
    const webp = meta.hasAlpha === true || meta.format === 'webp';
    const resized = src.resize(CARD_IMAGE_SIDE, CARD_IMAGE_SIDE, { fit: 'inside', withoutEnlargement: true }).toColourspace('srgb');
    const info = await (webp ? resized.webp({ quality: 85 }) : resized.flatten({ background: '#ffffff' }).jpeg({ quality: 85 })).toFile(task.output);
    const { data, info: px } = await sharp(task.output)
      .resize(BLURHASH_SIDE, BLURHASH_SIDE, { fit: 'inside' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return {
      ok: true,
      width: info.width,
      height: info.height,
      size: info.size,
      contentType: webp ? 'image/webp' : 'image/jpeg',
      blurhash: blurhashOf(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), px.width, px.height),
    };
  } catch (e) {
    await rm(task.output, { force: true });
    return { ok: false, reason: e instanceof Error && /pixel limit/i.test(e.message) ? 'too_many_pixels' : 'unreadable' };
  }
}
