// The verifier pool: Piscina worker threads for CPU-bound verification (Ed25519, JCS, hashing), sized from config,
// with a bounded queue. A full queue is an explicit PoolBusyError that the HTTP edge maps to 503 + Retry-After.
import { Piscina } from 'piscina';
import { ExitSignal, type ExitReason, type Process } from './process.js';
import type { VerifyResult, VerifyTask } from './workers/verify.js';

export interface VerifyPoolOptions {
  readonly minThreads: number;
  readonly maxThreads: number;
  readonly maxQueue: number;
  readonly idleTimeoutMs: number;
}

export class PoolBusyError extends Error {
  constructor(readonly retryAfterSeconds = 1) {
    super('the verification pool queue is full');
    this.name = 'PoolBusyError';
  }
}

const TASK_FILE = new URL('./workers/verify.js', import.meta.url).href;

export class VerifyPool implements Process {
  readonly name = 'verify-pool';
  private readonly pool: Piscina<VerifyTask, VerifyResult>;
  private readonly exit = new ExitSignal();

  constructor(readonly options: VerifyPoolOptions) {
    this.pool = new Piscina({
      filename: TASK_FILE,
      minThreads: options.minThreads,
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

  get threads(): number {
    return this.pool.threads.length;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  async run(task: VerifyTask): Promise<VerifyResult> {
    if (!this.alive) throw new Error('the verification pool is stopped');
    if (this.pool.queueSize >= this.options.maxQueue) throw new PoolBusyError();
    try {
      return await this.pool.run(task);
    } catch (e) {
      if (e instanceof Error && /queue is at limit/i.test(e.message)) throw new PoolBusyError();
      throw e;
    }
  }

  verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<VerifyResult> {
    return this.run({ op: 'ed25519-verify', publicKey, message, signature });
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
