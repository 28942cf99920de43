// The shapes of remote history shared by its store, its engine (src/history), its scheduler (actors) and its API:
// the states of the spec's table, the stable reason codes, a claimed job and what a job's run comes to.

export const HISTORY_STATES = ['idle', 'queued', 'fetching', 'partial', 'complete', 'unsupported', 'backoff'] as const;
export type HistoryState = (typeof HISTORY_STATES)[number];

/** Why a history cannot be fetched (state `unsupported`); stable codes clients may show. */
export type UnsupportedReason =
  | 'actor_type'
  | 'no_outbox'
  | 'not_found'
  | 'gone'
  | 'forbidden'
  | 'not_a_collection'
  | 'too_large'
  | 'attribution'
  | 'cross_origin'
  | 'federation_policy';

/** Why a fetch is delayed (state `backoff`, with `retry_at`). */
export type BackoffReason = 'rate_limited' | 'timeout' | 'transport' | 'server_error';

export type HistoryReason = UnsupportedReason | BackoffReason;

/** The fixed work limits (spec: Limits). Not configuration: the spec fixes them. */
export const HISTORY_LIMITS = {
  /** Collection documents the initial fetch may read (the outbox and its first page, typically). */
  initialDocuments: 2,
  /** Pages each "Load older posts" may read. */
  olderPages: 1,
  /** Items examined per page, every item counting (Likes, stubs, refused ones). */
  itemsPerPage: 20,
  /** Bytes of one JSON response, decompressed. */
  responseBytes: 2 * 1024 * 1024,
  /** A job stops here and keeps its cursor. */
  jobMs: 30_000,
  /** Objects fetched one by one per page when bare-IRI resolution is on. */
  bareIriFetchesPerPage: 5,
  /** Per origin, cluster-wide. */
  runningPerOrigin: 1,
  queuedPerOrigin: 2,
} as const;

/** One remote actor's history record, as the API shows it and the engine moves it. */
export interface HistoryRecord {
  readonly accountId: string;
  readonly origin: string;
  readonly state: HistoryState;
  readonly reason: HistoryReason | null;
  /** The next collection document to fetch; null once the walk has no next page. */
  readonly cursor: string | null;
  readonly pagesBudget: number;
  readonly itemsExamined: number;
  readonly itemsImported: number;
  readonly pagesFetched: number;
  readonly lastFetchedAt: Date | null;
  readonly attempts: number;
  readonly retryAt: Date | null;
}

/** A job a node holds the lease of: where to start and how many documents it may read. */
export interface ClaimedJob {
  readonly accountId: string;
  readonly origin: string;
  /** The document to fetch first (the outbox URL for an initial fetch). */
  readonly cursor: string;
  /** Collection documents this run may fetch (HISTORY_LIMITS.initialDocuments or olderPages). */
  readonly pagesBudget: number;
  readonly owner: string;
  /** Consecutive failed attempts before this run. */
  readonly attempts: number;
}

/** What one page of a run adds: committed with the page's imports in one transaction. */
export interface PageProgress {
  /** The document to fetch next; null when the collection has no unfetched next page. */
  readonly nextCursor: string | null;
  readonly examined: number;
  readonly imported: number;
}

/** How a run ended; the scheduler records it (store/history-jobs.ts). */
export type JobOutcome =
  | { readonly kind: 'partial' } // the budget or the 30 s ran out with a next page left (the cursor was committed)
  | { readonly kind: 'complete' } // no unfetched next page, or a page that added nothing new
  | { readonly kind: 'unsupported'; readonly reason: UnsupportedReason }
  | { readonly kind: 'backoff'; readonly reason: BackoffReason; readonly retryAt: Date; readonly originWide: boolean }
  | { readonly kind: 'lease_lost' }; // another node took the job over: nothing to record

/** How a run commits its pages: the work (imports) and the progress in one transaction, only while the lease holds. */
export interface JobLedger {
  /** Runs `work` and records `progress` atomically; false (nothing committed) when the lease was lost. */
  commitPage(job: ClaimedJob, progress: PageProgress, work: () => Promise<void>): Promise<boolean>;
  /**
   * Runs `job`'s database reads within the node's share of connections for history (absent: as they come). Never
   * around a remote fetch, and never inside `commitPage`'s work (it holds a share already).
   */
  read?<T>(job: ClaimedJob, fn: () => Promise<T>): Promise<T>;
}

/** The operator's settings (database, changeable at run time through the admin API). */
export interface HistorySettings {
  readonly enabled: boolean;
  /** Resolve bare-IRI items (GoToSocial outboxes) by fetching each object, 5 per page at most. */
  readonly bareIri: boolean;
  /** Days a history post is kept after its profile was last viewed (1–3650). */
  readonly retentionDays: number;
}

export const DEFAULT_HISTORY_SETTINGS: HistorySettings = Object.freeze({ enabled: false, bareIri: false, retentionDays: 90 });
