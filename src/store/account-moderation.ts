// What moderators do to accounts (Mastodon's Admin::AccountAction and Admin::AccountsController): find them by
// Mastodon's AccountFilter, suspend, silence or mark sensitive (local or remote), and delete a suspended account's
// data. A member's sign-in side (disable, approve, reject) lives in users.ts.
//
// Changes that decide whether a member's tokens work (suspension, deletion) notify AUTH_CHANNEL in the changing
// statement, so every node's token cache drops the member when it commits; run them through
// AuthEventListener.publish to wait until every node has.
import { isIP } from 'node:net';
import { AUTH_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';

export const ORIGINS = ['local', 'remote'] as const;
export const STATUSES = ['active', 'pending', 'disabled', 'silenced', 'suspended', 'sensitized'] as const;

/** Mastodon's AccountFilter (v2's parameters; v1's are translated to these). Every given condition must hold. */
export interface AccountFilter {
  readonly origin?: (typeof ORIGINS)[number];
  readonly status?: (typeof STATUSES)[number];
  /** Members whose role may manage reports (Mastodon's `staff`). */
  readonly staff?: boolean;
  readonly roleIds?: readonly string[];
  /** Prefixes, case-insensitive, as Mastodon's matches_username / matches_display_name / matches_email. */
  readonly username?: string;
  readonly displayName?: string;
  readonly email?: string;
  readonly byDomain?: string;
  /** The member's last sign-in address; an address that does not parse matches nothing. */
  readonly ip?: string;
  /** Stoa has no invites: any inviter matches nothing. */
  readonly invitedBy?: string;
}

/** Mastodon's manage_reports and administrator bits: who `staff` means. */
const STAFF_BITS = (1n << 4n) | 1n;

const likePrefix = (v: string) => `${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class AccountModerationStore {
  constructor(private readonly db: Database) {}

  /** Ids of the accounts matching `f` (never the instance actor), newest first, a page at a time. */
  async search(f: AccountFilter, page: PageQuery): Promise<string[]> {
    const values: unknown[] = [];
    const conds: string[] = ['NOT a.instance_actor'];
    const $ = (v: unknown) => `$${values.push(v)}`;
    if (f.origin === 'local') conds.push('a.domain IS NULL');
    if (f.origin === 'remote') conds.push('a.domain IS NOT NULL');
    if (f.byDomain !== undefined) conds.push(`lower(a.domain) = lower(${$(f.byDomain.trim())})`);
    switch (f.status) {
      case 'active':
        conds.push('a.suspended_at IS NULL AND a.deleted_at IS NULL');
        break;
      case 'pending':
        conds.push('NOT u.approved');
        break;
      case 'disabled':
        conds.push('u.disabled AND a.suspended_at IS NULL');
        break;
      case 'silenced':
        conds.push('a.silenced_at IS NOT NULL');
        break;
      case 'suspended':
        conds.push('(a.suspended_at IS NOT NULL OR a.deleted_at IS NOT NULL)');
        break;
      case 'sensitized':
        conds.push('a.sensitized_at IS NOT NULL');
        break;
    }
    if (f.staff) conds.push(`(r.permissions & ${STAFF_BITS}) <> 0`);
    if (f.roleIds) conds.push(`u.role_id = ANY(${$(f.roleIds)}::bigint[])`);
    if (f.username !== undefined) conds.push(`a.username ILIKE ${$(likePrefix(f.username.trim()))}`);
    if (f.displayName !== undefined) conds.push(`a.display_name ILIKE ${$(likePrefix(f.displayName.trim()))}`);
    if (f.email !== undefined) conds.push(`u.email ILIKE ${$(likePrefix(f.email.trim()))}`);
    if (f.ip !== undefined) conds.push(isIP(f.ip.trim()) ? `u.last_sign_in_ip = ${$(f.ip.trim())}` : 'false');
    if (f.invitedBy !== undefined) conds.push('false');
    const p = pageSql(page, 'a.id', values);
    const rows = await this.db.rows<{ id: string }>(
      `SELECT a.id FROM accounts a LEFT JOIN users u ON u.account_id = a.id LEFT JOIN roles r ON r.id = u.role_id
       WHERE ${conds.join(' AND ')}${p.where}${p.orderLimit}`,
      values,
    );
    return p.newestFirst(rows.map((r) => r.id));
  }

  /**
   * Suspends or unsuspends an account; true when a member's tokens changed (their nodes are told). Unsuspending lifts what the suspension refused:
   * a remote account's history, refused while it was suspended, may be asked for again.
   */
  async setSuspended(id: string, suspended: boolean, nonce: string): Promise<boolean> {
    return this.db.tx(async () => {
      const changed = await this.db.exec(
        `UPDATE accounts SET suspended_at = ${suspended ? 'now()' : 'NULL'}, updated_at = now()
         WHERE id = $1 AND suspended_at IS ${suspended ? 'NULL' : 'NOT NULL'}`,
        [id],
      );
      if (changed === 0) return false;
      if (!suspended) await this.db.exec(`DELETE FROM remote_histories WHERE account_id = $1 AND state = 'unsupported' AND reason = 'federation_policy'`, [id]);
      return this.notifyMember(id, nonce);
    });
  }

  async setSilenced(id: string, silenced: boolean): Promise<void> {
    await this.db.exec(`UPDATE accounts SET silenced_at = ${silenced ? 'coalesce(silenced_at, now())' : 'NULL'}, updated_at = now() WHERE id = $1`, [id]);
  }

  async setSensitized(id: string, sensitized: boolean): Promise<void> {
    await this.db.exec(`UPDATE accounts SET sensitized_at = ${sensitized ? 'coalesce(sensitized_at, now())' : 'NULL'}, updated_at = now() WHERE id = $1`, [id]);
  }

  /**
   * Deletes a suspended account's data (Mastodon's Admin::AccountDeletionWorker): its posts, its follows both ways,
   * what is queued to it and, for a member, the sign-in (sessions and tokens go with it). The row stays as a
   * suspended tombstone so ids and the handle stay taken, as Mastodon keeps it. True when a member's sign-in went
   * (their nodes are told); false for a remote account, or one not suspended.
   */
  async deleteData(id: string, nonce: string): Promise<boolean> {
    return this.db.tx(async () => {
      const changed = await this.db.exec(
        'UPDATE accounts SET deleted_at = coalesce(deleted_at, now()), updated_at = now() WHERE id = $1 AND suspended_at IS NOT NULL',
        [id],
      );
      if (changed === 0) return false;
      const notified = await this.notifyMember(id, nonce);
      await this.db.exec('UPDATE statuses SET deleted_at = now() WHERE account_id = $1 AND deleted_at IS NULL', [id]);
      await this.db.exec('DELETE FROM follows WHERE account_id = $1 OR target_account_id = $1', [id]);
      await this.db.exec('DELETE FROM follow_requests WHERE account_id = $1 OR target_account_id = $1', [id]);
      await this.db.exec('DELETE FROM deliveries WHERE inbox_url IN (SELECT inbox_url FROM accounts WHERE id = $1 AND domain IS NOT NULL)', [id]);
      await this.db.exec('DELETE FROM users WHERE account_id = $1', [id]);
      return notified;
    });
  }

  /** Tells every node that the account's member (if it has one) changed, at commit; false when it has none. */
  private async notifyMember(accountId: string, nonce: string): Promise<boolean> {
    return (
      (await this.db.exec(`SELECT pg_notify('${AUTH_CHANNEL}', 'user:' || u.id || '|' || $2) FROM users u WHERE u.account_id = $1`, [accountId, nonce])) > 0
    );
  }
}
