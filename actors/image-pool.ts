// The image pool: Piscina worker threads that re-encode uploaded images and make their previews, make remote
// images' previews and link cards' images (sharp), built and
// supervised as the verifier pool is. Decoding a 33-megapixel photo takes a core for a second: never on the event
// loop. A full queue is a PoolBusyError (503 + Retry-After at the HTTP edge).
//
// Memory: each thread's V8 heap is bounded (IMAGE_WORKER_LIMITS); a thread past it dies and its file is refused
// like an unreadable one, the pool starting another. libvips' pixel buffers are native memory, outside V8's heap and
// these limits: they are bounded by limitInputPixels on every decode (reencode.ts, MEDIA_LIMITS.imageMatrix) and by
// libvips streaming its pipelines, not by resourceLimits.
import type { ResourceLimits } from 'node:worker_threads';
import type { ImagePreviewer, PreviewResult, PreviewTask } from '../src/media/preview.js';
import type { CardImageResult, CardImageTask } from '../src/media/image-summary.js';
import type { ImageReencoder, ReencodeResult, ReencodeTask } from '../src/media/reencode.js';
import { WorkerPool } from './worker-pool.js';

export interface ImagePoolOptions {
  readonly maxThreads: number;
  readonly maxQueue: number;
  readonly idleTimeoutMs: number;
}

/** What a worker's JavaScript holds is small (task paths, a 32×32 blurhash's pixels): generous bounds still far below a runaway. */
export const IMAGE_WORKER_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

const TASK_FILE = new URL('./workers/image.js', import.meta.url).href;

export class ImagePool
  extends WorkerPool<ReencodeTask | PreviewTask | CardImageTask, ReencodeResult | PreviewResult | CardImageResult>
  implements ImageReencoder, ImagePreviewer
{
  constructor(options: ImagePoolOptions) {
    // No thread (and no libvips in memory) until the first image: most servers receive few.
    super('image-pool', TASK_FILE, { ...options, minThreads: 0, resourceLimits: IMAGE_WORKER_LIMITS });
  }

  reencode(task: ReencodeTask): Promise<ReencodeResult> {
    return this.guarded(task) as Promise<ReencodeResult>;
  }

  /** A link card's image made small, with its size and blurhash (media/image-summary.ts). */
  summarizeCardImage(task: Omit<CardImageTask, 'kind'>): Promise<CardImageResult> {
    return this.guarded({ ...task, kind: 'card-image' }) as Promise<CardImageResult>;
  }

  preview(task: PreviewTask): Promise<PreviewResult> {
    return this.guarded(task) as Promise<PreviewResult>;
  }

  private async guarded(task: ReencodeTask | PreviewTask | CardImageTask): Promise<ReencodeResult | PreviewResult | CardImageResult> {
    try {
      return await this.run(task);
    } catch (e) {
      // The thread died over this file (past its heap bounds): the file is refused, not the request failed.
      if ((e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') return { ok: false, reason: 'unreadable' };
      throw e;
    }
  }
}
