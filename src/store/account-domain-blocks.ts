// A member's own domain blocks (Mastodon's AccountDomainBlock): the domains whose accounts the member no longer
// sees (store/visibility.ts silencedBy reads this table), nor follows, nor is followed by. The operator's federation
// policy is another thing: store/domain-blocks.ts.
import type { Database } from './db.js';
import { blockDomain } from './domain-blocks.js';
import { pageSql, type PageQuery } from './paging.js';

// Mastodon's DomainValidator: each label 1–63 letters, digits or hyphens, the whole under 256 characters.
const LABEL = /^[a-z0-9-]{1,63}$/;

/**
 * A domain as a member blocks it, normalised as Mastodon's DomainNormalizable does (lowercase, IDN as punycode, no
 * trailing dot) and valid as its DomainValidator wants: null for anything else (`*.example.com` included), '' for a
 * blank one. A port is kept (accounts of a server on a port have it in their domain).
 */
export function memberBlockDomain(input: string): string | null {
  const host = blockDomain(input);
  if (!host) return host;
  const name = host.replace(/:\d{1,5}$/, '');
  return name.length < 256 && name.split('.').every((l) => LABEL.test(l)) ? host : null;
}

/** The accounts of a domain the member is linked to, for the block's clean-up (AfterBlockDomainFromAccountService). */
export interface DomainRelations {
  /** Accounts of the domain the member follows or asked to follow. */
  readonly following: readonly string[];
  /** Accounts of the domain that follow the member. */
  readonly followers: readonly string[];
  /** Accounts of the domain whose follow requests to the member wait. */
  readonly requesters: readonly string[];
}

export class AccountDomainBlockStore {
  constructor(private readonly db: Database) {}

  /** The member's blocks, newest first, as [row id, domain] (paged by the hidden row id, as Mastodon does). */
  async page(accountId: string, page: PageQuery): Promise<[string, string][]> {
    const values: unknown[] = [accountId];
    const p = pageSql(page, 'id', values);
    const rows = await this.db.rows<{ id: string; domain: string }>(
      `SELECT id::text AS id, domain FROM account_domain_blocks WHERE account_id = $1${p.where}${p.orderLimit}`,
      values,
    );
    return p.newestFirst(rows).map((r) => [r.id, r.domain]);
  }

  /**
   * Blocks the domain (again: nothing changes) and forgets the member's notifications from its accounts, as
   * Mastodon's clean-up does; true when the block is new.
   */
  async block(accountId: string, domain: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      const added = await q.query(
        'INSERT INTO account_domain_blocks (account_id, domain) VALUES ($1, $2) ON CONFLICT (account_id, domain) DO NOTHING RETURNING id',
        [accountId, domain],
      );
      await q.query(
        `DELETE FROM notifications n WHERE n.account_id = $1
           AND n.from_account_id IN (SELECT a.id FROM accounts a WHERE lower(a.domain) = $2)`,
        [accountId, domain],
      );
      return (added.rowCount ?? 0) > 0;
    });
  }

  async unblock(accountId: string, domain: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM account_domain_blocks WHERE account_id = $1 AND domain = $2', [accountId, domain])) > 0;
  }

  /** Whether the member blocks this domain (null: a local account, never blocked so). */
  async blocks(accountId: string, domain: string | null): Promise<boolean> {
    if (domain === null) return false;
    return !!(await this.db.one('SELECT 1 FROM account_domain_blocks WHERE account_id = $1 AND domain = lower($2)', [accountId, domain]));
  }

  /** How many of the domain's accounts the member follows and is followed by (what blocking it would end). */
  async preview(accountId: string, domain: string): Promise<{ following: number; followers: number }> {
    const r = await this.db.one<{ following: number; followers: number }>(
      `SELECT (SELECT count(*)::int FROM follows f JOIN accounts a ON a.id = f.target_account_id WHERE f.account_id = $1 AND lower(a.domain) = $2) AS following,
         (SELECT count(*)::int FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = $1 AND lower(a.domain) = $2) AS followers`,
      [accountId, domain],
    );
    return r ?? { following: 0, followers: 0 };
  }

  /** Who of the domain the member follows, is followed by or is asked by. */
  async relations(accountId: string, domain: string): Promise<DomainRelations> {
    const rows = await this.db.rows<{ k: string; id: string }>(
      `SELECT 'following' AS k, f.target_account_id::text AS id FROM follows f JOIN accounts a ON a.id = f.target_account_id
         WHERE f.account_id = $1 AND lower(a.domain) = $2
       UNION ALL SELECT 'following', f.target_account_id::text FROM follow_requests f JOIN accounts a ON a.id = f.target_account_id
         WHERE f.account_id = $1 AND lower(a.domain) = $2
       UNION ALL SELECT 'followers', f.account_id::text FROM follows f JOIN accounts a ON a.id = f.account_id
         WHERE f.target_account_id = $1 AND lower(a.domain) = $2
       UNION ALL SELECT 'requesters', f.account_id::text FROM follow_requests f JOIN accounts a ON a.id = f.account_id
         WHERE f.target_account_id = $1 AND lower(a.domain) = $2`,
      [accountId, domain],
    );
    const of = (k: string) => [...new Set(rows.filter((r) => r.k === k).map((r) => r.id))];
    return { following: of('following'), followers: of('followers'), requesters: of('requesters') };
  }
}
