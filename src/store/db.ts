// The one PostgreSQL client module: a pool, typed query helpers and transactions. Store modules call these;
// nothing else in the code talks SQL.
import pg from 'pg';
import type { Logger } from '../log.js';

// int8 columns (ids, counts) arrive as strings by default; ids stay strings (the API wants strings) and counts are
// converted where they are read.
export type Row = Record<string, unknown>;

export interface Queryable {
  query<R extends Row = Row>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
}

export class Database {
  readonly pool: pg.Pool;

  constructor(
    readonly connectionString: string,
    max: number,
    private readonly log: Logger,
  ) {
    this.pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
    // An idle client's error (server restart, network) must not crash the process; the pool replaces the client.
    this.pool.on('error', (err) => this.log.warn({ err }, 'idle database client error'));
  }

  async rows<R extends Row = Row>(text: string, values?: readonly unknown[]): Promise<R[]> {
    return (await this.pool.query<R>(text, values as unknown[])).rows;
  }

  async one<R extends Row = Row>(text: string, values?: readonly unknown[]): Promise<R | undefined> {
    return (await this.pool.query<R>(text, values as unknown[])).rows[0];
  }

  async exec(text: string, values?: readonly unknown[]): Promise<number> {
    return (await this.pool.query(text, values as unknown[])).rowCount ?? 0;
  }

  /** Runs fn inside BEGIN/COMMIT on one client; any throw rolls back. */
  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (e) {
      // A client whose ROLLBACK fails is broken: destroy it instead of returning it to the pool.
      const rollback = await client.query('ROLLBACK').then(
        () => undefined,
        (err: Error) => err,
      );
      client.release(rollback);
      throw e;
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
