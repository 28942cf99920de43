// `npm run bench -- --media` (and the full bench): issue 38's two figures on files made here (bench/media-fixtures.ts):
// the image pool's throughput over one thread's (bench/media-pool.ts, goal ≥ 0.8 × cores) and the server's event-loop
// lag p99 while 20 uploads and 2 transcodes run (bench/media-lag.ts, goal < 10 ms).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BenchDatabase } from './database.js';
import { makeImages, makeVideo } from './media-fixtures.js';
import { measureUploadLag, type UploadLag } from './media-lag.js';
import { measurePoolRatio, type PoolRatio } from './media-pool.js';
import { loadavg } from './machine.js';

export interface MediaFigures {
  readonly pool: PoolRatio;
  readonly lag: UploadLag;
  readonly load: { readonly start: string; readonly end: string };
}

const IMAGES = { jpegs: 36, pngs: 4 };
const UPLOADS = 20;

export async function measureMedia(db: BenchDatabase, log: (line: string) => void): Promise<MediaFigures> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-bench-media-'));
  try {
    const start = loadavg();
    log(`bench: media: making ${IMAGES.jpegs} 12-megapixel JPEGs, ${IMAGES.pngs} PNGs and 2 WebM videos`);
    const [images, ...videos] = await Promise.all([makeImages(dir, IMAGES.jpegs, IMAGES.pngs), makeVideo(dir, 'testsrc'), makeVideo(dir, 'testsrc2')]);
    log(`bench: media: ${images.length} images on one thread, then through the image pool`);
    const pool = await measurePoolRatio(images, path.join(dir, 'out'));
    log(`bench: media: ${UPLOADS} uploads and ${videos.length} transcodes against Stoa`);
    const lag = await measureUploadLag(db, images.filter((i) => i.contentType === 'image/jpeg').slice(0, UPLOADS), videos);
    return { pool, lag, load: { start, end: loadavg() } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function mediaTable(f: MediaFigures): string {
  const { pool: p, lag: l } = f;
  const yes = (met: boolean) => (met ? 'met' : 'NOT met');
  return [
    `Media (issue 38), load average ${f.load.start} at the start, ${f.load.end} at the end`,
    `images a second, one thread (sharp.concurrency(1)):  ${p.singlePerSec.toFixed(2)}  (${p.images} images: re-encode + preview + blurhash)`,
    `images a second, image pool (${p.threads} threads, all at once): ${p.poolPerSec.toFixed(2)}`,
    `pool ÷ one thread: ${p.ratio.toFixed(2)}  (goal ≥ 0.8 × ${p.threads} cores = ${p.goal.toFixed(1)}: ${yes(p.ratio >= p.goal)})`,
    `${l.uploads} 12-MP JPEG uploads answered in ${l.uploadsSec.toFixed(1)} s; ${l.transcodes} 10 s 720p WebM transcodes done in ${l.transcodesSec.toFixed(1)} s`,
    `Stoa's event-loop lag over that window (beyond the 10 ms sampling interval): p50 ${l.lagP50Ms.toFixed(1)} ms, p99 ${l.lagP99Ms.toFixed(1)} ms, ` +
      `max ${l.lagMaxMs.toFixed(1)} ms  (goal p99 < 10 ms: ${yes(l.lagP99Ms < 10)}); idle 5 s before it: p99 ${l.idleP99Ms.toFixed(1)} ms`,
  ].join('\n');
}
