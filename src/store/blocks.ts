// Blocks between accounts. A block ends every follow and follow request between the two and takes each off the
// other's lists; what a block hides from reads is in visibility.ts.
import { notifyMembersChanged } from './auth-events.js';
import type { Database } from './db.js';
import { LEAVE_LISTS } from './follows.js';

export class BlockStore {
  constructor(private readonly db: Database) {}

  /** A block ends every follow and request between the two accounts. */
  async block(accountId: string, targetId: string, uri: string | null): Promise<void> {
    await this.db.tx(async (q) => {
      await q.query(
        `INSERT INTO blocks (account_id, target_account_id, uri) VALUES ($1, $2, $3)
         ON CONFLICT (account_id, target_account_id) DO UPDATE SET uri = EXCLUDED.uri`,
        [accountId, targetId, uri],
      );
      for (const table of ['follows', 'follow_requests']) {
        await q.query(`DELETE FROM ${table} WHERE (account_id = $1 AND target_account_id = $2) OR (account_id = $2 AND target_account_id = $1)`, [
          accountId,
          targetId,
        ]);
      }
      await q.query(LEAVE_LISTS, [accountId, targetId]);
      await q.query(LEAVE_LISTS, [targetId, accountId]);
      await notifyMembersChanged(this.db, q, [accountId, targetId]);
    });
  }

  /** The id of the Block we sent for this block, if any. */
  async blockUri(accountId: string, targetId: string): Promise<string | null> {
    return (
      (await this.db.one<{ uri: string | null }>('SELECT uri FROM blocks WHERE account_id = $1 AND target_account_id = $2', [accountId, targetId]))?.uri ?? null
    );
  }

  async unblock(accountId: string, targetId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM blocks WHERE account_id = $1 AND target_account_id = $2', [accountId, targetId])) === 1;
  }

  async isBlocked(accountId: string, byAccountId: string): Promise<boolean> {
    return !!(await this.db.one('SELECT 1 FROM blocks WHERE account_id = $1 AND target_account_id = $2', [byAccountId, accountId]));
  }
}
