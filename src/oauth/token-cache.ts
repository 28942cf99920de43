// Live tokens by their value (in memory only; the database keeps hashes), so an authenticated request costs one Map
// lookup. Invalidation is explicit (AuthEventListener: token revoked, grant revoked, user changed) with a short TTL
// as a second line; while the event stream is down the cache is not trusted at all. A generation counter stops a
// lookup that raced an invalidation from re-inserting what was just dropped. Unknown tokens are remembered too,
// briefly: tokens are random and issued by us, so a value that is not a live token now never becomes one, and a
// flood of bad tokens must not reach the database once per request.
import type { TokenRecord } from '../store/oauth-tokens.js';

export class CachedToken {
  /** Set by the first use after the last recorded one; see TokenUsage. */
  usedAt = 0;
  /** Serialised entities derived from this token's member, dropped with the entry. */
  credentialAccountJson: string | undefined;
  constructor(
    readonly key: string,
    readonly record: TokenRecord,
    readonly expiresAt: number,
  ) {}
}

export class TokenCache {
  private readonly entries = new Map<string, CachedToken>();
  private readonly keyByTokenId = new Map<string, string>();
  private readonly unknown = new Map<string, number>();
  private gen = 0;
  private trusted = false;

  constructor(
    private readonly maxEntries = 20_000,
    private readonly ttlMs = 5 * 60_000,
    private readonly maxUnknown = 10_000,
    private readonly unknownTtlMs = 60_000,
  ) {}

  /** Was this key looked up recently and found to be no live token? */
  knownInvalid(key: string, now: number): boolean {
    const until = this.unknown.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.unknown.delete(key);
    return false;
  }

  rememberInvalid(key: string, now: number): void {
    if (this.unknown.size >= this.maxUnknown) {
      const oldest = this.unknown.keys().next().value;
      if (oldest !== undefined) this.unknown.delete(oldest);
    }
    this.unknown.set(key, now + this.unknownTtlMs);
  }

  get generation(): number {
    return this.gen;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string, now: number): CachedToken | undefined {
    if (!this.trusted) return undefined;
    const e = this.entries.get(key);
    if (e && e.expiresAt <= now) {
      this.remove(e);
      return undefined;
    }
    return e;
  }

  /** Caches a looked-up token unless anything was invalidated since the lookup began (generation moved). */
  put(key: string, record: TokenRecord, lookupGeneration: number, now: number): CachedToken {
    const entry = new CachedToken(key, record, now + this.ttlMs);
    if (!this.trusted || lookupGeneration !== this.gen) return entry;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.values().next().value;
      if (oldest) this.remove(oldest);
    }
    this.entries.set(key, entry);
    this.keyByTokenId.set(record.tokenId, key);
    return entry;
  }

  dropToken(tokenId: string): void {
    this.gen++;
    const key = this.keyByTokenId.get(tokenId);
    const e = key === undefined ? undefined : this.entries.get(key);
    if (e) this.remove(e);
  }

  dropGrant(userId: string, appId: string): void {
    this.gen++;
    for (const e of this.entries.values()) if (e.record.appId === appId && e.record.user?.userId === userId) this.remove(e);
  }

  dropUser(userId: string): void {
    this.gen++;
    for (const e of this.entries.values()) if (e.record.user?.userId === userId) this.remove(e);
  }

  /** The members of these accounts changed on this node (their counts, say): drop what is cached of them. */
  dropAccounts(accountIds: readonly string[]): void {
    this.gen++;
    for (const e of this.entries.values()) if (e.record.user && accountIds.includes(e.record.user.accountId)) this.remove(e);
  }

  /** Called when the event stream breaks (trusted = false) or comes back (trusted = true); both start empty. */
  reset(trusted: boolean): void {
    this.gen++;
    this.entries.clear();
    this.keyByTokenId.clear();
    this.trusted = trusted;
  }

  private remove(e: CachedToken): void {
    this.entries.delete(e.key);
    this.keyByTokenId.delete(e.record.tokenId);
  }
}
