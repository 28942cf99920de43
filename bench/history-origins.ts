// Loopback origins for the remote-history bench: `count` listening ports of one node:http handler, each port an
// origin of its own (Stoa keys origins by host:port). Any /users/<name> is a Person whose outbox's first page holds
// 20 public Notes (each a Create with an inline object, attributed to the actor, on its origin) and names a next
// page: an initial fetch reads the outbox and that page, imports 20 posts and ends `partial`. Documents are made per
// request, so any number of actors on any origin cost nothing to set up. (test/support/history-origin.ts is the
// tests' origin, with one port and the pitfalls; the bench needs many ports and nothing else.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { HistorySettingsStore } from '../src/store/history-settings.js';
import { migrate } from '../src/store/migrate.js';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { Endings, queueInitialFetches, stats, TRACE_SQL, type Ms } from './history-trace.js';
import { startStoa, type StoaProcess } from './processes.js';
import { loadavg } from './machine.js';

const AP_JSON = 'application/activity+json';
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
export const ITEMS_PER_PAGE = 20;

export interface BenchOrigin {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `127.0.0.1:<port>`: the origin key (and account domain) Stoa keeps. */
  readonly host: string;
}

export interface BenchOrigins {
  readonly origins: readonly BenchOrigin[];
  /** Requests answered so far, all ports. */
  requests(): number;
  close(): Promise<void>;
}

function page(actor: string, n: number): unknown {
  const outbox = `${actor}/outbox`;
  const items = Array.from({ length: ITEMS_PER_PAGE }, (_, i) => {
    const k = (n - 1) * ITEMS_PER_PAGE + i + 1;
    const published = new Date(Date.UTC(2024, 0, 1) - k * 3_600_000).toISOString();
    return {
      id: `${actor}/statuses/${k}/activity`,
      type: 'Create',
      actor,
      published,
      to: [PUBLIC],
      cc: [`${actor}/followers`],
      object: {
        id: `${actor}/statuses/${k}`,
        type: 'Note',
        attributedTo: actor,
        to: [PUBLIC],
        cc: [`${actor}/followers`],
        content: `<p>older post number ${k}, with a few words so that it is no empty shell</p>`,
        published,
        url: `${actor}/statuses/${k}`,
        tag: [{ type: 'Hashtag', name: '#bench', href: `${actor.slice(0, actor.indexOf('/users/'))}/tags/bench` }],
      },
    };
  });
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${outbox}?page=${n}`,
    type: 'OrderedCollectionPage',
    partOf: outbox,
    next: `${outbox}?page=${n + 1}`,
    orderedItems: items,
  };
}

function document(base: string, path: string): unknown {
  const m = /^\/users\/([a-z0-9_-]+)(\/outbox)?(?:\?page=(\d+))?$/.exec(path);
  if (!m) return undefined;
  const actor = `${base}/users/${m[1]}`;
  if (!m[2]) {
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: actor,
      type: 'Person',
      preferredUsername: m[1],
      inbox: `${actor}/inbox`,
      followers: `${actor}/followers`,
      outbox: `${actor}/outbox`,
    };
  }
  if (m[3]) return page(actor, Number(m[3]));
  return {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${actor}/outbox`,
    type: 'OrderedCollection',
    totalItems: 1000,
    first: `${actor}/outbox?page=1`,
  };
}

/** `slowMs(i)`: how long origin `i` holds each of its answers (0 or absent: at once). */
export async function startBenchOrigins(count: number, slowMs: (i: number) => number = () => 0): Promise<BenchOrigins> {
  let requests = 0;
  const timers = new Set<NodeJS.Timeout>();
  const handler = (delayMs: number) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    requests++;
    const base = `http://${req.headers.host}`;
    const doc = document(base, req.url ?? '/');
    const answer = () => {
      if (doc === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Record not found"}');
        return;
      }
      const body = JSON.stringify(doc);
      res.writeHead(200, { 'content-type': AP_JSON, 'content-length': String(Buffer.byteLength(body)) }).end(body);
    };
    if (delayMs <= 0) return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) answer();
    }, delayMs);
    timers.add(timer);
  };
  const servers: http.Server[] = [];
  const origins: BenchOrigin[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = http.createServer({ keepAliveTimeout: 5_000 }, handler(slowMs(i)));
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      const port = (server.address() as AddressInfo).port;
      origins.push({ url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` });
    }
  } catch (e) {
    await closeAll(servers);
    throw e;
  }
  return {
    origins,
    requests: () => requests,
    close: () => {
      for (const t of timers) clearTimeout(t);
      return closeAll(servers);
    },
  };
}

async function closeAll(servers: readonly http.Server[]): Promise<void> {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The bench of issue 34: remote profiles opened across BENCH_ORIGINS (300) origins, every tenth one slow (half of
// those answer each document after 3 s, the other half hold each fetch 10 s, past Stoa's 10 s fetch limit), one actor
// per origin queued for its initial fetch, slow and fast interleaved, on one Stoa node with the pool of a 2-core
// machine (DATABASE_POOL_MAX 4). Twice, each time on fresh origins: paced (BENCH_ORIGINS_PER_SEC, 10 profiles opened a
// second), then all at once (a burst). Measured for the fast origins: queued → first page imported (the job's end:
// outbox and page 1 read, 20 posts committed), p50 and p99, split into the wait for a claim and the run itself.
// BENCH_HISTORY_JOBS_PER_NODE sets HISTORY_JOBS_PER_NODE (2: the cap before issue 34 on this machine).
// Run: `node dist/bench/history-origins.js` (after the build), or `npm run bench -- --history-origins`.

/** A phase whose jobs have not all ended by then fails the bench. */
const FAIRNESS_TIMEOUT_MS = 400_000;

export interface FairnessPhase {
  readonly label: string;
  /** Queued → the page imported, fast origins only. */
  readonly firstPageMs: Ms;
  /** Queued → claimed (waiting for a slot or behind the database), and claimed → ended. */
  readonly waitMs: Ms;
  readonly runMs: Ms;
  /** Queued (first) → the last fast origin's page imported. */
  readonly allDoneS: number;
  readonly fastFailed: number;
  /** How the slow origins' jobs stand at the end (e.g. "15 partial, 15 backoff (timeout)"). */
  readonly slowEnded: string;
}

export interface FairnessFigures {
  readonly origins: number;
  readonly slow: number;
  readonly jobsPerNode: string;
  readonly phases: readonly FairnessPhase[];
  readonly loadBefore: string;
  readonly loadAfter: string;
}

const slowMs = (i: number) => (i % 10 !== 0 ? 0 : i % 20 === 0 ? 3_000 : 10_000);

async function phase(db: Database, endings: Endings, label: string, tag: string, count: number, perSec: number | null): Promise<FairnessPhase> {
  const origins = await startBenchOrigins(count, slowMs);
  try {
    const slowHosts = new Set(origins.origins.filter((_, i) => slowMs(i) > 0).map((o) => o.host));
    const actors = origins.origins.map((origin) => ({ origin, name: tag }));
    const ids: string[] = [];
    if (perSec === null) ids.push(...(await queueInitialFetches(db, actors)));
    else {
      const t0 = performance.now();
      for (const [k, a] of actors.entries()) {
        const due = t0 + (k * 1000) / perSec;
        if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
        ids.push(...(await queueInitialFetches(db, [a])));
      }
    }
    await endings.all(ids, `${label}: first runs`, FAIRNESS_TIMEOUT_MS);
    // Each job's first run (a slow origin's job in backoff may have run again since).
    const runs = await db.rows<{ origin: string; state: string; queued_ms: number; wait_ms: number; run_ms: number; imported: number }>(
      `SELECT DISTINCT ON (r.account_id) r.origin, r.state, h.items_imported AS imported,
              extract(epoch FROM r.finished_at - r.queued_at)::float8 * 1000 AS queued_ms,
              extract(epoch FROM r.claimed_at - r.queued_at)::float8 * 1000 AS wait_ms,
              extract(epoch FROM r.finished_at - r.claimed_at)::float8 * 1000 AS run_ms
       FROM bench.history_runs r JOIN remote_histories h USING (account_id)
       WHERE r.account_id = ANY($1::bigint[]) ORDER BY r.account_id, r.run_id`,
      [ids],
    );
    const start = await db.one<{ t: Date }>('SELECT min(queued_at) AS t FROM bench.history_runs WHERE account_id = ANY($1::bigint[])', [ids]);
    const fast = runs.filter((r) => !slowHosts.has(r.origin));
    const ok = fast.filter((r) => r.state === 'partial' && r.imported === ITEMS_PER_PAGE);
    const last = await db.one<{ t: Date }>(
      `SELECT max(finished_at) AS t FROM bench.history_runs WHERE account_id = ANY($1::bigint[]) AND NOT (origin = ANY($2::text[]))`,
      [ids, [...slowHosts]],
    );
    const reasons = await db.rows<{ state: string; reason: string | null; n: number }>(
      `SELECT state, reason, count(*)::int AS n FROM remote_histories WHERE account_id = ANY($1::bigint[]) AND origin = ANY($2::text[]) GROUP BY 1, 2 ORDER BY 3 DESC`,
      [ids, [...slowHosts]],
    );
    return {
      label,
      firstPageMs: stats(ok.map((r) => r.queued_ms)),
      waitMs: stats(ok.map((r) => r.wait_ms)),
      runMs: stats(ok.map((r) => r.run_ms)),
      allDoneS: (last!.t.getTime() - start!.t.getTime()) / 1000,
      fastFailed: count - slowHosts.size - ok.length,
      slowEnded: reasons.map((r) => `${r.n} ${r.state}${r.reason ? ` (${r.reason})` : ''}`).join(', '),
    };
  } finally {
    await origins.close();
  }
}

export async function measureOriginFairness(): Promise<FairnessFigures> {
  const count = Number(process.env['BENCH_ORIGINS'] ?? 300);
  if (!Number.isInteger(count) || count < 10) throw new Error('BENCH_ORIGINS must be a whole number ≥ 10');
  const perSec = Number(process.env['BENCH_ORIGINS_PER_SEC'] ?? 10);
  if (!(perSec > 0)) throw new Error('BENCH_ORIGINS_PER_SEC must be a number > 0');
  const jobsPerNode = process.env['BENCH_HISTORY_JOBS_PER_NODE'];
  const loadBefore = loadavg();
  const log = pino({ level: 'silent' });
  let bench: BenchDatabase | null = null;
  let db: Database | null = null;
  let endings: Endings | null = null;
  let stoa: StoaProcess | null = null;
  try {
    bench = await openBenchDatabase();
    db = new Database(bench.url, 2, log);
    await migrate(db, log);
    await new HistorySettingsStore(db).update({ enabled: true });
    await db.exec(TRACE_SQL);
    endings = await Endings.listen(bench.url);
    stoa = await startStoa({
      DATABASE_URL: bench.url,
      STOA_DATA_DIR: path.join(bench.dataDir, 'stoa'),
      LOG_LEVEL: 'info',
      FEDERATION_ALLOW_PRIVATE: 'loopback',
      DATABASE_POOL_MAX: '4',
      ...(jobsPerNode ? { HISTORY_JOBS_PER_NODE: jobsPerNode } : {}),
    });
    process.stderr.write(`history-origins bench: Stoa pid ${stoa.pid}, ${count} origins a phase, HISTORY_JOBS_PER_NODE ${jobsPerNode ?? 'default'}\n`);
    // A warm-up job on an origin of its own, so that the first phase does not pay for the node's first connections.
    const warm = await startBenchOrigins(1);
    try {
      await endings.all(await queueInitialFetches(db, [{ origin: warm.origins[0]!, name: 'warm' }]), 'warm-up');
    } finally {
      await warm.close();
    }
    const phases: FairnessPhase[] = [];
    phases.push(await phase(db, endings, `paced, ${perSec} a second`, 'paced', count, perSec));
    process.stderr.write(`history-origins bench: paced phase done\n`);
    phases.push(await phase(db, endings, 'burst, all at once', 'burst', count, null));
    return {
      origins: count,
      slow: count / 10,
      jobsPerNode: jobsPerNode ?? 'default (64)',
      phases,
      loadBefore,
      loadAfter: loadavg(),
    };
  } finally {
    await stoa?.stop().catch(() => {});
    await endings?.close().catch(() => {});
    await db?.close();
    await bench?.stop();
  }
}

export function fairnessTable(f: FairnessFigures): string {
  const ms = (m: Ms) => `p50 ${m.p50.toFixed(0)} ms, p99 ${m.p99.toFixed(0)} ms`;
  return [
    `Remote history across ${f.origins} origins a phase, every tenth slow (3 s a document, or each fetch held 10 s); HISTORY_JOBS_PER_NODE ${f.jobsPerNode}`,
    ...f.phases.map(
      (p) =>
        `${p.label}: fast origins, queued → first page imported ${ms(p.firstPageMs)} (waiting for a claim ${ms(p.waitMs)}; run ${ms(p.runMs)}); ` +
        `last one ${p.allDoneS.toFixed(1)} s after the first ask; not imported: ${p.fastFailed}; slow origins: ${p.slowEnded}`,
    ),
    `load average before ${f.loadBefore}, after ${f.loadAfter}`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureOriginFairness().then(
    (f) => process.stdout.write(`${fairnessTable(f)}\n`, () => process.exit(0)),
    (e: unknown) => {
      process.stderr.write(`history-origins bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
