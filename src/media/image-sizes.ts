// The sizes Mastodon gives its image styles, as pure functions (the pool's workers and tests share them): the
// attachment's `small` style (at most 230,400 pixels, 640×360 by area), the header (at most 750,000, 1500×500 by
// area) and the avatar (400×400, cover-cropped). Never upscaled where Mastodon keeps a smaller image as it is.

/** Mastodon's IMAGE_STYLES small: pixels 230_400. */
export const SMALL_PIXELS = 230_400;
/** Mastodon's Account::Header: HEADER_DIMENSIONS 1500×500 as a pixel count (the aspect is kept). */
export const HEADER_PIXELS = 1500 * 500;
/** Mastodon's Account::Avatar: 400×400, cropped to the centre (a smaller image: its centred square, not enlarged). */
export const AVATAR_SIDE = 400;

export interface Size {
  readonly width: number;
  readonly height: number;
}

/**
 * The largest size with the aspect of width×height and at most `pixels` pixels; the size itself when it is no larger.
 * Each side is rounded down (never up: the bound holds) and is at least 1.
 */
export function boundedByArea(width: number, height: number, pixels: number): Size {
  if (width * height <= pixels) return { width, height };
  const scale = Math.sqrt(pixels / (width * height));
  // The small epsilon keeps exact ratios exact (1800×600 to 750,000 pixels is 1500×500, not 1499×500).
  let w = Math.max(1, Math.floor(width * scale + 1e-9));
  let h = Math.max(1, Math.floor(height * scale + 1e-9));
  // A very thin image: one side pinned at 1 lets the other grow past the bound; trim it back.
  if (w * h > pixels) w === 1 ? (h = Math.floor(pixels)) : (w = Math.floor(pixels / h));
  return { width: w, height: h };
}
