// Gauges read at scrape time (prom-client calls collect() while rendering), so nothing polls between scrapes: the
// supervision tree's actors and restarts, the verifier pool, the database pool and the durable queues.
import { Actor } from '../../actors/actor.js';
import { Supervisor } from '../../actors/supervisor.js';
import type { VerifyPool } from '../../actors/verify-pool.js';
import type { Database } from '../store/db.js';
import { type CachedQueueStats, QUEUES } from '../store/queue-stats.js';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface RuntimeSources {
  /** The root supervisor; the tree under it is walked on every scrape. */
  readonly supervisor: Supervisor;
  readonly verifyPool: VerifyPool;
  readonly db: Database;
  readonly queues: CachedQueueStats;
}

interface TreeCounts {
  /** Live actors and messages waiting in their mailboxes, by kind (an actor's name before any ':'). */
  readonly actors: Map<string, { live: number; queued: number }>;
  /** Restarts by supervisor and child kind. */
  readonly restarts: { supervisor: string; child: string; count: number }[];
}

function walk(sup: Supervisor, into: TreeCounts): TreeCounts {
  for (const [child, count] of sup.restartCounts()) into.restarts.push({ supervisor: sup.name, child, count });
  for (const id of sup.childIds()) {
    const p = sup.which(id);
    if (p instanceof Supervisor) walk(p, into);
    else if (p instanceof Actor && p.alive) {
      const kind = p.name.split(':', 1)[0]!;
      const a = into.actors.get(kind) ?? { live: 0, queued: 0 };
      a.live++;
      a.queued += p.queued;
      into.actors.set(kind, a);
    }
  }
  return into;
}

export function registerCollectors(registry: Registry, src: RuntimeSources): void {
  const registers = [registry];
  // Each of the three reads walks the tree again: a few hundred processes at most, cheaper than keeping a snapshot.
  const counts = (): TreeCounts => walk(src.supervisor, { actors: new Map(), restarts: [] });

  new Gauge({
    name: 'stoa_actors',
    help: 'Live actors by kind',
    labelNames: ['kind'],
    registers,
    collect() {
      this.reset();
      for (const [kind, a] of counts().actors) this.set({ kind }, a.live);
    },
  });
  new Gauge({
    name: 'stoa_actor_mailbox_depth',
    help: 'Messages waiting in the mailboxes of the actors of a kind',
    labelNames: ['kind'],
    registers,
    collect() {
      this.reset();
      for (const [kind, a] of counts().actors) this.set({ kind }, a.queued);
    },
  });
  new Counter({
    name: 'stoa_supervisor_restarts_total',
    help: 'Children restarted by their supervisor, by supervisor and child kind',
    labelNames: ['supervisor', 'child'],
    registers,
    collect() {
      this.reset();
      for (const r of counts().restarts) this.inc({ supervisor: r.supervisor, child: r.child }, r.count);
    },
  });

  const pool = src.verifyPool;
  gauge(registry, 'stoa_verify_pool_utilization', 'Share of the verifier pool spent running tasks since it started (0 to 1)', () => pool.utilization);
  gauge(registry, 'stoa_verify_pool_queue_size', 'Verification tasks waiting for a worker thread', () => pool.queued);
  gauge(registry, 'stoa_verify_pool_threads', 'Worker threads of the verifier pool', () => pool.threads);
  new Counter({
    name: 'stoa_verify_pool_completed_total',
    help: 'Verification tasks completed',
    registers,
    collect() {
      this.reset();
      this.inc(pool.completed);
    },
  });

  const pg = src.db.pool;
  gauge(registry, 'stoa_db_pool_waiting', 'Queries waiting for a database connection (pg.Pool waitingCount)', () => pg.waitingCount);
  gauge(registry, 'stoa_db_pool_connections', 'Open database connections (pg.Pool totalCount)', () => pg.totalCount);
  gauge(registry, 'stoa_db_pool_idle', 'Idle database connections (pg.Pool idleCount)', () => pg.idleCount);

  new Gauge({
    name: 'stoa_queue_rows',
    help: 'Rows waiting in a durable work queue (delivery, inbox, history, push), as of at most a few seconds ago',
    labelNames: ['queue'],
    registers,
    async collect() {
      const stats = await src.queues.get();
      for (const q of QUEUES) this.set({ queue: q }, stats[q].rows);
    },
  });
  new Gauge({
    name: 'stoa_queue_oldest_age_seconds',
    help: 'Age of the oldest row waiting in a durable work queue; 0 when empty',
    labelNames: ['queue'],
    registers,
    async collect() {
      const stats = await src.queues.get();
      for (const q of QUEUES) this.set({ queue: q }, stats[q].oldestAgeSeconds);
    },
  });
}

function gauge(registry: Registry, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}
