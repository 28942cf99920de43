// The one PostgreSQL client module: a pool, typed query helpers and transactions. Store modules call these;
// nothing else in the code talks SQL.
//
// Transactions are ambient: inside `tx(fn)`, every query any store makes (through rows/one/exec) runs on the
// transaction's client, so a service can make one user action (a post with its media, poll, notifications and
// outgoing deliveries) atomic without threading a client through every store. A `tx` inside a `tx` is a savepoint.
// Work that must only see committed rows (waking an actor) is queued with afterCommit.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../log.js';
import { parseTimestamptz } from './pg-dates.js';

pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz);

// int8 columns (ids, counts) arrive as strings by default; ids stay strings (the API wants strings) and counts are
// converted where they are read.
export type Row = Record<string, unknown>;

export interface Queryable {
  query<R extends Row = Row>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

const TX_ATTEMPTS = 3;
/** deadlock_detected, serialization_failure: the transaction did nothing and may simply be run again. */
const RETRYABLE = new Set(['40P01', '40001']);

/** An open transaction, as the code running inside it sees it. */
interface TxContext {
  readonly client: pg.PoolClient;
  /** False once committed or rolled back: work started inside that outlives it goes back to the pool. */
  open: boolean;
  savepoints: number;
  readonly afterCommit: (() => void)[];
}

/** What services need of transactions: one atomic unit of work, and work held until it commits. */
export interface Transactor {
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  afterCommit(fn: () => void): void;
}

const names = new Map<string, string>();

/** A prepared statement's name: the same for the same text in every process (bounded: texts are shapes, not values). */
function statementName(text: string): string {
  let n = names.get(text);
  if (n === undefined) {
    if (names.size >= 2000) names.clear();
    n = `p${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, n);
  }
  return n;
}

/**
 * A prepared statement's rows come as arrays and are made objects here, by a function written once per statement
 * for its columns: one object literal, so every row of a statement has one shape. node-postgres copies a template
 * object per row and stores each column into it by name, a store V8 cannot specialise (a notifications page's 40 rows
 * of 26 columns: ~8 % of its Node time, issue 19). Same keys, order and values: a column named twice keeps its first
 * place and its last value, as there.
 */
type RowMaker = (a: unknown[]) => Row;
const makers = new Map<string, { readonly fields: readonly string[]; readonly make: RowMaker }>();

function rowMaker(statement: string, fields: readonly pg.FieldDef[]): RowMaker {
  const m = makers.get(statement);
  if (m !== undefined && m.fields.length === fields.length && m.fields.every((f, i) => f === fields[i]!.name)) return m.make;
  if (makers.size >= 2000) makers.clear();
  const names = fields.map((f) => f.name);
  // A quoted "__proto__" key would set the prototype; a computed one is a plain property, as node-postgres makes it.
  const keys = names.map((n, i) => `${n === '__proto__' ? `[${JSON.stringify(n)}]` : JSON.stringify(n)}: a[${i}]`);
  const make = new Function('a', `return {${keys.join(', ')}};`) as RowMaker;
  makers.set(statement, { fields: names, make });
  return make;
}

/** Round trips counted for the code running inside `Database.tally` (tests and benches: queries per page). */
interface Tally {
  readonly statements: string[];
}

/** What the triggers read from the connection (migration 078: home_fan_out_threshold). */
export type DatabaseSettings = { readonly home_fan_out_threshold?: number };

export class Database implements Transactor {
  readonly pool: pg.Pool;
  private readonly current = new AsyncLocalStorage<TxContext>();
  private readonly tallies = new AsyncLocalStorage<Tally>();
  /**
   * What this node drops when a change to these accounts' members commits here (set by wiring: the token cache's
   * verify_credentials entities); other nodes hear of it through the change's NOTIFY (auth-events.ts).
   */
  onMembersChanged: (accountIds: readonly string[]) => void = () => {};

  constructor(
    readonly connectionString: string,
    max: number,
    private readonly log: Logger,
    settings: DatabaseSettings = {},
  ) {
    this.pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
    // Settings the triggers read (current_setting), set on each new connection before it is handed out (a client runs
    // its queries in order). Not the startup `options`: a DATABASE_URL's own ?options= would replace them in silence,
    // and poolers refuse unknown startup parameters.
    const entries = Object.entries(settings).filter(([, v]) => v !== undefined);
    if (entries.length > 0) {
      const sql = `SELECT ${entries.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, false)`).join(', ')}`;
      const values = entries.flatMap(([k, v]) => [`stoa.${k}`, String(v)]);
      this.pool.on('connect', (client) => {
        client.query(sql, values).catch((err: unknown) => this.log.error({ err }, 'connection settings not applied'));
      });
    }
    // An idle client's error (server restart, network) must not crash the process; the pool replaces the client.
    this.pool.on('error', (err) => this.log.warn({ err }, 'idle database client error'));
  }

  /** The open transaction's client when called inside one, else the pool. */
  private get q(): Queryable {
    const t = this.current.getStore();
    return t?.open ? t.client : this.pool;
  }

  /**
   * Runs fn and counts the statements it (and whatever it awaits) sends through rows/one/exec: how many round trips
   * a page costs. Work other requests do meanwhile is not counted (the count follows fn's async context).
   */
  async tally<T>(fn: () => Promise<T>): Promise<{ value: T; queries: number; statements: string[] }> {
    const t: Tally = { statements: [] };
    const value = await this.tallies.run(t, fn);
    return { value, queries: t.statements.length, statements: t.statements };
  }

  /**
   * A page's hot statements pass `prepared`: the statement is then parsed and planned once per connection (node-postgres
   * names it; the name is derived from the text, so a text built per call is one statement per shape) and after that
   * only bound and executed. The transaction's client prepares its own, as every pooled client does.
   */
  async rows<R extends Row = Row>(text: string, values?: readonly unknown[], prepared?: 'prepared'): Promise<R[]> {
    return (await this.send<R>(text, values, prepared)).rows;
  }

  async one<R extends Row = Row>(text: string, values?: readonly unknown[], prepared?: 'prepared'): Promise<R | undefined> {
    return (await this.send<R>(text, values, prepared)).rows[0];
  }

  private async send<R extends Row>(text: string, values: readonly unknown[] | undefined, prepared?: 'prepared'): Promise<pg.QueryResult<R>> {
    this.tallies.getStore()?.statements.push(text);
    const q = this.q as pg.Pool;
    if (!prepared) return q.query<R>(text, values as unknown[]);
    const name = statementName(text);
    const r = await q.query({ name, text, values: values as unknown[], rowMode: 'array' });
    const make = rowMaker(name, r.fields);
    const rows = r.rows as unknown[][];
    for (let i = 0; i < rows.length; i++) (rows as unknown[])[i] = make(rows[i]!);
    return r as unknown as pg.QueryResult<R>;
  }

  async exec(text: string, values?: readonly unknown[]): Promise<number> {
    return (await this.send(text, values)).rowCount ?? 0;
  }

  /**
   * Runs fn inside BEGIN/COMMIT on one client; any throw rolls back. Inside another transaction it is a savepoint:
   * its throw undoes only its own writes, and nothing is committed before the outermost transaction commits.
   */
  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const outer = this.current.getStore();
    if (outer?.open) return this.savepoint(outer, fn);
    // A transaction that spans a whole user action takes row locks in the order the action touches rows, so two
    // concurrent actions can deadlock; PostgreSQL aborts one, and it is run again from the start.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(fn);
      } catch (e) {
        if (attempt >= TX_ATTEMPTS || !RETRYABLE.has((e as { code?: string }).code ?? '')) throw e;
        this.log.info({ code: (e as { code?: string }).code, attempt }, 'transaction retried');
      }
    }
  }

  private async once<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const t: TxContext = { client, open: true, savepoints: 0, afterCommit: [] };
    try {
      await client.query('BEGIN');
      const result = await this.current.run(t, () => fn(client));
      await client.query('COMMIT');
      t.open = false;
      client.release();
      for (const f of t.afterCommit) this.runAfterCommit(f);
      return result;
    } catch (e) {
      t.open = false;
      // A client whose ROLLBACK fails is broken: destroy it instead of returning it to the pool.
      const rollback = await client.query('ROLLBACK').then(
        () => undefined,
        (err: Error) => err,
      );
      client.release(rollback);
      throw e;
    }
  }

  /** Runs fn once the current transaction commits (never if it rolls back); outside a transaction, now. */
  afterCommit(fn: () => void): void {
    const t = this.current.getStore();
    if (t?.open) t.afterCommit.push(fn);
    else this.runAfterCommit(fn);
  }

  private async savepoint<T>(t: TxContext, fn: (q: Queryable) => Promise<T>): Promise<T> {
    const name = `s${++t.savepoints}`;
    await t.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn(t.client);
      await t.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (e) {
      await t.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw e;
    }
  }

  private runAfterCommit(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err }, 'after-commit work failed');
    }
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
