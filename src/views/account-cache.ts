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
import { ByteLru } from './byte-lru.js';
import { RenderTickets } from './render-tickets.js';

export interface CachedAccount {
  readonly row: Account;
  /** Without counts; frozen (shared by every request that shows it). */
  readonly entity: AccountEntity;
  /** The entity's JSON around its counts (made when a page first writes it as text). */
  json?: AccountJson;
}

export class AccountCache {
  private readonly slots: ByteLru<string, CachedAccount>;
  private trusted = false;
  private readonly tickets = new RenderTickets();

  constructor(
    private readonly maxEntries: number,
    maxBytes: number,
  ) {
    this.slots = new ByteLru(maxEntries, maxBytes);
  }

  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The account's entry, if kept (and marks it recently used). */
  get(id: string): CachedAccount | undefined {
    if (!this.trusted) return undefined;
    return this.slots.get(id);
  }

  /** Begins a render: call before reading what it renders, and end() once done, whatever happened. */
  begin(): number {
    return this.tickets.begin();
  }

  end(): void {
    this.tickets.end();
  }

  /** Keeps an entry rendered under this ticket, unless its account was dropped since the ticket was taken. */
  put(ticket: number, value: CachedAccount): void {
    const id = value.row.id;
    if (!this.trusted || !this.enabled || !this.tickets.mayStore(ticket, [id])) return;
    const bytes = 2 * JSON.stringify(value.entity).length + 1024; // the row besides: keys, inboxes
    this.slots.set(id, value, bytes);
  }

  /** An account changed. */
  drop(id: string): void {
    this.tickets.drop(id);
    this.slots.delete(id);
  }

  /** The change stream is (re)connected or broken: empty either way, and bypassed until connected. */
  reset(connected: boolean): void {
    this.tickets.reset();
    this.slots.clear();
    this.trusted = connected && this.enabled;
  }
}
