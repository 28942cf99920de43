// The media bench's files, made on the spot (issue 38): 12-megapixel JPEGs with EXIF (GPS, orientation), as a phone
// sends them, a few PNGs with alpha, and 10-second 1280×720 WebM videos that the server must transcode.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';

const run = promisify(execFile);

export interface BenchImage {
  readonly path: string;
  readonly contentType: 'image/jpeg' | 'image/png';
}

/**
 * A small field of noise blown up to full size: smooth blobs that compress like a photo (1–3 MB a JPEG), not like
 * noise (which would be past the 16 MB upload limit and measure the entropy coder, not the work).
 */
async function photo(width: number, height: number, alpha: boolean): Promise<Buffer> {
  const seed = await sharp({
    create: {
      width: 200,
      height: 150,
      channels: alpha ? 4 : 3,
      background: { r: 128, g: 128, b: 128, alpha: 0.8 },
      noise: { type: 'gaussian', mean: 128, sigma: 60 },
    },
  })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return sharp(seed.data, { raw: { width: seed.info.width, height: seed.info.height, channels: seed.info.channels } })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
}

/** `jpegs` 4000×3000 JPEGs with EXIF GPS and orientation 6, then `pngs` 2000×1500 PNGs with alpha. */
export async function makeImages(dir: string, jpegs: number, pngs: number): Promise<BenchImage[]> {
  const made: BenchImage[] = [];
  for (let i = 0; i < jpegs + pngs; i++) {
    const png = i >= jpegs;
    const [width, height, channels] = png ? [2000, 1500, 4 as const] : [4000, 3000, 3 as const];
    const raw = await photo(width, height, png);
    const file = path.join(dir, `image-${i}.${png ? 'png' : 'jpg'}`);
    const img = sharp(raw, { raw: { width, height, channels } });
    if (png) await img.png().toFile(file);
    else
      await img
        .withExif({
          IFD0: { Make: 'Bench', Model: 'Phone' },
          IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2976/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 0/1' },
        })
        .withMetadata({ orientation: 6 })
        .jpeg({ quality: 90 })
        .toFile(file);
    made.push({ path: file, contentType: png ? 'image/png' : 'image/jpeg' });
  }
  return made;
}

/** A 10-second 1280×720 WebM (VP8, fast settings: making it is not what is measured) of ffmpeg's test pattern `source`. */
export async function makeVideo(dir: string, source: 'testsrc' | 'testsrc2'): Promise<string> {
  const file = path.join(dir, `${source}.webm`);
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `${source}=size=1280x720:rate=30:duration=10`,
    '-c:v',
    'libvpx',
    '-deadline',
    'realtime',
    '-cpu-used',
    '8',
    '-b:v',
    '1M',
    '-an',
    file,
  ]);
  return file;
}
