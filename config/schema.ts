// The only reader of process.env. Everything the server can be told from outside is parsed here once, with zod,
// into a frozen, typed Config; a bad value stops start-up with one line naming the variable and the rule.
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_MULTIPART_BYTES, MEDIA_LIMITS } from '../src/media/limits.js';
import type { Config, LocalMediaStorage, S3MediaStorage } from './config.js';

export type { Config, LocalMediaStorage, Registrations, S3MediaStorage } from './config.js';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const flag = z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on');
const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), 'must be an http or https URL')
  .refine((u) => {
    const p = new URL(u);
    return (p.pathname === '/' || p.pathname === '') && !p.search && !p.hash;
  }, 'must be an origin without a path, query or fragment');
const domain = z.string().regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, 'must be a host name, optionally with :port');

/** Raw environment shape: every variable is a string or absent. Defaults that depend on others come after. */
const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  LISTEN_REUSE_PORT: flag.default(false),
  BASE_URL: httpUrl.optional(),
  LOCAL_DOMAIN: domain.optional(),
  DATABASE_URL: z
    .string()
    .refine((u) => /^postgres(ql)?:\/\//.test(u), 'must be a postgres:// or postgresql:// URL')
    .optional(),
  // Absent: twice the cores, at least 4 (defaultPoolMax below).
  DATABASE_POOL_MAX: positiveInt(1, 200).optional(),
  STOA_DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  INSTANCE_TITLE: z.string().min(1).max(200).default('Stoa'),
  INSTANCE_DESCRIPTION: z.string().max(2000).default('A federated social server.'),
  CONTACT_EMAIL: z.string().max(320).default(''),
  REGISTRATIONS: z.enum(['closed', 'approval', 'open']).default('closed'),
  // Lemmy's local_site.enable_downvotes: whether members of the link-aggregator adapter may vote -1 (a Dislike).
  LINK_DOWNVOTES: flag.default(true),
  VERIFY_THREADS_MIN: positiveInt(1, 256).default(1),
  VERIFY_THREADS_MAX: positiveInt(1, 256).optional(),
  VERIFY_QUEUE: positiveInt(1, 1_000_000).default(1024),
  VERIFY_IDLE_MS: positiveInt(100, 3_600_000).default(30_000),
  MAX_BODY_BYTES: positiveInt(1024, 64 * 1024 * 1024).default(1024 * 1024),
  MAX_FORM_BYTES: positiveInt(1024, 64 * 1024 * 1024).default(64 * 1024),
  MAX_MULTIPART_BYTES: positiveInt(1024, 1024 * 1024 * 1024).default(DEFAULT_MULTIPART_BYTES),
  MAX_BODY_BYTES_IN_FLIGHT: positiveInt(1024, 16 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  FEDERATION_ALLOW_PRIVATE: z
    .string()
    .default('false')
    .transform((v, ctx) => {
      const ranges = allowPrivateRanges(v);
      if (!ranges) ctx.addIssue({ code: 'custom', message: 'must be false, true, loopback or a comma-separated list of CIDR ranges' });
      return ranges ?? [];
    }),
  FEDERATION_FETCH_TIMEOUT_MS: positiveInt(100, 120_000).default(10_000),
  FEDERATION_MAX_RESPONSE_BYTES: positiveInt(1024, 64 * 1024 * 1024).default(2 * 1024 * 1024),
  DELIVERY_CONCURRENCY: positiveInt(1, 64).default(4),
  // History jobs wait on remote servers, not on the database: sized by sockets and memory (see historyJobsPerNode).
  HISTORY_JOBS_PER_NODE: positiveInt(1, 256).default(64),
  DELIVERY_RETRY_BASE_MS: positiveInt(10, 3_600_000).default(30_000),
  DELIVERY_GIVE_UP_HOURS: positiveInt(1, 24 * 60).default(72),
  DELIVERY_LEASE_MS: positiveInt(500, 3_600_000).default(60_000),
  INBOX_LEASE_MS: positiveInt(1_000, 3_600_000).default(300_000),
  // Longer than a history job may run (30 s), which each committed page renews it by.
  HISTORY_LEASE_MS: positiveInt(31_000, 3_600_000).default(60_000),
  POLL_UPDATE_LEASE_MS: positiveInt(1_000, 3_600_000).default(60_000),
  NODE_CHECK_MS: positiveInt(100, 60_000).default(2_000),
  POLL_UPDATE_DELAY_MS: positiveInt(0, 3_600_000).default(30_000),
  // Test-only knobs for scheduled posts: Mastodon's 5-minute minimum shortened, and a pause inside the publishing
  // transaction (so a test can kill the node that holds a due post). Leave both unset in production.
  SCHEDULED_MIN_OFFSET_MS: positiveInt(0, 300_000).default(300_000),
  SCHEDULED_PUBLISH_HOLD_MS: positiveInt(0, 600_000).default(0),
  MEDIA_PROXY_RETRY_MS: positiveInt(0, 86_400_000).default(60_000),
  // Video and audio processing (actors/media-processor.ts): the lease a node holds a job under (renewed while ffmpeg
  // runs; a dead node's job is taken over once it runs out), and the wall and CPU time of one ffmpeg run.
  MEDIA_PROCESS_LEASE_MS: positiveInt(1_000, 3_600_000).default(60_000),
  MEDIA_PROCESS_TIMEOUT_MS: positiveInt(1_000, 3_600_000).default(600_000),
  MEDIA_PROCESS_CPU_SECONDS: positiveInt(1, 36_000).default(1_200),
  // Test-only: a pause after a media job is claimed, so a test can kill the node that holds it. Leave unset.
  MEDIA_PROCESS_HOLD_MS: positiveInt(0, 600_000).default(0),
  // Home-feed fan-out (migration 078): an author with more local followers than this has a post's follower rows
  // written by a job in batches of HOME_FANOUT_BATCH follows, not in the posting transaction.
  HOME_FANOUT_THRESHOLD: positiveInt(0, 100_000_000).default(200),
  HOME_FANOUT_BATCH: positiveInt(1, 100_000).default(5_000),
  HOME_FANOUT_LEASE_MS: positiveInt(1_000, 3_600_000).default(30_000),
  // Test-only: a pause between a job's batches, so a test can stop the node holding it halfway. Leave unset.
  HOME_FANOUT_HOLD_MS: positiveInt(0, 600_000).default(0),
  STREAMING_MAX_BUFFERED_BYTES: positiveInt(1024, 64 * 1024 * 1024).default(1024 * 1024),
  STREAMING_HEARTBEAT_MS: positiveInt(100, 300_000).default(15_000),
  MEDIA_PROXY_CACHE_MAX_BYTES: positiveInt(1, MEDIA_LIMITS.videoBytes).default(MEDIA_LIMITS.videoBytes),
  // The rendered-status cache (src/api/status-cache.ts): statuses kept per node, and the memory they may take.
  STATUS_CACHE_MAX_ENTRIES: positiveInt(0, 10_000_000).default(20_000),
  STATUS_CACHE_MAX_BYTES: positiveInt(1024 * 1024, 16 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  INSTANCE_STATS_MAX_AGE_MS: positiveInt(0, 3_600_000).default(60_000),
  SHUTDOWN_GRACE_MS: positiveInt(0, 120_000).default(10_000),
  // The supervisor (`npm start`, `stoa start`): server processes sharing the port, and how many restarts within the
  // period it makes before it gives up and exits non-zero for systemd or Docker to act.
  STOA_PROCESSES: positiveInt(1, 64).default(1),
  STOA_RESTART_INTENSITY: positiveInt(0, 1000).default(5),
  STOA_RESTART_PERIOD_MS: positiveInt(1_000, 3_600_000).default(60_000),
  // A server process kept loaded and waiting, so that a restart skips loading the modules (most of a start).
  STOA_SPARE_PROCESS: flag.default(true),
  // Set by the supervisor for the server processes it starts: they report to it over IPC instead of printing the banner.
  STOA_SUPERVISED: flag.default(false),
  TRUST_PROXY: flag.default(false),
  // A bearer secret for /metrics; short ones are refused, the endpoint shows the server's inner workings.
  // Media storage (src/media/storage.ts): a local directory (the default, STOA_DATA_DIR/media) or, with S3_ENABLED, an
  // S3-compatible bucket under Mastodon's variable names. Every node of a cluster must use the same one.
  MEDIA_DIR: z.string().min(1).optional(),
  S3_ENABLED: flag.default(false),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)')
    .optional(),
  S3_ENDPOINT: z
    .string()
    .url()
    .refine((u) => /^https?:$/.test(new URL(u).protocol), 'must be an http or https URL')
    .optional(),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, 'must be a region name such as us-east-1')
    .default('us-east-1'),
  AWS_ACCESS_KEY_ID: z.string().min(1).max(256).optional(),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).max(256).optional(),
  // Where clients load uploads and members' images straight from the bucket (a CDN or the bucket's public host);
  // absent, the server serves them itself. Remote media always go through the server's proxy.
  S3_ALIAS_HOST: z
    .string()
    .regex(/^[a-z0-9.-]+(:\d{1,5})?(\/[A-Za-z0-9._~/-]*)?$/i, 'must be a host name, optionally with :port and a path')
    .optional(),
  S3_PROTOCOL: z.enum(['http', 'https']).default('https'),
  // Mastodon's: true switches a custom S3_ENDPOINT from path-style (MinIO-likes) to virtual-host addressing.
  S3_OVERRIDE_PATH_STYLE: flag.default(false),
  // Accepted for Mastodon's env files: every file is already one PUT (40 MiB at most, no multipart upload).
  S3_FORCE_SINGLE_REQUEST: flag.default(false),
  S3_OPEN_TIMEOUT: positiveInt(1, 300).default(5),
  S3_READ_TIMEOUT: positiveInt(1, 300).default(5),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(512).optional(),
  METRICS_LISTEN: z
    .string()
    .regex(/^(\[[0-9a-f:.]+\]|[^:\s]+):\d{1,5}$/i, 'must be host:port (an IPv6 address in brackets)')
    .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, 'must have a port up to 65535')
    .optional(),
});

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly rule: string,
  ) {
    super(`Invalid configuration: ${variable} ${rule}`);
    this.name = 'ConfigError';
  }
}

const SECRETS = new Set(['AWS_SECRET_ACCESS_KEY', 'METRICS_TOKEN']);

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  // Empty strings count as unset, as in most process managers' env files.
  const raw: Env = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    // A secret is not written to the log, even a wrong one.
    const got = SECRETS.has(variable) ? `a value of ${raw[variable]?.length ?? 0} characters` : JSON.stringify(raw[variable]);
    throw new ConfigError(variable, `${describe(issue.message)} (got ${got})`);
  }
  const e = parsed.data;
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const localDomain = (e.LOCAL_DOMAIN ?? new URL(baseUrl).host).toLowerCase();
  const cores = navigatorCores();
  const maxThreads = e.VERIFY_THREADS_MAX ?? Math.max(e.VERIFY_THREADS_MIN, cores);
  if (maxThreads < e.VERIFY_THREADS_MIN) {
    throw new ConfigError('VERIFY_THREADS_MAX', `must be at least VERIFY_THREADS_MIN (${e.VERIFY_THREADS_MIN}) (got ${maxThreads})`);
  }
  // A body within its route's limit but over the whole budget could never be admitted: it would get 503 forever.
  // Multipart bodies stream to disk and are not held in memory, so only JSON and form limits count.
  const largestBody = Math.max(e.MAX_BODY_BYTES, e.MAX_FORM_BYTES);
  if (e.MAX_BODY_BYTES_IN_FLIGHT < largestBody) {
    throw new ConfigError('MAX_BODY_BYTES_IN_FLIGHT', `must be at least the largest body limit (${largestBody}) (got ${e.MAX_BODY_BYTES_IN_FLIGHT})`);
  }
  const dataDir = path.resolve(e.STOA_DATA_DIR);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    listenReusePort: e.LISTEN_REUSE_PORT,
    baseUrl,
    localDomain,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX ?? defaultPoolMax(),
    dataDir,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    instance: Object.freeze({
      title: e.INSTANCE_TITLE,
      description: e.INSTANCE_DESCRIPTION,
      contactEmail: e.CONTACT_EMAIL,
      statsMaxAgeMs: e.INSTANCE_STATS_MAX_AGE_MS,
    }),
    statusCache: Object.freeze({ maxEntries: e.STATUS_CACHE_MAX_ENTRIES, maxBytes: e.STATUS_CACHE_MAX_BYTES }),
    registrations: e.REGISTRATIONS,
    linkAggregator: Object.freeze({ downvotes: e.LINK_DOWNVOTES }),
    verifyPool: Object.freeze({ minThreads: e.VERIFY_THREADS_MIN, maxThreads, maxQueue: e.VERIFY_QUEUE, idleTimeoutMs: e.VERIFY_IDLE_MS }),
    limits: Object.freeze({
      bodyBytes: e.MAX_BODY_BYTES,
      formBytes: e.MAX_FORM_BYTES,
      multipartBytes: e.MAX_MULTIPART_BYTES,
      bodyBytesInFlight: e.MAX_BODY_BYTES_IN_FLIGHT,
      streamingBufferedBytes: e.STREAMING_MAX_BUFFERED_BYTES,
      streamingHeartbeatMs: e.STREAMING_HEARTBEAT_MS,
    }),
    federation: Object.freeze({
      allowPrivate: Object.freeze(e.FEDERATION_ALLOW_PRIVATE),
      fetchTimeoutMs: e.FEDERATION_FETCH_TIMEOUT_MS,
      maxResponseBytes: e.FEDERATION_MAX_RESPONSE_BYTES,
      deliveryConcurrency: e.DELIVERY_CONCURRENCY,
      historyJobsPerNode: e.HISTORY_JOBS_PER_NODE,
      // A job takes a connection only to read or commit, never across a fetch; the API and the queues need the rest.
      historyDbConnections: Math.max(1, Math.ceil((e.DATABASE_POOL_MAX ?? defaultPoolMax()) / 3)),
      deliveryRetryBaseMs: e.DELIVERY_RETRY_BASE_MS,
      deliveryGiveUpMs: e.DELIVERY_GIVE_UP_HOURS * 3_600_000,
      deliveryLeaseMs: e.DELIVERY_LEASE_MS,
      inboxLeaseMs: e.INBOX_LEASE_MS,
      historyLeaseMs: e.HISTORY_LEASE_MS,
      pollUpdateLeaseMs: e.POLL_UPDATE_LEASE_MS,
      nodeCheckMs: e.NODE_CHECK_MS,
      pollUpdateDelayMs: e.POLL_UPDATE_DELAY_MS,
      mediaProxyRetryMs: e.MEDIA_PROXY_RETRY_MS,
      mediaProxyCacheMaxBytes: e.MEDIA_PROXY_CACHE_MAX_BYTES,
    }),
    media: Object.freeze({
      storage: Object.freeze(mediaStorage(e, dataDir)),
      processing: Object.freeze({
        leaseMs: e.MEDIA_PROCESS_LEASE_MS,
        timeoutMs: e.MEDIA_PROCESS_TIMEOUT_MS,
        cpuSeconds: e.MEDIA_PROCESS_CPU_SECONDS,
        holdMs: e.MEDIA_PROCESS_HOLD_MS,
      }),
      publicUrl: e.S3_ENABLED && e.S3_ALIAS_HOST !== undefined ? `${e.S3_PROTOCOL}://${e.S3_ALIAS_HOST.replace(/\/+$/, '')}` : undefined,
    }),
    homeFeed: Object.freeze({
      fanOutThreshold: e.HOME_FANOUT_THRESHOLD,
      batch: e.HOME_FANOUT_BATCH,
      leaseMs: e.HOME_FANOUT_LEASE_MS,
      holdMs: e.HOME_FANOUT_HOLD_MS,
    }),
    scheduled: Object.freeze({ minOffsetMs: e.SCHEDULED_MIN_OFFSET_MS, publishHoldMs: e.SCHEDULED_PUBLISH_HOLD_MS }),
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    supervisor: Object.freeze({
      processes: e.STOA_PROCESSES,
      restartIntensity: e.STOA_RESTART_INTENSITY,
      restartPeriodMs: e.STOA_RESTART_PERIOD_MS,
      spare: e.STOA_SPARE_PROCESS,
    }),
    supervised: e.STOA_SUPERVISED,
    trustProxy: e.TRUST_PROXY,
    metrics: Object.freeze({ token: e.METRICS_TOKEN, listen: e.METRICS_LISTEN === undefined ? undefined : hostPort(e.METRICS_LISTEN) }),
  });
}

function mediaStorage(e: z.infer<typeof EnvSchema>, dataDir: string): LocalMediaStorage | S3MediaStorage {
  if (!e.S3_ENABLED) return { kind: 'local', dir: path.resolve(e.MEDIA_DIR ?? path.join(dataDir, 'media')) };
  if (e.S3_BUCKET === undefined) throw new ConfigError('S3_BUCKET', 'must be set when S3_ENABLED is true');
  // Both keys or neither (then the SDK's own chain: an instance role, ~/.aws); a secret is never echoed back.
  if ((e.AWS_ACCESS_KEY_ID === undefined) !== (e.AWS_SECRET_ACCESS_KEY === undefined)) {
    throw new ConfigError(e.AWS_ACCESS_KEY_ID === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY', 'must be set with its pair');
  }
  return {
    kind: 's3',
    bucket: e.S3_BUCKET,
    endpoint: e.S3_ENDPOINT,
    region: e.S3_REGION,
    accessKeyId: e.AWS_ACCESS_KEY_ID,
    secretAccessKey: e.AWS_SECRET_ACCESS_KEY,
    forcePathStyle: e.S3_ENDPOINT !== undefined && !e.S3_OVERRIDE_PATH_STYLE,
    openTimeoutMs: e.S3_OPEN_TIMEOUT * 1000,
    readTimeoutMs: e.S3_READ_TIMEOUT * 1000,
  };
}

function hostPort(v: string): { host: string; port: number } {
  const i = v.lastIndexOf(':');
  return Object.freeze({ host: v.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(v.slice(i + 1)) });
}

function describe(message: string): string {
  // Our own refinements already read as a rule ("must be ..."); zod's built-in messages describe the expectation.
  return message.startsWith('must') ? message : 'is invalid: ' + message.charAt(0).toLowerCase() + message.slice(1);
}

const LOOPBACK = ['127.0.0.0/8', '::1/128'];
const ALL_PRIVATE = ['0.0.0.0/0', '::/0'];

/** FEDERATION_ALLOW_PRIVATE: false, true (everything), loopback, or CIDR ranges; undefined when invalid. */
function allowPrivateRanges(v: string): string[] | undefined {
  const t = v.trim().toLowerCase();
  if (['false', '0', 'no', 'off'].includes(t)) return [];
  if (['true', '1', 'yes', 'on'].includes(t)) return ALL_PRIVATE;
  const out: string[] = [];
  for (const part of t
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (part === 'loopback') {
      out.push(...LOOPBACK);
      continue;
    }
    const m = /^([0-9a-f:.]+)\/(\d{1,3})$/.exec(part);
    const family = m ? isIP(m[1]!) : 0;
    if (!m || family === 0 || Number(m[2]) > (family === 4 ? 32 : 128)) return undefined;
    out.push(part);
  }
  return out.length ? out : undefined;
}

/**
 * Connections per process when DATABASE_POOL_MAX is absent: twice the cores, at least 4 (the usual rule for a pool
 * in front of PostgreSQL, cores × 2 plus disks). More connections than PostgreSQL can run at once only queue inside
 * it: on a 2-core machine the home page served 1,280–1,360 req/s at 10 and 1,510–1,710 at 4 (bench/RESULTS.md,
 * issue 19). `npm run bench -- --advise` measures it on the machine at hand.
 */
function defaultPoolMax(): number {
  return Math.max(4, 2 * navigatorCores());
}

function navigatorCores(): number {
  // availableParallelism respects CPU affinity, unlike cpus().length.
  return Math.max(1, os.availableParallelism());
}
