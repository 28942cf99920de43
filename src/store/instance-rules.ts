// The server's rules (Mastodon's Rule): the operator writes them on Administration › Rules; clients read them from
// /api/v1/instance/rules and the instance documents. Ordered as Mastodon orders them: by priority, then age.
import type { Database } from './db.js';

export interface InstanceRule {
  readonly id: string;
  readonly text: string;
  readonly hint: string;
  readonly priority: number;
}

interface Row extends Record<string, unknown> {
  id: string;
  text: string;
  hint: string;
  priority: number;
}

const COLUMNS = 'id, text, hint, priority';

export class InstanceRuleStore {
  constructor(private readonly db: Database) {}

  async list(): Promise<InstanceRule[]> {
    return this.db.rows<Row>(`SELECT ${COLUMNS} FROM instance_rules ORDER BY priority, id`);
  }

  /** The rules of these ids that exist (a report's rules; an id naming none is not among them). */
  async byIds(ids: readonly string[]): Promise<InstanceRule[]> {
    if (ids.length === 0) return [];
    return this.db.rows<Row>(`SELECT ${COLUMNS} FROM instance_rules WHERE id = ANY($1::bigint[]) ORDER BY priority, id`, [ids]);
  }

  async byId(id: string): Promise<InstanceRule | undefined> {
    return this.db.one<Row>(`SELECT ${COLUMNS} FROM instance_rules WHERE id = $1`, [id]);
  }

  async create(text: string, hint: string, priority: number): Promise<InstanceRule> {
    return (await this.db.one<Row>(`INSERT INTO instance_rules (text, hint, priority) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`, [text, hint, priority]))!;
  }

  async update(id: string, text: string, hint: string, priority: number): Promise<InstanceRule | undefined> {
    return this.db.one<Row>(`UPDATE instance_rules SET text = $2, hint = $3, priority = $4, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`, [
      id,
      text,
      hint,
      priority,
    ]);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM instance_rules WHERE id = $1', [id])) > 0;
  }
}
