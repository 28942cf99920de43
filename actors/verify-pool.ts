// The verifier pool: Piscina worker threads for CPU-bound verification (Ed25519, JCS, hashing), sized from config,
// with a bounded queue. A full queue is an explicit PoolBusyError that the HTTP edge maps to 503 + Retry-After.
import type { StatementVerdict } from '../src/identity/identity-statement.js';
import type { StatementItem, StatementsResult, VerifyResult, VerifyTask } from './workers/verify.js';
import { WorkerPool } from './worker-pool.js';

export interface VerifyPoolOptions {
  readonly minThreads: number;
  readonly maxThreads: number;
  readonly maxQueue: number;
  readonly idleTimeoutMs: number;
}

const TASK_FILE = new URL('./workers/verify.js', import.meta.url).href;
/** Statements sent in one task at most (a full actor's worth is 10). */
const MAX_BATCH = 32;

interface Pending {
  readonly item: StatementItem;
  readonly resolve: (v: StatementVerdict) => void;
  readonly reject: (e: unknown) => void;
}

export class VerifyPool extends WorkerPool<VerifyTask, VerifyResult | StatementsResult> {
  private batch: Pending[] = [];
  private flushScheduled = false;

  constructor(options: VerifyPoolOptions) {
    super('verify-pool', TASK_FILE, {
      ...options,
      // A busy worker is handed its next task before it finishes the current one (it runs them one after the
      // other), so it never idles waiting for the event loop to post more: +14 % batched, +34 % unbatched
      // (bench/RESULTS.md, 2026-11-25).
      concurrentTasksPerWorker: 2,
    });
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
}
