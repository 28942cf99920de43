// The image pool: Piscina worker threads that re-encode uploaded images (sharp), built and supervised as the
// verifier pool is. Decoding a 33-megapixel photo takes a core for a second: never on the event loop. A full queue
// is a PoolBusyError (503 + Retry-After at the HTTP edge).
import type { CardImageResult, CardImageTask } from '../src/media/image-summary.js';
import type { ImageReencoder, ReencodeResult, ReencodeTask } from '../src/media/reencode.js';
import { WorkerPool } from './worker-pool.js';

export interface ImagePoolOptions {
  readonly maxThreads: number;
  readonly maxQueue: number;
  readonly idleTimeoutMs: number;
}

const TASK_FILE = new URL('./workers/image.js', import.meta.url).href;

export class ImagePool extends WorkerPool<ReencodeTask | CardImageTask, ReencodeResult | CardImageResult> implements ImageReencoder {
  constructor(options: ImagePoolOptions) {
    // No thread (and no libvips in memory) until the first image: most servers receive few.
    super('image-pool', TASK_FILE, { ...options, minThreads: 0 });
  }

  reencode(task: ReencodeTask): Promise<ReencodeResult> {
    return this.run(task) as Promise<ReencodeResult>;
  }

  /** A link card's image made small, with its size and blurhash (media/image-summary.ts). */
  summarizeCardImage(task: Omit<CardImageTask, 'kind'>): Promise<CardImageResult> {
    return this.run({ ...task, kind: 'card-image' }) as Promise<CardImageResult>;
  }
}
