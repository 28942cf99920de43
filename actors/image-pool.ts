// The image pool: Piscina worker threads that re-encode uploaded images (sharp), built and supervised as the
// verifier pool is. Decoding a 33-megapixel photo takes a core for a second: never on the event loop. A full queue
// is a PoolBusyError (503 + Retry-After at the HTTP edge).
import { Piscina } from 'piscina';
import { ExitSignal, type ExitReason, type Process } from './process.js';
import { PoolBusyError } from './verify-pool.js';
import type { ImageReencoder, ReencodeResult, ReencodeTask } from '../src/media/reencode.js';

export interface ImagePoolOptions {
  readonly maxThreads: number;
  readonly maxQueue: number;
  readonly idleTimeoutMs: number;
}

const TASK_FILE = new URL('./workers/image.js', import.meta.url).href;

export class ImagePool implements Process, ImageReencoder {
  readonly name = 'image-pool';
  private readonly pool: Piscina<ReencodeTask, ReencodeResult>;
  private readonly exit = new ExitSignal();

  constructor(readonly options: ImagePoolOptions) {
    this.pool = new Piscina({
      filename: TASK_FILE,
      // No thread (and no libvips in memory) until the first image: most servers receive few.
      minThreads: 0,
      maxThreads: options.maxThreads,
      maxQueue: options.maxQueue,
      idleTimeout: options.idleTimeoutMs,
    });
    // A worker that dies is replaced by Piscina; the error reaches the task's caller, not the process.
    this.pool.on('error', () => undefined);
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  get queued(): number {
    return this.pool.queueSize;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  async reencode(task: ReencodeTask): Promise<ReencodeResult> {
    if (!this.alive) throw new Error('the image pool is stopped');
    if (this.pool.queueSize >= this.options.maxQueue) throw new PoolBusyError();
    try {
      return await this.pool.run(task);
    } catch (e) {
      if (e instanceof Error && /queue is at limit/i.test(e.message)) throw new PoolBusyError();
      throw e;
    }
  }

  async stop(timeoutMs: number): Promise<void> {
    if (!this.alive) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.pool.close(), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    await this.pool.destroy();
    this.exit.fire({ kind: 'shutdown' });
  }
}
