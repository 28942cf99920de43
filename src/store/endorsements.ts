// Endorsements (Mastodon's account_pins): the followed accounts a member features on their profile. A follow that
// ends takes its endorsement with it (migration 061's account_pins_unfollow trigger).
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';

export class EndorsementStore {
  constructor(private readonly db: Database) {}

  /** Endorses an account the member follows; false when the member does not follow it (nothing is stored). */
  async endorse(accountId: string, targetId: string): Promise<boolean> {
    const r = await this.db.one<{ ok: boolean }>(
      `WITH pin AS (
         INSERT INTO account_pins (account_id, target_account_id)
         SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM follows WHERE account_id = $1 AND target_account_id = $2)
         ON CONFLICT (account_id, target_account_id) DO NOTHING RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM pin) OR EXISTS (SELECT 1 FROM account_pins WHERE account_id = $1 AND target_account_id = $2) AS ok`,
      [accountId, targetId],
    );
    return r?.ok === true;
  }

  async unendorse(accountId: string, targetId: string): Promise<void> {
    await this.db.exec('DELETE FROM account_pins WHERE account_id = $1 AND target_account_id = $2', [accountId, targetId]);
  }

  /**
   * The ids of the accounts `accountId` endorses, live and not suspended, newest account first: paged by the endorsed
   * account's id, as Mastodon's endorsed_accounts.paginate_by_max_id.
   */
  async page(accountId: string, page: PageQuery): Promise<string[]> {
    const values: unknown[] = [accountId];
    const p = pageSql(page, 'p.target_account_id', values);
    const rows = await this.db.rows<{ id: string }>(
      `SELECT p.target_account_id::text AS id FROM account_pins p JOIN accounts a ON a.id = p.target_account_id
       WHERE p.account_id = $1 AND a.deleted_at IS NULL AND a.suspended_at IS NULL${p.where}${p.orderLimit}`,
      values,
    );
    return p.newestFirst(rows).map((r) => r.id);
  }
}
