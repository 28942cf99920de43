// Mastodon's blurhash: 4×4 components over the small image's RGBA pixels (Mastodon's BlurhashTranscoder uses
// x_comp 4, y_comp 4 over a thumbnail). Pure CPU work: call it inside a pool thread, never on the event loop.
import { encode } from 'blurhash';

export const BLURHASH_COMPONENTS = { x: 4, y: 4 } as const;
/** The side the pixels are scaled to before encoding: the hash carries 4×4 components, more pixels add only time. */
export const BLURHASH_SIDE = 32;

/** The blurhash of `width`×`height` RGBA pixels (4 bytes each, row by row). */
export function blurhashOf(rgba: Uint8ClampedArray, width: number, height: number): string {
  return encode(rgba, width, height, BLURHASH_COMPONENTS.x, BLURHASH_COMPONENTS.y);
}
