// A supervised Piscina pool: worker threads for CPU-bound work (verification, image re-encoding) with a bounded
// queue. A full queue is an explicit PoolBusyError that the HTTP edge maps to 503 + Retry-After; a worker that dies
// is replaced by Piscina and its error reaches the task's caller, not the process.
import type { ResourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { ExitSignal, type ExitReason, type Process } from './process.js';

export class PoolBusyError extends Error {
  constructor(readonly retryAfterSeconds = 1) {
    super('the worker pool queue is full');
    this.name = 'PoolBusyError';
  }
}

export interface WorkerPoolOptions {
  readonly minThreads: number;
  readonly maxThreads: number;
  readonly maxQueue: number;
  readonly idleTimeoutMs: number;
  readonly concurrentTasksPerWorker?: number;
  /** V8 heap bounds of each worker thread (a thread past them dies; its task's caller gets the error). */
  readonly resourceLimits?: ResourceLimits;
}

export class WorkerPool<Task, Result> implements Process {
  private readonly pool: Piscina<Task, Result>;
  private readonly exit = new ExitSignal();

  constructor(
    readonly name: string,
    taskFile: string,
    readonly options: WorkerPoolOptions,
  ) {
    this.pool = new Piscina({
      filename: taskFile,
      minThreads: options.minThreads,
      maxThreads: options.maxThreads,
      maxQueue: options.maxQueue,
      idleTimeout: options.idleTimeoutMs,
      ...(options.concurrentTasksPerWorker !== undefined && { concurrentTasksPerWorker: options.concurrentTasksPerWorker }),
      ...(options.resourceLimits !== undefined && { resourceLimits: options.resourceLimits }),
    });
    this.pool.on('error', () => undefined);
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  get queued(): number {
    return this.pool.queueSize;
  }

  get threads(): number {
    return this.pool.threads.length;
  }

  /** Share of the pool's capacity spent running tasks since it started (Piscina's measure, 0 to 1). */
  get utilization(): number {
    return this.pool.utilization;
  }

  /** Tasks finished since the pool started. */
  get completed(): number {
    return this.pool.completed;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  async run(task: Task): Promise<Result> {
    if (!this.alive) throw new Error(`the ${this.name} is stopped`);
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
