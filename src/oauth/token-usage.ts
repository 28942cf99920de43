// last_used_at without a write per request: a token's use is noted at most once a minute and flushed in one
// statement every few seconds (and on stop). A supervised process, so shutdown flushes in order.
import { ExitSignal, type ExitReason, type Process } from '../../actors/process.js';
import type { Logger } from '../log.js';
import type { TokenStore } from '../store/oauth-tokens.js';
import type { CachedToken } from './token-cache.js';

const RESOLUTION_MS = 60_000;
const FLUSH_EVERY_MS = 5_000;
const MAX_PENDING = 50_000;

export class TokenUsage implements Process {
  readonly name = 'token-usage';
  private pending = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private readonly exit = new ExitSignal();
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly tokens: TokenStore,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  note(t: CachedToken, now: number): void {
    if (now - t.usedAt < RESOLUTION_MS) return;
    t.usedAt = now;
    if (this.pending.size < MAX_PENDING) this.pending.set(t.record.tokenId, now);
  }

  flush(): Promise<void> {
    if (this.flushing || this.pending.size === 0) return this.flushing ?? Promise.resolve();
    const batch = this.pending;
    this.pending = new Map();
    const times = [...batch.values()].map((ms) => new Date(ms));
    this.flushing = this.tokens
      .recordUse([...batch.keys()], times)
      .catch((err: unknown) => this.log.warn({ err, tokens: batch.size }, 'could not record token use'))
      .finally(() => (this.flushing = null));
    return this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
    this.exit.fire({ kind: 'shutdown' });
  }
}
