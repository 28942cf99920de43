// The least-recently-used map both render caches (status-cache.ts, account-cache.ts) keep their entries in, bounded
// twice: by how many entries it holds and by the bytes they are said to take (the caller's estimate, given with each
// entry). Whatever else a cache keeps about an entry (the status cache's index by account) it forgets in onRemove,
// called for every entry that leaves but by clear().

export class ByteLru<K, V> {
  private readonly slots = new Map<K, { readonly value: V; readonly bytes: number }>(); // in least-recently-used order
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
    private readonly onRemove?: (key: K, value: V) => void,
  ) {}

  get size(): number {
    return this.slots.size;
  }

  /** The entry, if kept (and marks it recently used). */
  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.value;
  }

  /** Keeps an entry (in place of the key's old one) as the most recently used, then drops the least recently used until both bounds hold. */
  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    this.slots.set(key, { value, bytes });
    this.total += bytes;
    while (this.slots.size > this.maxEntries || this.total > this.maxBytes) {
      const oldest = this.slots.keys().next().value;
      if (oldest === undefined) break;
      this.delete(oldest);
    }
  }

  delete(key: K): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.total -= slot.bytes;
    this.onRemove?.(key, slot.value);
  }

  /** Empties the map without calling onRemove (the cache clears what it keeps besides itself). */
  clear(): void {
    this.slots.clear();
    this.total = 0;
  }
}
