// Reports to the moderators. Statuses a report names are kept from history pruning (they are evidence).
import type { Database } from './db.js';

export const REPORT_CATEGORIES = ['spam', 'legal', 'violation', 'other'] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];

export interface Report {
  readonly id: string;
  readonly accountId: string;
  readonly targetAccountId: string;
  readonly statusIds: readonly string[];
  readonly comment: string;
  readonly category: ReportCategory;
  readonly forwarded: boolean;
  readonly createdAt: Date;
}

interface Row {
  [k: string]: unknown;
  id: string; account_id: string; target_account_id: string; status_ids: string[]; comment: string; category: ReportCategory;
  forwarded: boolean; created_at: Date;
}

const toReport = (r: Row): Report => ({
  id: r.id, accountId: r.account_id, targetAccountId: r.target_account_id, statusIds: r.status_ids.map(String), comment: r.comment,
  category: r.category, forwarded: r.forwarded, createdAt: r.created_at,
});

export class ReportStore {
  constructor(private readonly db: Database) {}

  async create(r: Omit<Report, 'id' | 'createdAt'> & { uri?: string }): Promise<Report | undefined> {
    const row = await this.db.one<Row>(
      `INSERT INTO reports (account_id, target_account_id, status_ids, comment, category, forwarded, uri)
       VALUES ($1, $2, $3::bigint[], $4, $5, $6, $7) ON CONFLICT (uri) DO NOTHING RETURNING *`,
      [r.accountId, r.targetAccountId, r.statusIds, r.comment, r.category, r.forwarded, r.uri ?? null],
    );
    return row && toReport(row);
  }

  async against(targetAccountId: string): Promise<Report[]> {
    return (await this.db.rows<Row>('SELECT * FROM reports WHERE target_account_id = $1 ORDER BY id DESC', [targetAccountId])).map(toReport);
  }
}
