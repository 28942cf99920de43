// The request side of remote history (issue 16, contract 1): reading a remote actor's history record, a member's
// ask for its history (queued, coalesced, refused while its origin is full), and the retention clock of a profile
// view. Claiming, leases and progress belong to the scheduler's store (history-jobs.ts).
//
// A request runs in ONE transaction under an advisory lock per origin, so the per-origin queue limit holds across
// nodes: two members asking at once on two nodes are counted one after the other. Queueing notifies WORK_CHANNEL
// (`history:<origin>`) in the same transaction, so every node's scheduler hears of it when it commits.
import type { Account } from './accounts.js';
import { WORK_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';
import { HISTORY_LIMITS, type HistoryReason, type HistoryRecord, type HistoryState, type UnsupportedReason } from './history-types.js';

/** 'initial': a profile view (acts only from idle); 'older': the member's ask (idle: initial fetch; partial: one more page). */
export type HistoryRequestKind = 'initial' | 'older';

/**
 * Why an origin refuses another actor's job: a job of it runs (`fetching`), none runs yet but the oldest queued one
 * is about to (`starting`, counted as running), or the origin asked us to wait and its queue waits with it
 * (`origin_backoff`); in each case two more of its actors are queued.
 */
export type OriginBusy = 'fetching' | 'starting' | 'origin_backoff';

/** What a request did; `record` is the actor's record afterwards (an idle one when there is still no row). */
export type HistoryRequestOutcome =
  | { readonly kind: 'queued'; readonly record: HistoryRecord }
  | { readonly kind: 'coalesced'; readonly record: HistoryRecord }
  | { readonly kind: 'unchanged'; readonly record: HistoryRecord }
  | {
      readonly kind: 'origin_busy';
      readonly record: HistoryRecord;
      readonly why: OriginBusy;
      /** Other actors' jobs waiting on the origin (the one counted as running, when none runs, included). */
      readonly queued: number;
      readonly retryAfterSeconds: number;
    };

/** The actor types whose outbox is a person's posts (spec: a remote Person or Service profile). */
const SUPPORTED_TYPES = new Set(['Person', 'Service']);

/** A refused request asks again after one job's longest run: the origin's running (or next) job frees a place by then. */
const BUSY_RETRY_SECONDS = Math.ceil(HISTORY_LIMITS.jobMs / 1000);
/** An origin has no more than this of other actors' jobs, running or queued, when a new one is queued. */
const ORIGIN_JOBS = HISTORY_LIMITS.runningPerOrigin + HISTORY_LIMITS.queuedPerOrigin;

const COLUMNS = `account_id, origin, state, reason, cursor, pages_budget, items_examined, items_imported, pages_fetched,
  last_fetched_at, attempts, retry_at`;

type HistoryRow = {
  account_id: string;
  origin: string;
  state: HistoryState;
  reason: HistoryReason | null;
  cursor: string | null;
  pages_budget: number;
  items_examined: number;
  items_imported: number;
  pages_fetched: number;
  last_fetched_at: Date | null;
  attempts: number;
  retry_at: Date | null;
};

function toRecord(r: HistoryRow): HistoryRecord {
  return {
    accountId: r.account_id,
    origin: r.origin,
    state: r.state,
    reason: r.reason,
    cursor: r.cursor,
    pagesBudget: r.pages_budget,
    itemsExamined: r.items_examined,
    itemsImported: r.items_imported,
    pagesFetched: r.pages_fetched,
    lastFetchedAt: r.last_fetched_at,
    attempts: r.attempts,
    retryAt: r.retry_at,
  };
}

/** The record of an actor whose history was never asked for. */
export function idleRecord(accountId: string, origin: string): HistoryRecord {
  return {
    accountId,
    origin,
    state: 'idle',
    reason: null,
    cursor: null,
    pagesBudget: 0,
    itemsExamined: 0,
    itemsImported: 0,
    pagesFetched: 0,
    lastFetchedAt: null,
    attempts: 0,
    retryAt: null,
  };
}

/** Lower-case `host[:port]` of a URL (the URL parser lower-cases and drops default ports); null when it is none. */
function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** Where the account's history would come from, or why it cannot (contract 1; the cross-origin rule is our P32). */
function classify(a: Account): { readonly origin: string; readonly outbox: string } | { readonly origin: string; readonly refused: UnsupportedReason } {
  const actorOrigin = hostOf(a.uri) ?? a.domain ?? '';
  // Suspended by a moderator or with its domain: nothing is fetched from it.
  if (a.suspendedAt) return { origin: actorOrigin, refused: 'federation_policy' };
  if (!SUPPORTED_TYPES.has(a.actorType)) return { origin: actorOrigin, refused: 'actor_type' };
  const outboxOrigin = hostOf(a.outboxUrl);
  if (!outboxOrigin || !a.outboxUrl) return { origin: actorOrigin, refused: 'no_outbox' };
  if (outboxOrigin !== actorOrigin) return { origin: actorOrigin, refused: 'cross_origin' };
  return { origin: outboxOrigin, outbox: a.outboxUrl };
}

export class RemoteHistoryStore {
  constructor(private readonly db: Database) {}

  /** The actor's record; null when its history was never asked for (idle). */
  async get(accountId: string): Promise<HistoryRecord | null> {
    const r = await this.db.one<HistoryRow>(`SELECT ${COLUMNS} FROM remote_histories WHERE account_id = $1`, [accountId]);
    return r ? toRecord(r) : null;
  }

  /**
   * Refreshes the retention clock of the actor's history posts (a member viewed the profile); answers the state,
   * null when there is no record, so a profile view costs one statement when nothing needs queueing.
   */
  async touchViewed(accountId: string): Promise<HistoryState | null> {
    const r = await this.db.one<{ state: HistoryState }>('UPDATE remote_histories SET viewed_at = now() WHERE account_id = $1 RETURNING state', [accountId]);
    return r?.state ?? null;
  }

  /** A member's request for the remote account's history (the caller checked the feature is on and the account remote). */
  request(account: Account, kind: HistoryRequestKind): Promise<HistoryRequestOutcome> {
    const where = classify(account);
    return this.db.tx(async () => {
      await this.db.exec("SELECT pg_advisory_xact_lock(hashtext('history-origin:' || $1))", [where.origin]);
      const row = await this.db.one<HistoryRow>(`SELECT ${COLUMNS} FROM remote_histories WHERE account_id = $1 FOR UPDATE`, [account.id]);
      const current = row ? toRecord(row) : idleRecord(account.id, where.origin);
      switch (current.state) {
        case 'queued':
        case 'fetching':
          return { kind: 'coalesced', record: current };
        case 'backoff':
          // Past retry_at the job is due again by itself (the scheduler claims it): the same job, coalesced.
          return current.retryAt && current.retryAt.getTime() <= Date.now() ? { kind: 'coalesced', record: current } : { kind: 'unchanged', record: current };
        case 'complete':
        case 'unsupported':
          return { kind: 'unchanged', record: current };
        case 'partial':
          if (kind === 'initial') return { kind: 'unchanged', record: current };
          return this.enqueue(current, account.id, current.origin, null, HISTORY_LIMITS.olderPages);
        case 'idle': {
          if ('refused' in where) {
            const r = await this.db.one<HistoryRow>(
              `INSERT INTO remote_histories (account_id, origin, state, reason) VALUES ($1, $2, 'unsupported', $3)
               ON CONFLICT (account_id) DO UPDATE SET origin = EXCLUDED.origin, state = 'unsupported', reason = EXCLUDED.reason
               RETURNING ${COLUMNS}`,
              [account.id, where.origin, where.refused],
            );
            return { kind: 'unchanged', record: toRecord(r!) };
          }
          return this.enqueue(current, account.id, where.origin, where.outbox, HISTORY_LIMITS.initialDocuments);
        }
      }
    });
  }

  /**
   * Queues a job unless the origin is full: 1 running and 2 queued (spec: Limits), other actors', cluster-wide. Decided
   * on the rows as they stand under the origin's lock, in the insert's transaction: with none running, the oldest
   * queued job counts as the running one (a scheduler claims it next), so asks that arrive together on an idle origin
   * are judged as if the first had been claimed already, not refused while it waits for a scheduler's round. Queued
   * are `queued` rows, backoffs already due and runs whose lease ran out (claimable again). `cursor` null keeps the
   * record's cursor (Load older goes on where it stopped).
   */
  private async enqueue(current: HistoryRecord, accountId: string, origin: string, cursor: string | null, pagesBudget: number): Promise<HistoryRequestOutcome> {
    const load = (await this.db.one<{ running: number; queued: number; backoff_ms: number | null }>(
      `SELECT count(*) FILTER (WHERE state = 'fetching' AND lease_until > now())::int AS running,
         count(*) FILTER (WHERE state = 'queued' OR (state = 'backoff' AND retry_at <= now())
                            OR (state = 'fetching' AND coalesce(lease_until, now()) <= now()))::int AS queued,
         (SELECT (extract(epoch FROM backoff_until - now()) * 1000)::float8 FROM history_origins
          WHERE origin = $1 AND backoff_until > now()) AS backoff_ms
       FROM remote_histories WHERE origin = $1 AND account_id <> $2`,
      [origin, accountId],
    ))!;
    if (Math.min(load.running, HISTORY_LIMITS.runningPerOrigin) + load.queued >= ORIGIN_JOBS) {
      // The queue moves when the running job ends (30 s at most), or, with nothing running, once the origin's
      // backoff is over and the next job has run.
      const why: OriginBusy = load.running > 0 ? 'fetching' : load.backoff_ms !== null ? 'origin_backoff' : 'starting';
      const retryAfterSeconds = why === 'origin_backoff' ? Math.ceil(load.backoff_ms! / 1000) + BUSY_RETRY_SECONDS : BUSY_RETRY_SECONDS;
      return { kind: 'origin_busy', record: current, why, queued: load.queued, retryAfterSeconds };
    }
    const r = await this.db.one<HistoryRow>(
      `INSERT INTO remote_histories (account_id, origin, state, cursor, pages_budget, queued_at)
       VALUES ($1, $2, 'queued', $3, $4, now())
       ON CONFLICT (account_id) DO UPDATE SET origin = EXCLUDED.origin, state = 'queued', reason = NULL,
         cursor = COALESCE(EXCLUDED.cursor, remote_histories.cursor), pages_budget = EXCLUDED.pages_budget, queued_at = now(),
         retry_at = NULL
       RETURNING ${COLUMNS}`,
      [accountId, origin, cursor, pagesBudget],
    );
    await this.db.exec(`SELECT pg_notify('${WORK_CHANNEL}', 'history:' || $1)`, [origin]);
    return { kind: 'queued', record: toRecord(r!) };
  }
}
