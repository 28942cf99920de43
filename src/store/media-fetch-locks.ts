// One origin fetch per remote file for the whole cluster. A node's first view of a remote file (an attachment, an
// avatar or header) takes a transaction-scoped advisory lock named by the file; a view on another node meanwhile
// waits on the same lock, then finds the file kept (the caller looks again under the lock) and fetches nothing. The
// lock goes with the transaction: a node that dies mid-fetch frees it at once. Waiting is bounded (lock_timeout):
// past it, the waiter fetches on its own rather than keep a reader waiting on a stuck node. Each holder or waiter
// holds a pool connection, so a node takes part in at most `slots` such fetches at once (the rest queue here).
import { Slots } from '../../actors/slots.js';
import type { Database } from './db.js';

const LOCK_NOT_AVAILABLE = '55P03';

export class MediaFetchLocks {
  private readonly slots: Slots;

  constructor(
    private readonly db: Database,
    slots: number,
    /** The longest wait for another node's fetch of the same file. */
    private readonly waitMs: number,
  ) {
    this.slots = new Slots(slots);
  }

  /**
   * Runs `fn` holding the cluster's lock on `key` (`media:<id>`, `image:<url>`); `fn` must look for the file again
   * first, as another node may have kept it while this one waited.
   */
  async once<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const release = await this.slots.acquire();
    try {
      const locked = await this.db.tx(async (q) => {
        await q.query("SELECT set_config('lock_timeout', $1, true)", [`${this.waitMs}ms`]);
        try {
          await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`stoa-fetch:${key}`]);
        } catch (e) {
          if ((e as { code?: string }).code === LOCK_NOT_AVAILABLE) return undefined;
          throw e;
        }
        return { value: await fn() };
      });
      return locked ? locked.value : await fn();
    } finally {
      release();
    }
  }
}
