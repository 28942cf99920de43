// The profile directory (Mastodon's Api::V1::DirectoriesController): accounts that chose to be discoverable, neither
// suspended nor silenced, most recently active or newest first; for a signed-in caller, without the accounts they
// block, are blocked by, mute, or whose domain they block.
import type { Database } from './db.js';
import { silencedBy } from './visibility.js';

export interface DirectoryQuery {
  readonly offset: number;
  readonly limit: number;
  readonly order: 'active' | 'new';
  readonly local: boolean;
  /** The signed-in caller, or null. */
  readonly viewerId: string | null;
}

export class DirectoryStore {
  constructor(private readonly db: Database) {}

  /** A page of the directory's account ids. */
  async page(q: DirectoryQuery): Promise<string[]> {
    const values: unknown[] = [q.limit, q.offset];
    let where = `a.discoverable AND a.deleted_at IS NULL AND a.suspended_at IS NULL AND a.silenced_at IS NULL AND NOT a.instance_actor
      AND a.moved_to_uri IS NULL
      AND (a.domain IS NOT NULL OR EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id AND u.approved AND NOT u.disabled))`;
    if (q.local) where += ' AND a.domain IS NULL';
    if (q.viewerId !== null) where += ` AND NOT (a.id IN ${silencedBy(`$${values.push(q.viewerId)}::bigint`)})`;
    // Mastodon's by_recent_status: the latest post first, accounts that never posted last.
    const order = q.order === 'new' ? 'a.id DESC' : 'c.last_status_at DESC NULLS LAST, a.id DESC';
    const rows = await this.db.rows<{ id: string }>(
      `SELECT a.id::text AS id FROM accounts a LEFT JOIN account_counts c ON c.account_id = a.id WHERE ${where} ORDER BY ${order} LIMIT $1 OFFSET $2`,
      values,
    );
    return rows.map((r) => r.id);
  }
}
