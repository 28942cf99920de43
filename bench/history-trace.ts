// What the remote-history benches share: a trigger in a `bench` schema that records when each job was claimed (state
// → fetching) and when it ended, with the database's clock, and notifies `bench_history`; a listener that resolves
// once given jobs have ended (no polling); percentiles.
import pg from 'pg';
import type { Database } from '../src/store/db.js';
import { HISTORY_LIMITS } from '../src/store/history-types.js';

/** No phase may take longer (a job that never ends fails the bench instead of hanging it). */
const PHASE_TIMEOUT_MS = 120_000;

export const TRACE_SQL = `
CREATE SCHEMA IF NOT EXISTS bench;
CREATE TABLE IF NOT EXISTS bench.history_runs (
  run_id bigserial PRIMARY KEY, account_id bigint NOT NULL, origin text NOT NULL, owner text, queued_at timestamptz,
  claimed_at timestamptz NOT NULL, finished_at timestamptz, state text);
CREATE OR REPLACE FUNCTION bench.history_run() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state = 'fetching' AND OLD.state <> 'fetching' THEN
    INSERT INTO bench.history_runs (account_id, origin, owner, queued_at, claimed_at)
    VALUES (NEW.account_id, NEW.origin, NEW.lease_owner, NEW.queued_at, clock_timestamp());
  ELSIF OLD.state = 'fetching' AND NEW.state <> 'fetching' THEN
    UPDATE bench.history_runs SET finished_at = clock_timestamp(), state = NEW.state
    WHERE account_id = NEW.account_id AND finished_at IS NULL;
    PERFORM pg_notify('bench_history', NEW.account_id::text);
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS bench_history_run ON remote_histories;
CREATE TRIGGER bench_history_run AFTER UPDATE OF state ON remote_histories FOR EACH ROW EXECUTE FUNCTION bench.history_run();`;

export interface Ms {
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
}

export function stats(samples: readonly number[]): Ms {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(s.length * q))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length) };
}

/** Jobs ended, as the trigger reports them (after their transaction commits). */
export class Endings {
  private readonly ended = new Set<string>();
  private waiter: { ids: readonly string[]; resolve: () => void } | null = null;

  private constructor(private readonly client: pg.Client) {}

  static async listen(url: string): Promise<Endings> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const e = new Endings(client);
    client.on('notification', (n) => {
      if (n.payload) e.ended.add(n.payload);
      e.check();
    });
    await client.query('LISTEN bench_history');
    return e;
  }

  private check(): void {
    const w = this.waiter;
    if (!w?.ids.every((id) => this.ended.has(id))) return;
    this.waiter = null;
    w.resolve();
  }

  /** Resolves once every job of `ids` has ended. */
  async all(ids: readonly string[], what: string, timeoutMs = PHASE_TIMEOUT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve) => {
      this.waiter = { ids, resolve };
      this.check();
    });
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const left = ids.filter((id) => !this.ended.has(id)).length;
        reject(new Error(`${what}: ${left} of ${ids.length} jobs not ended after ${timeoutMs / 1000} s`));
      }, timeoutMs);
    });
    try {
      await Promise.race([done, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** An origin as the benches serve it (history-origins.ts BenchOrigin): its base URL and the host Stoa keys it by. */
interface Origin {
  readonly url: string;
  readonly host: string;
}

/**
 * Remote actors `name` on these origins, stored and queued for their initial fetch in one transaction, as
 * RemoteHistoryStore.request queues them (a `queued` row, the outbox as cursor, 2 documents, `history:<origin>`
 * notified); answers their account ids.
 */
export function queueInitialFetches(db: Database, actors: readonly { origin: Origin; name: string }[]): Promise<string[]> {
  return db.tx(async () => {
    const rows = await db.rows<{ account_id: string }>(
      `WITH t AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS t(base, host, name)),
       a AS (
         INSERT INTO accounts (username, domain, uri, url, inbox_url, outbox_url, followers_url, actor_type, fetched_at)
         SELECT name, host, base || '/users/' || name, base || '/users/' || name, base || '/users/' || name || '/inbox',
                base || '/users/' || name || '/outbox', base || '/users/' || name || '/followers', 'Person', now()
         FROM t RETURNING id, domain, outbox_url)
       INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at)
       SELECT id, domain, 'queued', outbox_url, $4, clock_timestamp() FROM a RETURNING account_id`,
      [actors.map((a) => a.origin.url), actors.map((a) => a.origin.host), actors.map((a) => a.name), HISTORY_LIMITS.initialDocuments],
    );
    await db.exec(`SELECT pg_notify('stoa_work', 'history:' || o) FROM (SELECT DISTINCT unnest($1::text[]) AS o) d`, [actors.map((a) => a.origin.host)]);
    return rows.map((r) => r.account_id);
  });
}
