// The rendered-status cache (issue 19): per node, the part of each status's JSON that is the same for every reader
// (its author's Account without counts, attachments, mentions, tags, application, URIs), so that a page of cached
// statuses costs no author, attachment or application query and no rendering of them. Counts, polls, reactions and
// the viewer's flags are never cached: StatusViews reads them for every page and merges them in.
//
// Never stale, by three rules:
// - An entry is used only for the very row it was rendered from: the caller's row (read for this request) is
//   compared with the entry's (an edit changes it), or the row version it read (its xmin, store/status-refs.ts) with
//   the entry's, and deleted rows never reach the cache (callers drop them).
// - Every node drops entries when PostgreSQL tells it (CACHE_CHANNEL, migration 048's triggers, sent at commit):
//   a status's row or attachments changed (`s:<id>`), or an account it shows, its author or a mention (`a:<id>`).
//   A member's own profile edit is published with acknowledgements (AuthEventListener.publish), which every node
//   sends after the trigger's notification of the same transaction: the edit is everywhere when it is answered.
// - A render that raced an invalidation is not stored: each render takes a ticket (the invalidation count when it
//   began reading) and an entry is stored only if neither its status nor one of its accounts was dropped since.
//   While the listening connection is down a notification could be missed, so the cache is emptied and bypassed
//   until it is back (reset).
import type { AccountEntity } from '../entities/account.js';
import type { StatusParts } from '../entities/status.js';
import type { Account } from '../store/accounts.js';
import type { Status } from '../store/statuses.js';
import { ByteLru } from './byte-lru.js';
import { RenderTickets } from './render-tickets.js';

export interface CachedStatus {
  /** The row rendered. */
  readonly row: Status;
  readonly author: Account;
  /** The author as an Account entity, without counts (entities/account.ts withAccountCounts adds them). */
  readonly account: AccountEntity;
  readonly parts: StatusParts;
  /** Whether it has a poll (read for every page: votes change it). */
  readonly hasPoll: boolean;
}

interface Slot {
  readonly value: CachedStatus;
  readonly accounts: readonly string[];
}

export class StatusCache {
  private readonly slots: ByteLru<string, Slot>;
  /** Status ids by the accounts they show (author and mentions), for `a:<id>`. */
  private readonly byAccount = new Map<string, Set<string>>();
  private trusted = false;
  /** Keys `s:<id>` and `a:<id>`. */
  private readonly tickets = new RenderTickets();

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {
    this.slots = new ByteLru(maxEntries, maxBytes, (id, slot) => this.unindex(id, slot.accounts));
  }

  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The entry rendered from exactly this row, if any (and marks it recently used). */
  get(row: Status): CachedStatus | undefined {
    return this.take(row.id, (kept) => sameRow(kept, row));
  }

  /**
   * The entry rendered from row version `version` of status `id` (store/status-refs.ts), if any (and marks it
   * recently used): the same rule as get, for a page that named its statuses without reading their rows.
   */
  byVersion(id: string, version: string | null): CachedStatus | undefined {
    return version === null ? undefined : this.take(id, (kept) => kept.version === version);
  }

  /** Status `id`'s entry if `same` says its row is the one in hand (else it is dropped), marked recently used. */
  private take(id: string, same: (kept: Status) => boolean): CachedStatus | undefined {
    if (!this.trusted) return undefined;
    const slot = this.slots.get(id);
    if (!slot) return undefined;
    if (!same(slot.value.row)) {
      this.slots.delete(id);
      return undefined;
    }
    return slot.value;
  }

  /** Begins a render: call before reading what it renders, and end() once done, whatever happened. */
  begin(): number {
    return this.tickets.begin();
  }

  end(): void {
    this.tickets.end();
  }

  /** Keeps an entry rendered under this ticket, unless something it shows was dropped since the ticket was taken. */
  put(ticket: number, value: CachedStatus): void {
    if (!this.trusted || !this.enabled) return;
    const id = value.row.id;
    const accounts = [...new Set([value.author.id, ...value.row.mentionIds])];
    if (!this.tickets.mayStore(ticket, [`s:${id}`, ...accounts.map((a) => `a:${a}`)])) return;
    const bytes = estimateBytes(value);
    if (bytes > this.maxBytes) return;
    this.slots.delete(id);
    for (const a of accounts) {
      let set = this.byAccount.get(a);
      if (!set) this.byAccount.set(a, (set = new Set()));
      set.add(id);
    }
    this.slots.set(id, { value, accounts }, bytes);
  }

  /** A status's row or attachments changed. */
  dropStatus(id: string): void {
    this.tickets.drop(`s:${id}`);
    this.slots.delete(id);
  }

  /** An account changed: every status showing it (as author or mention) goes. */
  dropAccount(id: string): void {
    this.tickets.drop(`a:${id}`);
    const set = this.byAccount.get(id);
    if (!set) return;
    for (const s of [...set]) this.slots.delete(s);
  }

  /** The change stream is (re)connected or broken: empty either way, and bypassed until connected. */
  reset(connected: boolean): void {
    this.tickets.reset();
    this.slots.clear();
    this.byAccount.clear();
    this.trusted = connected && this.enabled;
  }

  /** A status left the cache: the accounts it shows no longer name it. */
  private unindex(id: string, accounts: readonly string[]): void {
    for (const a of accounts) {
      const set = this.byAccount.get(a);
      set?.delete(id);
      if (set?.size === 0) this.byAccount.delete(a);
    }
  }
}

/** Whether the row in hand is the one rendered: every column the parts are made of. */
function sameRow(a: Status, b: Status): boolean {
  return (
    a.editedAt?.getTime() === b.editedAt?.getTime() &&
    a.accountId === b.accountId &&
    a.sensitive === b.sensitive &&
    a.uri === b.uri &&
    a.url === b.url &&
    a.local === b.local &&
    a.applicationId === b.applicationId &&
    a.visibility === b.visibility &&
    a.mentionIds.join() === b.mentionIds.join() &&
    a.tags.join('\n') === b.tags.join('\n') &&
    a.createdAt.getTime() === b.createdAt.getTime()
  );
}

/** Roughly what an entry holds, in UTF-16 bytes of its JSON (an estimate: shared objects are counted each time). */
function estimateBytes(v: CachedStatus): number {
  return 2 * (JSON.stringify(v.parts).length + JSON.stringify(v.account).length) + 2 * (v.row.content.length + v.row.text.length) + 512;
}
