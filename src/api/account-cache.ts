// The rendered-account cache (issue 19): per node, each account's Account entity without counts (and the row it was
// rendered from), so that a page naming accounts it already holds (a grouped notifications page names ~200) reads
// neither their rows nor renders them again: the render bundle skips them and only their counts (account_counts)
// are read per page and merged in (entities/account.ts withAccountCounts).
//
// Never stale, by the same rules as the rendered-status cache (status-cache.ts):
// - Every node drops an account when PostgreSQL tells it (`a:<id>` on CACHE_CHANNEL, migration 048's trigger, sent at
//   commit): any change of a column the entity shows (profile, avatar, header, fields, remote counts) or of its
//   moderation state (deleted, suspended, silenced, sensitized). Other columns of the kept row (keys, inboxes, fetch
//   times) may be older than the table's: callers use the row for the entity and `deletedAt` only.
// - A render that raced an invalidation is not stored: a render takes a ticket before it reads, and an entry is
//   stored only if its account was not dropped since. While the listening connection is down the cache is emptied
//   and bypassed (reset).
import type { AccountEntity, AccountJson } from '../entities/account.js';
import type { Account } from '../store/accounts.js';

export interface CachedAccount {
  readonly row: Account;
  /** Without counts; frozen (shared by every request that shows it). */
  readonly entity: AccountEntity;
  /** The entity's JSON around its counts (made when a page first writes it as text). */
  json?: AccountJson;
}

interface Slot {
  readonly value: CachedAccount;
  readonly bytes: number;
}

/** Past this many remembered invalidations, renders in flight may not store at all (rather than remember more). */
const MAX_REMEMBERED = 10_000;

export class AccountCache {
  private readonly slots = new Map<string, Slot>(); // in least-recently-used order
  private bytes = 0;
  private trusted = false;
  /** Invalidations so far; a render's ticket is this number when it began. */
  private gen = 0;
  /** Accounts dropped while renders were in flight, with the count at their drop. */
  private readonly dropped = new Map<string, number>();
  /** Renders with a ticket below this may not store (what they raced was forgotten). */
  private floor = 0;
  private inFlight = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The account's entry, if kept (and marks it recently used). */
  get(id: string): CachedAccount | undefined {
    if (!this.trusted) return undefined;
    const slot = this.slots.get(id);
    if (!slot) return undefined;
    this.slots.delete(id);
    this.slots.set(id, slot);
    return slot.value;
  }

  /** Begins a render: call before reading what it renders, and end() once done, whatever happened. */
  begin(): number {
    this.inFlight++;
    return this.gen;
  }

  end(): void {
    if (--this.inFlight === 0) this.dropped.clear();
  }

  /** Keeps an entry rendered under this ticket, unless its account was dropped since the ticket was taken. */
  put(ticket: number, value: CachedAccount): void {
    if (!this.trusted || !this.enabled || ticket < this.floor) return;
    const id = value.row.id;
    const at = this.dropped.get(id);
    if (at !== undefined && at > ticket) return;
    const bytes = 2 * JSON.stringify(value.entity).length + 1024; // the row besides: keys, inboxes
    this.remove(id);
    this.slots.set(id, { value, bytes });
    this.bytes += bytes;
    while (this.slots.size > this.maxEntries || this.bytes > this.maxBytes) {
      const oldest = this.slots.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest);
    }
  }

  /** An account changed. */
  drop(id: string): void {
    this.gen++;
    this.remove(id);
    if (this.inFlight === 0) return;
    if (this.dropped.size >= MAX_REMEMBERED) {
      this.dropped.clear();
      this.floor = this.gen;
      return;
    }
    this.dropped.set(id, this.gen);
  }

  /** The change stream is (re)connected or broken: empty either way, and bypassed until connected. */
  reset(connected: boolean): void {
    this.floor = ++this.gen;
    this.dropped.clear();
    this.slots.clear();
    this.bytes = 0;
    this.trusted = connected && this.enabled;
  }

  private remove(id: string): void {
    const slot = this.slots.get(id);
    if (!slot) return;
    this.slots.delete(id);
    this.bytes -= slot.bytes;
  }
}
