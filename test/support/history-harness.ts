// Running one remote-history job directly (the scheduler is another piece): a remote actor stored from a fake
// origin, a ClaimedJob for it, and an in-test JobLedger that commits each page's imports and progress in one
// transaction, as the real ledger does, and remembers what it committed.
import type { HistoryRunner } from '../../src/history/history-runner.js';
import type { Account } from '../../src/store/accounts.js';
import type { Database } from '../../src/store/db.js';
import { HISTORY_LIMITS, type ClaimedJob, type JobLedger, type JobOutcome, type PageProgress } from '../../src/store/history-types.js';
import { api, type Json } from './api.js';
import type { TestServer } from './server.js';

export class TestLedger implements JobLedger {
  readonly pages: PageProgress[] = [];
  /** The cursor as committed (the job's cursor until a page commits). */
  cursor: string | null;
  /** When true, commitPage answers false (another node took the lease) and commits nothing. */
  leaseLost = false;
  /** When true, the page's work runs and then the commit fails (a crash mid-page). */
  crashAfterWork = false;

  constructor(
    private readonly db: Database,
    start: string,
  ) {
    this.cursor = start;
  }

  async commitPage(_job: ClaimedJob, progress: PageProgress, work: () => Promise<void>): Promise<boolean> {
    if (this.leaseLost) return false;
    return this.db.tx(async () => {
      await work();
      if (this.crashAfterWork) throw new Error('crash mid-page');
      this.pages.push({ ...progress });
      this.cursor = progress.nextCursor;
      return true;
    });
  }

  get examined(): number {
    return this.pages.reduce((n, p) => n + p.examined, 0);
  }

  get imported(): number {
    return this.pages.reduce((n, p) => n + p.imported, 0);
  }
}

export interface RunOptions {
  /** Default: the account's outbox. */
  cursor?: string;
  /** Default: the initial fetch's 2 documents. */
  budget?: number;
  attempts?: number;
  runner?: HistoryRunner;
  signal?: AbortSignal;
  ledger?: TestLedger;
}

export interface RunResult {
  readonly outcome: JobOutcome;
  readonly ledger: TestLedger;
}

/** The remote account of an actor served by a fake origin (fetched and stored as Stoa stores any actor). */
export function remoteAccount(s: TestServer, actorUri: string): Promise<Account> {
  return s.app.federation.remote.byUri(actorUri);
}

export async function runHistory(s: TestServer, account: Account, opts: RunOptions = {}): Promise<RunResult> {
  const cursor = opts.cursor ?? account.outboxUrl!;
  const job: ClaimedJob = {
    accountId: account.id,
    origin: new URL(cursor).host,
    cursor,
    pagesBudget: opts.budget ?? HISTORY_LIMITS.initialDocuments,
    owner: 'test-node',
    attempts: opts.attempts ?? 0,
  };
  const ledger = opts.ledger ?? new TestLedger(s.app.db, cursor);
  const runner = opts.runner ?? s.app.federation.history;
  const outcome = await runner.run(job, ledger, opts.signal ?? new AbortController().signal);
  return { outcome, ledger };
}

export async function setBareIri(s: TestServer, bareIri: boolean): Promise<void> {
  // Through the server's own (cached) settings: its next read sees the change at once, not when the NOTIFY arrives.
  await s.app.history.settings.update({ bareIri });
}

/** The account's statuses as a member sees them (GET /api/v1/accounts/:id/statuses), newest first. */
export async function statusesOf(s: TestServer, token: string, accountId: string): Promise<Json[]> {
  const r = await api(s.url, token, 'GET', `/api/v1/accounts/${accountId}/statuses?limit=40`);
  if (r.status !== 200) throw new Error(`account statuses: ${r.status} ${r.text}`);
  return r.body as Json[];
}

/** A status's text without markup (servers wrap it differently). */
export function plain(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
