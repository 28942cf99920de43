// Identity statements per account (FEP-c390), kept as their original JSON text. A member's set changes under a lock
// on the account row, so concurrent publishes can never leave more than the limit or two with one subject.
import type { Database } from './db.js';

export interface StoredStatement {
  readonly subject: string;
  /** The original JSON text. */
  readonly document: string;
  readonly expiresAt: Date | null;
}

/** changed: false when the same subject was already stored with exactly this text (nothing to announce). */
export type PublishOutcome = { ok: true; changed: boolean; statements: string[] } | { ok: false; reason: 'limit' | 'no_account' };

const LIVE = '(expires_at IS NULL OR expires_at > $2)';

export class IdentityStatementStore {
  constructor(private readonly db: Database) {}

  /** The documents whose proofs have not expired at `now`, in publishing order. */
  async live(accountId: string, now: Date): Promise<string[]> {
    const rows = await this.db.rows<{ document: string }>(`SELECT document FROM identity_statements WHERE account_id = $1 AND ${LIVE} ORDER BY id`, [
      accountId,
      now,
    ]);
    return rows.map((r) => r.document);
  }

  /**
   * Adds a statement or replaces the one with the same subject. Expired statements are removed first: they are no
   * longer shown or federated, so they must not hold one of the `max` places.
   */
  async publish(accountId: string, s: StoredStatement, max: number, now: Date): Promise<PublishOutcome> {
    return this.db.tx(async (q) => {
      const locked = await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      if (locked.rowCount === 0) return { ok: false, reason: 'no_account' } as const;
      await q.query('DELETE FROM identity_statements WHERE account_id = $1 AND expires_at <= $2', [accountId, now]);
      const existing = await q.query<{ document: string }>('SELECT document FROM identity_statements WHERE account_id = $1 AND subject = $2', [
        accountId,
        s.subject,
      ]);
      const changed = existing.rows[0]?.document !== s.document;
      if (existing.rowCount && changed) {
        await q.query('UPDATE identity_statements SET document = $3, expires_at = $4, updated_at = now() WHERE account_id = $1 AND subject = $2', [
          accountId,
          s.subject,
          s.document,
          s.expiresAt,
        ]);
      } else if (!existing.rowCount) {
        const count = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM identity_statements WHERE account_id = $1', [accountId]);
        if (count.rows[0]!.n >= max) return { ok: false, reason: 'limit' } as const;
        await q.query('INSERT INTO identity_statements (account_id, subject, document, expires_at) VALUES ($1, $2, $3, $4)', [
          accountId,
          s.subject,
          s.document,
          s.expiresAt,
        ]);
      }
      const rows = await q.query<{ document: string }>(`SELECT document FROM identity_statements WHERE account_id = $1 AND ${LIVE} ORDER BY id`, [
        accountId,
        now,
      ]);
      return { ok: true, changed, statements: rows.rows.map((r) => r.document) } as const;
    });
  }

  /** Removes the statement with this subject (if any); returns whether one was removed. */
  async remove(accountId: string, subject: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM identity_statements WHERE account_id = $1 AND subject = $2', [accountId, subject])) > 0;
  }

  /** A remote actor's verified statements, replacing what was stored for it (the actor document is the truth). */
  async replaceAll(accountId: string, statements: readonly StoredStatement[]): Promise<void> {
    await this.db.tx(async (q) => {
      await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      await q.query('DELETE FROM identity_statements WHERE account_id = $1', [accountId]);
      for (const s of statements) {
        await q.query(
          'INSERT INTO identity_statements (account_id, subject, document, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, subject) DO NOTHING',
          [accountId, s.subject, s.document, s.expiresAt],
        );
      }
    });
  }
}
