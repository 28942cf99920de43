// A member's private notes on accounts (Mastodon's account_notes): one per (member, account), shown to the member
// alone as the Relationship's `note` (follows.ts relationships reads it).
import type { Database } from './db.js';

export class AccountNoteStore {
  constructor(private readonly db: Database) {}

  /** Sets the member's note on the account; an empty comment removes it, as Mastodon does. */
  async set(accountId: string, targetId: string, comment: string): Promise<void> {
    if (comment === '') {
      await this.db.exec('DELETE FROM account_notes WHERE account_id = $1 AND target_account_id = $2', [accountId, targetId]);
      return;
    }
    await this.db.exec(
      `INSERT INTO account_notes (account_id, target_account_id, comment) VALUES ($1, $2, $3)
       ON CONFLICT (account_id, target_account_id) DO UPDATE SET comment = EXCLUDED.comment, updated_at = now()
       WHERE account_notes.comment IS DISTINCT FROM EXCLUDED.comment`,
      [accountId, targetId, comment],
    );
  }
}
