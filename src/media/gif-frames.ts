// Whether a GIF is animated (two image blocks or more), by walking its blocks: an animated GIF becomes a looping
// silent MP4 (Mastodon's gifv), a still one stays an image. Linear in the file's size, nothing decoded; a truncated
// or odd file counts the frames seen so far.

/** The number of image blocks, counting stops at `stopAt`. */
export function gifFrames(b: Buffer, stopAt = 2): number {
  if (b.length < 13 || b.toString('latin1', 0, 3) !== 'GIF') return 0;
  let i = 13;
  const flags = b[10]!;
  if (flags & 0x80) i += 3 * (1 << ((flags & 0x07) + 1)); // global colour table
  let frames = 0;
  while (i < b.length) {
    const block = b[i]!;
    if (block === 0x3b) break; // trailer
    if (block === 0x21) {
      i = skipSubBlocks(b, i + 2); // extension: introducer, label, sub-blocks
    } else if (block === 0x2c) {
      if (++frames >= stopAt || i + 10 > b.length) return frames;
      const f = b[i + 9]!;
      i += 10;
      if (f & 0x80) i += 3 * (1 << ((f & 0x07) + 1)); // local colour table
      i = skipSubBlocks(b, i + 1); // LZW minimum code size, then the data
    } else {
      break;
    }
  }
  return frames;
}

function skipSubBlocks(b: Buffer, i: number): number {
  while (i < b.length) {
    const n = b[i]!;
    i += 1 + n;
    if (n === 0) break;
  }
  return i;
}
