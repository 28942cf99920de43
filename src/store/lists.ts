// Lists: a member's named sets of followed accounts, and their timelines.
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';

export const REPLIES_POLICIES = ['followed', 'list', 'none'] as const;
export type RepliesPolicy = (typeof REPLIES_POLICIES)[number];

export interface List {
  readonly id: string;
  readonly accountId: string;
  readonly title: string;
  readonly repliesPolicy: RepliesPolicy;
  readonly exclusive: boolean;
}

export const MAX_LISTS = 50;
export const MAX_LIST_ACCOUNTS = 500;

interface Row {
  [k: string]: unknown;
  id: string;
  account_id: string;
  title: string;
  replies_policy: RepliesPolicy;
  exclusive: boolean;
}
const toList = (r: Row): List => ({ id: r.id, accountId: r.account_id, title: r.title, repliesPolicy: r.replies_policy, exclusive: r.exclusive });

export class ListStore {
  constructor(private readonly db: Database) {}

  async of(accountId: string): Promise<List[]> {
    return (await this.db.rows<Row>('SELECT * FROM lists WHERE account_id = $1 ORDER BY id', [accountId])).map(toList);
  }

  /** The member's list with this id (another member's list does not exist for them). */
  async one(accountId: string, id: string): Promise<List | undefined> {
    const r = await this.db.one<Row>('SELECT * FROM lists WHERE account_id = $1 AND id = $2', [accountId, id]);
    return r && toList(r);
  }

  /** Creates a list; undefined when the member has MAX_LISTS already. */
  async create(accountId: string, title: string, repliesPolicy: RepliesPolicy, exclusive: boolean): Promise<List | undefined> {
    return this.db.tx(async (q) => {
      await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const n = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM lists WHERE account_id = $1', [accountId]);
      if (n.rows[0]!.n >= MAX_LISTS) return undefined;
      const r = await q.query<Row>('INSERT INTO lists (account_id, title, replies_policy, exclusive) VALUES ($1, $2, $3, $4) RETURNING *', [
        accountId,
        title,
        repliesPolicy,
        exclusive,
      ]);
      return toList(r.rows[0]!);
    });
  }

  async update(accountId: string, id: string, p: { title?: string; repliesPolicy?: RepliesPolicy; exclusive?: boolean }): Promise<List | undefined> {
    const r = await this.db.one<Row>(
      `UPDATE lists SET title = coalesce($3, title), replies_policy = coalesce($4, replies_policy), exclusive = coalesce($5, exclusive)
       WHERE account_id = $1 AND id = $2 RETURNING *`,
      [accountId, id, p.title ?? null, p.repliesPolicy ?? null, p.exclusive ?? null],
    );
    return r && toList(r);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM lists WHERE account_id = $1 AND id = $2', [accountId, id])) > 0;
  }

  /** A page of the list's members' account ids (paged by account id, as Mastodon does), or all of them (null). */
  async members(listId: string, page: PageQuery | null): Promise<string[]> {
    const values: unknown[] = [listId];
    const where = 'la.list_id = $1 AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = la.account_id AND a.deleted_at IS NULL)';
    if (page === null) {
      return (await this.db.rows<{ account_id: string }>(`SELECT la.account_id FROM list_accounts la WHERE ${where} ORDER BY la.account_id DESC`, values)).map(
        (r) => r.account_id,
      );
    }
    const p = pageSql(page, 'la.account_id', values);
    const rows = await this.db.rows<{ account_id: string }>(`SELECT la.account_id FROM list_accounts la WHERE ${where}${p.where}${p.orderLimit}`, values);
    return p.newestFirst(rows.map((r) => r.account_id));
  }

  /** Adds accounts the owner follows; returns the ids that are not followed (nothing is added then). */
  async add(list: List, accountIds: readonly string[]): Promise<{ notFollowed: string[]; full: boolean }> {
    return this.db.tx(async (q) => {
      await q.query('SELECT id FROM lists WHERE id = $1 FOR UPDATE', [list.id]);
      const followed = await q.query<{ id: string }>(
        'SELECT target_account_id::text AS id FROM follows WHERE account_id = $1 AND target_account_id = ANY($2::bigint[])',
        [list.accountId, accountIds],
      );
      const ok = new Set(followed.rows.map((r) => r.id));
      const notFollowed = accountIds.filter((id) => !ok.has(id));
      if (notFollowed.length) return { notFollowed, full: false };
      const n = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM list_accounts WHERE list_id = $1', [list.id]);
      if (n.rows[0]!.n + accountIds.length > MAX_LIST_ACCOUNTS) return { notFollowed: [], full: true };
      await q.query('INSERT INTO list_accounts (list_id, account_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING', [list.id, accountIds]);
      return { notFollowed: [], full: false };
    });
  }

  async removeAccounts(listId: string, accountIds: readonly string[]): Promise<void> {
    await this.db.exec('DELETE FROM list_accounts WHERE list_id = $1 AND account_id = ANY($2::bigint[])', [listId, accountIds]);
  }

  /** The member's lists that contain an account. */
  async containing(ownerId: string, accountId: string): Promise<List[]> {
    return (
      await this.db.rows<Row>(
        'SELECT l.* FROM lists l JOIN list_accounts la ON la.list_id = l.id WHERE l.account_id = $1 AND la.account_id = $2 ORDER BY l.id',
        [ownerId, accountId],
      )
    ).map(toList);
  }
}
