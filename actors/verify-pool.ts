// The verifier pool: Piscina worker threads for CPU-bound verification (Ed25519, JCS, hashing), sized from config,
// with a bounded queue. A full queue is an explicit PoolBusyError that the HTTP edge maps to 503 + Retry-After.
import { Piscina } from 'piscina';
import { ExitSignal, type ExitReason, type Process } from './process.js';
import type { StatementVerdict } from '../src/identity/identity-statement.js';
import type { StatementItem, StatementsResult, VerifyResult, VerifyTask } from './workers/verify.js';

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
/** Statements sent in one task at most (a full actor's worth is 10). */
const MAX_BATCH = 32;

interface Pending {
  readonly item: StatementItem;
  readonly resolve: (v: StatementVerdict) => void;
  readonly reject: (e: unknown) => void;
}

export class VerifyPool implements Process {
  readonly name = 'verify-pool';
  private readonly pool: Piscina<VerifyTask, VerifyResult | StatementsResult>;
  private readonly exit = new ExitSignal();
  private batch: Pending[] = [];
  private flushScheduled = false;

  constructor(readonly options: VerifyPoolOptions) {
    this.pool = new Piscina({
      filename: TASK_FILE,
      minThreads: options.minThreads,
      maxThreads: options.maxThreads,
      maxQueue: options.maxQueue,
      idleTimeout: options.idleTimeoutMs,
      // A busy worker is handed its next task before it finishes the current one (it runs them one after the
      // other), so it never idles waiting for the event loop to post more: +14 % batched, +34 % unbatched
      // (bench/RESULTS.md, 2026-11-25).
      concurrentTasksPerWorker: 2,
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

  async run(task: VerifyTask): Promise<VerifyResult | StatementsResult> {
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
    return this.run({ op: 'ed25519-verify', publicKey, message, signature }) as Promise<VerifyResult>;
  }

  /**
   * Verifies one identity statement. Statements asked for in the same turn of the event loop travel to a worker as
   * one task: under load a pool round trip is shared by many statements (bench/identity.ts measures the gain),
   * and a lone request waits for nothing but the end of the current turn.
   */
  verifyStatement(item: StatementItem): Promise<StatementVerdict> {
    if (!this.alive) return Promise.reject(new Error('the verification pool is stopped'));
    return new Promise((resolve, reject) => {
      this.batch.push({ item, resolve, reject });
      if (this.batch.length >= MAX_BATCH) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    this.run({ op: 'identity-statements', items: batch.map((p) => p.item) }).then(
      (result) => {
        if (!result.ok || !('verdicts' in result)) {
          // The task as a whole failed: a fault of ours, not a verdict on any statement (taken as one, it would
          // wipe a remote actor's stored statements).
          const e = new Error(`the verification task failed: ${result.ok ? 'no verdicts' : result.reason}`);
          for (const p of batch) p.reject(e);
        } else {
          for (let i = 0; i < batch.length; i++) batch[i]!.resolve(result.verdicts[i]!);
        }
      },
      (e: unknown) => {
        for (const p of batch) p.reject(e);
      },
    );
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
