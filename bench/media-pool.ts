// Issue 38's first figure: images a second through the real image pool (actors/image-pool.ts, one thread a core)
// over images a second on one thread, the same work (src/media/reencode.ts: re-encode without metadata, the small
// preview, its blurhash, exactly what an upload asks of the pool) on the same files in the same run.
import { mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { ImagePool } from '../actors/image-pool.js';
import { MEDIA_LIMITS } from '../src/media/limits.js';
import { reencodeImage, type ReencodeTask } from '../src/media/reencode.js';
import type { BenchImage } from './media-fixtures.js';

export interface PoolRatio {
  readonly images: number;
  readonly threads: number;
  readonly singlePerSec: number;
  readonly poolPerSec: number;
  /** poolPerSec / singlePerSec; the goal is ≥ 0.8 × cores. */
  readonly ratio: number;
  readonly goal: number;
}

function task(img: BenchImage, out: string, i: number): ReencodeTask {
  return {
    input: img.path,
    output: path.join(out, `out-${i}`),
    preview: path.join(out, `preview-${i}`),
    contentType: img.contentType,
    maxPixels: MEDIA_LIMITS.imageMatrix,
  };
}

function ok(r: Awaited<ReturnType<typeof reencodeImage>>, img: BenchImage): void {
  if (!r.ok || !r.preview?.blurhash) throw new Error(`${img.path}: not re-encoded with a preview (${JSON.stringify(r)})`);
}

export async function measurePoolRatio(images: readonly BenchImage[], out: string): Promise<PoolRatio> {
  const threads = os.availableParallelism();
  await mkdir(out, { recursive: true });
  // (a) this thread, one image at a time, libvips held to one thread as in the pool's workers (actors/workers/image.ts).
  const concurrency = sharp.concurrency();
  sharp.concurrency(1);
  sharp.cache(false);
  ok(await reencodeImage(task(images[0]!, out, -1)), images[0]!); // warm-up, not counted
  let t0 = performance.now();
  for (const [i, img] of images.entries()) ok(await reencodeImage(task(img, out, i)), img);
  const singleSec = (performance.now() - t0) / 1000;
  sharp.concurrency(concurrency);
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });

  // (b) the pool, every image submitted at once; its threads started (one warm-up each) before the clock.
  const pool = new ImagePool({ maxThreads: threads, maxQueue: images.length + threads, idleTimeoutMs: 60_000 });
  try {
    await Promise.all(Array.from({ length: threads }, async (_, k) => ok(await pool.reencode(task(images[k % images.length]!, out, -1 - k)), images[0]!)));
    t0 = performance.now();
    await Promise.all(images.map(async (img, i) => ok(await pool.reencode(task(img, out, i)), img)));
    const poolSec = (performance.now() - t0) / 1000;
    const singlePerSec = images.length / singleSec;
    const poolPerSec = images.length / poolSec;
    return { images: images.length, threads, singlePerSec, poolPerSec, ratio: poolPerSec / singlePerSec, goal: 0.8 * threads };
  } finally {
    await pool.stop(10_000);
    await rm(out, { recursive: true, force: true });
  }
}
