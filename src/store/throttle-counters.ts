// Fixed-window attempt counters shared by every node (migration 047): one row per key, its window started by the
// key's first attempt and ended at `expires_at`. One upsert counts an attempt and answers the count, so two nodes
// allow together what one allows. The database's clock decides every window, whichever node asks.
import { createHash } from 'node:crypto';
import type { Database } from './db.js';

export interface WindowCount {
  /** Attempts counted in the key's current window (0 when it has none). */
  readonly n: number;
  /** Seconds until the window ends (at least 1 while it runs). */
  readonly secondsLeft: number;
}

/** Expired rows are deleted at most this often per node, by whichever attempt comes first after it. */
const SWEEP_EVERY_MS = 60_000;
/** Longer keys (a login typed by anyone) are stored as their hash, so a row stays small. */
const MAX_KEY_CHARS = 200;

function stored(key: string): string {
  return key.length <= MAX_KEY_CHARS ? key : `sha256:${createHash('sha256').update(key).digest('base64url')}`;
}

export class ThrottleCounterStore {
  private lastSweep = 0;

  constructor(private readonly db: Database) {}

  /** Counts one attempt for `key`, opening a window of `windowMs` if none runs. */
  async hit(key: string, windowMs: number): Promise<WindowCount> {
    await this.sweepSometimes();
    // In SET every expression reads the row as it was, so both CASEs see the same (possibly expired) window.
    const r = await this.db.one<{ n: number; left: number }>(
      `INSERT INTO throttle_counters AS t (key, expires_at, n) VALUES ($1, now() + $2 * interval '1 millisecond', 1)
       ON CONFLICT (key) DO UPDATE SET
         n = CASE WHEN t.expires_at <= now() THEN 1 ELSE least(t.n, 1000000000) + 1 END,
         expires_at = CASE WHEN t.expires_at <= now() THEN excluded.expires_at ELSE t.expires_at END
       RETURNING n, ceil(extract(epoch FROM expires_at - now()))::int AS left`,
      [stored(key), windowMs],
    );
    return { n: r!.n, secondsLeft: Math.max(1, r!.left) };
  }

  /** The key's current window, without counting an attempt. */
  async peek(key: string): Promise<WindowCount> {
    const r = await this.db.one<{ n: number; left: number }>(
      'SELECT n, ceil(extract(epoch FROM expires_at - now()))::int AS left FROM throttle_counters WHERE key = $1 AND expires_at > now()',
      [stored(key)],
    );
    return r ? { n: r.n, secondsLeft: Math.max(1, r.left) } : { n: 0, secondsLeft: 0 };
  }

  private async sweepSometimes(): Promise<void> {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    await this.db.exec('DELETE FROM throttle_counters WHERE expires_at <= now()');
  }
}
