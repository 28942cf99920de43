// Mutes and the lists of blocked and muted accounts (the SQL that keeps them out of what a member reads is in
// visibility.ts).
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';

export class MuteStore {
  constructor(private readonly db: Database) {}

  async mute(accountId: string, targetId: string, notifications: boolean, expiresAt: Date | null): Promise<void> {
    await this.db.exec(
      `INSERT INTO mutes (account_id, target_account_id, hide_notifications, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, target_account_id) DO UPDATE SET hide_notifications = EXCLUDED.hide_notifications, expires_at = EXCLUDED.expires_at`,
      [accountId, targetId, notifications, expiresAt],
    );
  }

  async unmute(accountId: string, targetId: string): Promise<void> {
    await this.db.exec('DELETE FROM mutes WHERE account_id = $1 AND target_account_id = $2', [accountId, targetId]);
  }

  /**
   * [row id, account id, when the mute ends (null: never, and for blocks)] of the member's blocks or (unexpired)
   * mutes of accounts that still exist, newest first.
   */
  async page(kind: 'blocks' | 'mutes', accountId: string, page: PageQuery): Promise<[string, string, Date | null][]> {
    const values: unknown[] = [accountId];
    let where = ' AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = x.target_account_id AND a.deleted_at IS NULL)';
    if (kind === 'mutes') where += ' AND (x.expires_at IS NULL OR x.expires_at > now())';
    const p = pageSql(page, 'x.id', values);
    const ends = kind === 'mutes' ? 'x.expires_at' : 'NULL::timestamptz';
    const rows = await this.db.rows<{ id: string; target: string; ends: Date | null }>(
      `SELECT x.id, x.target_account_id AS target, ${ends} AS ends FROM ${kind} x WHERE x.account_id = $1${where}${p.where}${p.orderLimit}`,
      values,
    );
    return p.newestFirst(rows.map((r): [string, string, Date | null] => [r.id, r.target, r.ends]));
  }
}
