// Reports to the moderators, and what the moderators do with them (Mastodon's Admin::Reports): take one on, change its
// category, resolve, reopen. Statuses a report names are kept from history pruning (they are evidence).
import { pageSql, type PageQuery } from './paging.js';
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
  readonly updatedAt: Date;
  /** Set when a moderator resolved the report (Mastodon's action_taken). */
  readonly actionTakenAt: Date | null;
  readonly actionTakenByAccountId: string | null;
  readonly assignedAccountId: string | null;
  /** The server's rules it cites (a violation), or null. */
  readonly ruleIds: readonly string[] | null;
}

/** Mastodon's ReportFilter: unresolved unless asked for resolved ones; by reporter and by reported account. */
export interface ReportFilter {
  readonly resolved?: boolean;
  readonly accountId?: string;
  readonly targetAccountId?: string;
}

interface Row {
  [k: string]: unknown;
  id: string;
  account_id: string;
  target_account_id: string;
  status_ids: string[];
  comment: string;
  category: ReportCategory;
  forwarded: boolean;
  created_at: Date;
  updated_at: Date;
  action_taken_at: Date | null;
  action_taken_by_account_id: string | null;
  assigned_account_id: string | null;
  rule_ids: string[] | null;
}

const toReport = (r: Row): Report => ({
  id: r.id,
  accountId: r.account_id,
  targetAccountId: r.target_account_id,
  statusIds: r.status_ids.map(String),
  comment: r.comment,
  category: r.category,
  forwarded: r.forwarded,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  actionTakenAt: r.action_taken_at,
  actionTakenByAccountId: r.action_taken_by_account_id,
  assignedAccountId: r.assigned_account_id,
  ruleIds: r.rule_ids ? r.rule_ids.map(String) : null,
});

type NewReport = Pick<Report, 'accountId' | 'targetAccountId' | 'statusIds' | 'comment' | 'category' | 'forwarded'> & {
  uri?: string;
  ruleIds?: readonly string[] | null;
};

export class ReportStore {
  constructor(private readonly db: Database) {}

  /** Files a report; undefined when a Flag with this uri was filed already. */
  async create(r: NewReport): Promise<Report | undefined> {
    const row = await this.db.one<Row>(
      `INSERT INTO reports (account_id, target_account_id, status_ids, comment, category, forwarded, uri, rule_ids)
       VALUES ($1, $2, $3::bigint[], $4, $5, $6, $7, $8::bigint[]) ON CONFLICT (uri) DO NOTHING RETURNING *`,
      [r.accountId, r.targetAccountId, r.statusIds, r.comment, r.category, r.forwarded, r.uri ?? null, r.ruleIds ?? null],
    );
    return row && toReport(row);
  }

  async byId(id: string): Promise<Report | undefined> {
    const r = await this.db.one<Row>('SELECT * FROM reports WHERE id = $1', [id]);
    return r && toReport(r);
  }

  async byIds(ids: readonly string[]): Promise<Report[]> {
    return (await this.db.rows<Row>('SELECT * FROM reports WHERE id = ANY($1::bigint[])', [ids])).map(toReport);
  }

  async list(f: ReportFilter, page: PageQuery): Promise<Report[]> {
    const values: unknown[] = [];
    let where = f.resolved ? 'action_taken_at IS NOT NULL' : 'action_taken_at IS NULL';
    if (f.accountId) where += ` AND account_id = $${values.push(f.accountId)}`;
    if (f.targetAccountId) where += ` AND target_account_id = $${values.push(f.targetAccountId)}`;
    const p = pageSql(page, 'id', values);
    return p.newestFirst((await this.db.rows<Row>(`SELECT * FROM reports WHERE ${where}${p.where}${p.orderLimit}`, values)).map(toReport));
  }

  /** Every report, unresolved first, newest first within each (the admin page). */
  async queue(limit: number): Promise<Report[]> {
    return (await this.db.rows<Row>('SELECT * FROM reports ORDER BY action_taken_at IS NOT NULL, id DESC LIMIT $1', [limit])).map(toReport);
  }

  /** A category change (updated_at moves only when something changed, as Rails does). */
  setCategory(id: string, category: ReportCategory): Promise<Report | undefined> {
    return this.change(id, 'category = $2', [category], 'category IS DISTINCT FROM $2');
  }

  /** The rules it cites (an empty list: none). */
  setRules(id: string, ruleIds: readonly string[]): Promise<Report | undefined> {
    return this.change(id, 'rule_ids = $2::bigint[]', [ruleIds.length ? ruleIds : null], 'rule_ids IS DISTINCT FROM $2::bigint[]');
  }

  /** Takes the report on (an account id) or lets it go (null). */
  assign(id: string, accountId: string | null): Promise<Report | undefined> {
    return this.change(id, 'assigned_account_id = $2', [accountId], 'assigned_account_id IS DISTINCT FROM $2');
  }

  /** Resolved now by this moderator (resolving again records the later moderator and time, as Mastodon does). */
  resolve(id: string, byAccountId: string): Promise<Report | undefined> {
    return this.change(id, 'action_taken_at = now(), action_taken_by_account_id = $2', [byAccountId], 'true');
  }

  reopen(id: string): Promise<Report | undefined> {
    return this.change(id, 'action_taken_at = NULL, action_taken_by_account_id = NULL', [], 'action_taken_at IS NOT NULL');
  }

  private async change(id: string, set: string, values: unknown[], changed: string): Promise<Report | undefined> {
    const r = await this.db.one<Row>(`UPDATE reports SET ${set}, updated_at = CASE WHEN ${changed} THEN now() ELSE updated_at END WHERE id = $1 RETURNING *`, [
      id,
      ...values,
    ]);
    return r && toReport(r);
  }
}
