// The Config the code sees: what loadConfig (schema.ts) returns, frozen and typed, with the media storage's two
// shapes. Nothing here reads the environment.

export type Registrations = 'closed' | 'approval' | 'open';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Share the port with other processes that ask the same (SO_REUSEPORT); otherwise a port in use stops start-up. */
  readonly listenReusePort: boolean;
  /** The hosting origin clients use, without a trailing slash. */
  readonly baseUrl: string;
  /** The domain in handles (WebFinger); may differ from baseUrl's host on a split-domain installation. */
  readonly localDomain: string;
  /** Absent: start the embedded PostgreSQL under dataDir. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolMax: number;
  readonly dataDir: string;
  readonly logLevel: string;
  /** Absent: pretty when stdout is a terminal, JSON lines otherwise. */
  readonly logFormat: 'json' | 'pretty' | undefined;
  readonly instance: {
    readonly title: string;
    readonly description: string;
    readonly contactEmail: string;
    /** How long the instance documents and NodeInfo's counts are served from memory (0: counted on every request). */
    readonly statsMaxAgeMs: number;
  };
  /** The rendered-status cache's bounds (maxEntries 0: off, every page rendered from the database). */
  readonly statusCache: { readonly maxEntries: number; readonly maxBytes: number };
  readonly registrations: Registrations;
  /** The link-aggregator adapter (/api/v3): whether members may downvote (Lemmy's enable_downvotes). */
  readonly linkAggregator: { readonly downvotes: boolean };
  readonly verifyPool: { readonly minThreads: number; readonly maxThreads: number; readonly maxQueue: number; readonly idleTimeoutMs: number };
  readonly limits: {
    readonly bodyBytes: number;
    readonly formBytes: number;
    readonly multipartBytes: number;
    /** All request bodies held in memory at once (http/body-budget.ts); a body past it is refused with 503. */
    readonly bodyBytesInFlight: number;
    /** What a streaming client (WebSocket or SSE) may leave unread in the server's buffers before it is closed. */
    readonly streamingBufferedBytes: number;
    /** How often SSE streams get a `:thump` comment (Mastodon: 15 s). */
    readonly streamingHeartbeatMs: number;
  };
  readonly federation: {
    /** CIDR ranges of non-public address space that remote fetches and deliveries may reach anyway (tests: loopback). */
    readonly allowPrivate: readonly string[];
    readonly fetchTimeoutMs: number;
    readonly maxResponseBytes: number;
    /** Deliveries in flight at once per destination host. */
    readonly deliveryConcurrency: number;
    /**
     * Remote history jobs running at once on this node, whatever their origins. A job mostly waits on its origin
     * (up to 30 s), holding one socket and at most one 2 MiB answer, and no database connection: 64 cost 64 sockets
     * and, only if all of them are reading a full answer at the same moment, 128 MiB.
     */
    readonly historyJobsPerNode: number;
    /** Database connections the node's history jobs use at once (claims, lookups, page commits): a third of the pool. */
    readonly historyDbConnections: number;
    /** First retry delay; each later one doubles, with jitter. */
    readonly deliveryRetryBaseMs: number;
    readonly deliveryGiveUpMs: number;
    /** How long a claimed delivery stays claimed before another worker may take it (crash recovery). */
    readonly deliveryLeaseMs: number;
    /**
     * The leases of the other kinds of work: how long a claimed inbox job, remote history job or poll Update stays
     * claimed by a node that still lives (a dead node's leases are given back within nodeCheckMs).
     */
    readonly inboxLeaseMs: number;
    readonly historyLeaseMs: number;
    readonly pollUpdateLeaseMs: number;
    /** How often each node looks whether another is gone (one query of pg_stat_activity), to give back its work. */
    readonly nodeCheckMs: number;
    /** How long after a vote a local poll's new counts go out (one Update for all votes in that time). */
    readonly pollUpdateDelayMs: number;
    /** How long the media proxy answers a remote file's failed fetch from memory before asking its origin again. */
    readonly mediaProxyRetryMs: number;
    /** The largest remote video or audio file the media proxy keeps; a larger one is passed through range by range. */
    readonly mediaProxyCacheMaxBytes: number;
  };
  readonly media: {
    /** Where files are kept: a local directory, or an S3-compatible bucket (then `dir` is unused). */
    readonly storage: LocalMediaStorage | S3MediaStorage;
    /** S3_ALIAS_HOST as an origin and path (`https://files.example`): uploads and members' images are loaded there. */
    readonly publicUrl: string | undefined;
    /** Video and audio processing: the job lease, and each ffmpeg run's wall and CPU time; holdMs is test-only. */
    readonly processing: { readonly leaseMs: number; readonly timeoutMs: number; readonly cpuSeconds: number; readonly holdMs: number };
  };
  /** Home-feed fan-out (migration 078, decision 0065). */
  readonly homeFeed: {
    /** Local followers past which a post's follower rows are written by a job, not in the posting transaction. */
    readonly fanOutThreshold: number;
    /** Follows per batch of a job (one statement, ~6 µs each). */
    readonly batch: number;
    /** How long a node holds a job between batches before another may take it over. */
    readonly leaseMs: number;
    /** Test-only: a pause between batches (0). */
    readonly holdMs: number;
  };
  /** Scheduled posts; both values exist for tests (the defaults are Mastodon's rule and no pause). */
  readonly scheduled: {
    /** How far ahead a post must be scheduled: Mastodon's PostStatusService::MIN_SCHEDULE_OFFSET, 5 minutes. */
    readonly minOffsetMs: number;
    /** A pause after a due post is published and before its transaction commits (a kill test's window); 0. */
    readonly publishHoldMs: number;
  };
  readonly shutdownGraceMs: number;
  /** The supervisor above the server processes (src/cli/supervise.ts). */
  readonly supervisor: {
    /** Server processes started, sharing the port (SO_REUSEPORT), each a node of the cluster. */
    readonly processes: number;
    /** More restarts than this within periodMs: the supervisor stops everything and exits non-zero. */
    readonly restartIntensity: number;
    readonly restartPeriodMs: number;
    /** Keep one more server process loaded and waiting, to take a dead one's place at once. */
    readonly spare: boolean;
  };
  /** This process was started by the supervisor: it reports serving over IPC and stops if the supervisor goes. */
  readonly supervised: boolean;
  readonly trustProxy: boolean;
  /** /metrics: off unless a token (served by the main server) or a listen address (a separate listener) is given. */
  readonly metrics: {
    /** Required as `Authorization: Bearer <token>` wherever /metrics is served. */
    readonly token: string | undefined;
    /** A listener serving only /metrics (e.g. 127.0.0.1:9394), apart from the public port. */
    readonly listen: { readonly host: string; readonly port: number } | undefined;
  };
}

export interface LocalMediaStorage {
  readonly kind: 'local';
  readonly dir: string;
}

export interface S3MediaStorage {
  readonly kind: 's3';
  readonly bucket: string;
  readonly endpoint: string | undefined;
  readonly region: string;
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  readonly forcePathStyle: boolean;
  readonly openTimeoutMs: number;
  readonly readTimeoutMs: number;
}
