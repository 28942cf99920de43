// A member's content filters (Mastodon's CustomFilter, with its keywords and statuses): read whole, one member at a
// time, and changed in transactions. Migration 050's triggers tell every node of any change (filters_changed on the
// member's user stream, and the cached copies dropped), whatever statement makes it.
import type { Database, Queryable } from './db.js';

export const FILTER_CONTEXTS = ['home', 'notifications', 'public', 'thread', 'account'] as const;
export type FilterContext = (typeof FILTER_CONTEXTS)[number];
export const FILTER_ACTIONS = ['warn', 'hide', 'blur'] as const;
export type FilterAction = (typeof FILTER_ACTIONS)[number];

/** How many filters a member may keep, and keywords or statuses one filter may hold (input bounds, not Mastodon's). */
export const MAX_FILTERS = 200;
export const MAX_FILTER_PARTS = 1000;

export interface FilterKeyword {
  readonly id: string;
  readonly filterId: string;
  readonly keyword: string;
  readonly wholeWord: boolean;
}

export interface FilterStatus {
  readonly id: string;
  readonly filterId: string;
  readonly statusId: string;
}

export interface Filter {
  readonly id: string;
  readonly accountId: string;
  readonly title: string;
  readonly context: readonly FilterContext[];
  readonly action: FilterAction;
  readonly expiresAt: Date | null;
  readonly keywords: readonly FilterKeyword[];
  readonly statuses: readonly FilterStatus[];
}

/** A filter's own columns: undefined leaves one as it is; expiresAt null means never. */
export interface FilterFields {
  readonly title?: string;
  readonly context?: readonly FilterContext[];
  readonly action?: FilterAction;
  readonly expiresAt?: Date | null;
}

/** One of keywords_attributes[]: a new keyword (no id), a change, or a removal (_destroy). */
export interface KeywordChange {
  readonly id?: string;
  readonly keyword?: string;
  readonly wholeWord?: boolean;
  readonly destroy?: boolean;
}

export type FilterWrite<T> = { ok: true; value: T } | { ok: false; reason: 'not-found' | 'too-many' | 'invalid' };

interface Row {
  [k: string]: unknown;
  id: string;
  account_id: string;
  title: string;
  context: FilterContext[];
  filter_action: FilterAction;
  expires_at: Date | null;
  keywords: { id: string; keyword: string; whole_word: boolean }[];
  statuses: { id: string; status_id: string }[];
}

const SELECT = `SELECT f.id::text, f.account_id::text, f.title, f.context, f.filter_action, f.expires_at,
  coalesce((SELECT json_agg(json_build_object('id', k.id::text, 'keyword', k.keyword, 'whole_word', k.whole_word) ORDER BY k.id)
    FROM custom_filter_keywords k WHERE k.custom_filter_id = f.id), '[]') AS keywords,
  coalesce((SELECT json_agg(json_build_object('id', x.id::text, 'status_id', x.status_id::text) ORDER BY x.id)
    FROM custom_filter_statuses x WHERE x.custom_filter_id = f.id), '[]') AS statuses
  FROM custom_filters f`;

const toFilter = (r: Row): Filter => ({
  id: r.id,
  accountId: r.account_id,
  title: r.title,
  context: r.context,
  action: r.filter_action,
  expiresAt: r.expires_at,
  keywords: r.keywords.map((k) => ({ id: k.id, filterId: r.id, keyword: k.keyword, wholeWord: k.whole_word })),
  statuses: r.statuses.map((s) => ({ id: s.id, filterId: r.id, statusId: s.status_id })),
});

interface KeywordRow {
  [k: string]: unknown;
  id: string;
  custom_filter_id: string;
  keyword: string;
  whole_word: boolean;
}
const toKeyword = (r: KeywordRow): FilterKeyword => ({ id: r.id, filterId: r.custom_filter_id, keyword: r.keyword, wholeWord: r.whole_word });
const KEYWORD = 'k.id::text, k.custom_filter_id::text, k.keyword, k.whole_word';

interface StatusRow {
  [k: string]: unknown;
  id: string;
  custom_filter_id: string;
  status_id: string;
}
const toStatus = (r: StatusRow): FilterStatus => ({ id: r.id, filterId: r.custom_filter_id, statusId: r.status_id });
const STATUS = 'x.id::text, x.custom_filter_id::text, x.status_id::text';

/** Thrown inside a transaction to undo it and answer why (keywords_attributes[] are all or nothing). */
class Refused extends Error {
  constructor(readonly reason: 'not-found' | 'too-many' | 'invalid') {
    super(reason);
  }
}

export class FilterStore {
  constructor(private readonly db: Database) {}

  /** A transaction whose refusal rolls it back. */
  private async write<T>(fn: (q: Queryable) => Promise<T>): Promise<FilterWrite<T>> {
    try {
      return { ok: true, value: await this.db.tx(fn) };
    } catch (e) {
      if (e instanceof Refused) return { ok: false, reason: e.reason };
      throw e;
    }
  }

  /** Every filter of the member, expired ones too (clients list them), oldest first. */
  async of(accountId: string): Promise<Filter[]> {
    return (await this.db.rows<Row>(`${SELECT} WHERE f.account_id = $1 ORDER BY f.id`, [accountId], 'prepared')).map(toFilter);
  }

  async one(accountId: string, id: string): Promise<Filter | undefined> {
    const r = await this.db.one<Row>(`${SELECT} WHERE f.account_id = $1 AND f.id = $2`, [accountId, id]);
    return r && toFilter(r);
  }

  /** The members who have any filter (what a node learns when it starts trusting its cache). */
  async accountsWithFilters(): Promise<Set<string>> {
    return new Set((await this.db.rows<{ id: string }>('SELECT DISTINCT account_id::text AS id FROM custom_filters')).map((r) => r.id));
  }

  async create(accountId: string, f: Required<FilterFields>, keywords: readonly KeywordChange[]): Promise<FilterWrite<Filter>> {
    return this.write(async (q) => {
      await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const n = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM custom_filters WHERE account_id = $1', [accountId]);
      if (n.rows[0]!.n >= MAX_FILTERS) throw new Refused('too-many');
      const r = await q.query<{ id: string }>(
        'INSERT INTO custom_filters (account_id, title, context, filter_action, expires_at) VALUES ($1, $2, $3, $4, $5) RETURNING id::text',
        [accountId, f.title, f.context, f.action, f.expiresAt],
      );
      const id = r.rows[0]!.id;
      await applyKeywords(q, id, keywords);
      return (await this.oneIn(q, accountId, id))!;
    });
  }

  async update(accountId: string, id: string, f: FilterFields, keywords: readonly KeywordChange[]): Promise<FilterWrite<Filter>> {
    return this.write(async (q) => {
      const found = await q.query('SELECT id FROM custom_filters WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, id]);
      if (found.rowCount === 0) throw new Refused('not-found');
      await q.query(
        `UPDATE custom_filters SET title = coalesce($3, title), context = coalesce($4, context), filter_action = coalesce($5, filter_action),
           expires_at = CASE WHEN $6 THEN $7::timestamptz ELSE expires_at END, updated_at = now()
         WHERE account_id = $1 AND id = $2`,
        [accountId, id, f.title ?? null, f.context ?? null, f.action ?? null, f.expiresAt !== undefined, f.expiresAt ?? null],
      );
      await applyKeywords(q, id, keywords);
      return (await this.oneIn(q, accountId, id))!;
    });
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM custom_filters WHERE account_id = $1 AND id = $2', [accountId, id])) > 0;
  }

  /** A keyword of one of the member's filters (another member's does not exist for them). */
  async keyword(accountId: string, id: string): Promise<FilterKeyword | undefined> {
    const r = await this.db.one<KeywordRow>(
      `SELECT ${KEYWORD} FROM custom_filter_keywords k JOIN custom_filters f ON f.id = k.custom_filter_id WHERE f.account_id = $1 AND k.id = $2`,
      [accountId, id],
    );
    return r && toKeyword(r);
  }

  async addKeyword(filterId: string, keyword: string, wholeWord: boolean): Promise<FilterWrite<FilterKeyword>> {
    return this.write(async (q) => {
      await q.query('SELECT id FROM custom_filters WHERE id = $1 FOR UPDATE', [filterId]);
      if (!(await roomFor(q, 'custom_filter_keywords', filterId, 1))) throw new Refused('too-many');
      const r = await q.query<KeywordRow>(
        `INSERT INTO custom_filter_keywords AS k (custom_filter_id, keyword, whole_word) VALUES ($1, $2, $3) RETURNING ${KEYWORD}`,
        [filterId, keyword, wholeWord],
      );
      return toKeyword(r.rows[0]!);
    });
  }

  async updateKeyword(id: string, keyword: string | undefined, wholeWord: boolean | undefined): Promise<FilterKeyword | undefined> {
    const r = await this.db.one<KeywordRow>(
      `UPDATE custom_filter_keywords AS k SET keyword = coalesce($2, keyword), whole_word = coalesce($3, whole_word), updated_at = now()
       WHERE id = $1 RETURNING ${KEYWORD}`,
      [id, keyword ?? null, wholeWord ?? null],
    );
    return r && toKeyword(r);
  }

  async removeKeyword(id: string): Promise<void> {
    await this.db.exec('DELETE FROM custom_filter_keywords WHERE id = $1', [id]);
  }

  /** A status entry of one of the member's filters. */
  async status(accountId: string, id: string): Promise<FilterStatus | undefined> {
    const r = await this.db.one<StatusRow>(
      `SELECT ${STATUS} FROM custom_filter_statuses x JOIN custom_filters f ON f.id = x.custom_filter_id WHERE f.account_id = $1 AND x.id = $2`,
      [accountId, id],
    );
    return r && toStatus(r);
  }

  /** Adds a status to a filter; 'invalid' when the filter names it already. */
  async addStatus(filterId: string, statusId: string): Promise<FilterWrite<FilterStatus>> {
    return this.write(async (q) => {
      await q.query('SELECT id FROM custom_filters WHERE id = $1 FOR UPDATE', [filterId]);
      if (!(await roomFor(q, 'custom_filter_statuses', filterId, 1))) throw new Refused('too-many');
      const r = await q.query<StatusRow>(
        `INSERT INTO custom_filter_statuses AS x (custom_filter_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING ${STATUS}`,
        [filterId, statusId],
      );
      const row = r.rows[0];
      if (!row) throw new Refused('invalid');
      return toStatus(row);
    });
  }

  async removeStatus(id: string): Promise<void> {
    await this.db.exec('DELETE FROM custom_filter_statuses WHERE id = $1', [id]);
  }

  private async oneIn(q: Queryable, accountId: string, id: string): Promise<Filter | undefined> {
    const r = await q.query<Row>(`${SELECT} WHERE f.account_id = $1 AND f.id = $2`, [accountId, id]);
    return r.rows[0] && toFilter(r.rows[0]);
  }
}

async function roomFor(q: Queryable, table: 'custom_filter_keywords' | 'custom_filter_statuses', filterId: string, more: number): Promise<boolean> {
  const n = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE custom_filter_id = $1`, [filterId]);
  return n.rows[0]!.n + more <= MAX_FILTER_PARTS;
}

/** keywords_attributes[] inside the filter's transaction: a change or removal names a keyword of this filter. */
async function applyKeywords(q: Queryable, filterId: string, changes: readonly KeywordChange[]): Promise<void> {
  for (const c of changes) {
    if (c.id === undefined) {
      if (c.destroy) continue;
      if (!c.keyword) throw new Refused('invalid');
      await q.query('INSERT INTO custom_filter_keywords (custom_filter_id, keyword, whole_word) VALUES ($1, $2, $3)', [
        filterId,
        c.keyword,
        c.wholeWord ?? true,
      ]);
    } else if (c.destroy) {
      const r = await q.query('DELETE FROM custom_filter_keywords WHERE custom_filter_id = $1 AND id = $2', [filterId, c.id]);
      if (r.rowCount === 0) throw new Refused('not-found');
    } else {
      const r = await q.query(
        `UPDATE custom_filter_keywords SET keyword = coalesce($3, keyword), whole_word = coalesce($4, whole_word), updated_at = now()
         WHERE custom_filter_id = $1 AND id = $2`,
        [filterId, c.id, c.keyword ?? null, c.wholeWord ?? null],
      );
      if (r.rowCount === 0) throw new Refused('not-found');
    }
  }
  if (!(await roomFor(q, 'custom_filter_keywords', filterId, 0))) throw new Refused('too-many');
}
