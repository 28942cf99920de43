// Finds destination hosts with due deliveries and hands each to its host actor, started on demand as a dynamic child
// of the delivery supervisor (bounded, dynamic-children.ts). It also frees leases left by nodes that died, so their
// work resumes at once. The same machinery, over its own queue, sends Web Push messages (named `push`).
import type { Actor } from './actor.js';
import { spawnDeliveryHost, type DeliveryHostDeps, type DeliveryHostMsg, type QueuedDelivery } from './delivery-host.js';
import { DynamicChildren, superviseDynamicChildren } from './dynamic-children.js';
import { Poller } from './poller.js';
import type { Supervisor } from './supervisor.js';

export interface DeliverySchedulerDeps<D extends QueuedDelivery> extends DeliveryHostDeps<D> {
  readonly queue: DeliveryHostDeps<D>['queue'] & {
    dueHosts(limit: number): Promise<string[]>;
    nextDueInMs(): Promise<number | null>;
    releaseLeasesExcept(liveOwners: readonly string[]): Promise<number>;
    dropExpired(): Promise<number>;
  };
  /** Names of the nodes alive now (this one included); leases of any other owner are released. */
  readonly liveNodes: () => Promise<string[]>;
  readonly maxHosts: number;
  readonly hostIdleMs: number;
  readonly onError?: (e: unknown) => void;
  /** Deliveries dropped unsent because their give-up time passed while they waited. */
  readonly onExpired?: (count: number) => void;
}

const RELEASE_EVERY_MS = 30_000;
/**
 * With nothing queued the scheduler sleeps until kicked: by this node's publisher, or by a notification that another
 * node queued deliveries. This round is the safety net for a notification missed all the same.
 */
const IDLE_ROUND_MS = 60_000;
/** With work due now, host actors drain their own backlog; the scheduler only needs to notice new hosts. */
const BUSY_ROUND_MS = 250;

export class DeliveryScheduler {
  readonly poller: Poller;
  private readonly hosts: DynamicChildren<Actor<null, DeliveryHostMsg>>;
  private lastRelease = 0;
  /** What host actors get: the queue, with their retries reported to the scheduler, which sleeps past them otherwise. */
  private readonly hostDeps: DeliveryHostDeps<QueuedDelivery>;

  private constructor(
    sup: Supervisor,
    private readonly d: DeliverySchedulerDeps<QueuedDelivery>,
  ) {
    const q = d.queue;
    this.hostDeps = {
      ...d,
      queue: {
        claim: (host, owner, limit, leaseMs) => q.claim(host, owner, limit, leaseMs),
        delivered: (id) => q.delivered(id),
        retryAt: async (id, delayMs, error) => {
          await q.retryAt(id, delayMs, error);
          this.poller.soon(delayMs);
        },
      },
    };
    this.poller = new Poller(`${d.name ?? 'delivery'}-scheduler`, {
      round: () => this.round(),
      maxSleepMs: IDLE_ROUND_MS,
      minSleepMs: 10,
      onError: (e) => d.onError?.(e),
    });
    this.hosts = new DynamicChildren(sup, { kind: 'host', start: (host) => spawnDeliveryHost(host, this.hostDeps, d.hostIdleMs) });
  }

  /** The delivery supervisor: the scheduler first, host actors as dynamic children. */
  static async start<D extends QueuedDelivery>(deps: DeliverySchedulerDeps<D>): Promise<{ supervisor: Supervisor; scheduler: DeliveryScheduler }> {
    const d = deps as unknown as DeliverySchedulerDeps<QueuedDelivery>;
    return superviseDynamicChildren(deps.name ?? 'delivery', deps.maxHosts, (sup) => new DeliveryScheduler(sup, d));
  }

  /** New work for these hosts: wake their actors now rather than at the next round; no host named: a round now. */
  kick(hosts: readonly string[]): void {
    if (hosts.length === 0) {
      this.poller.kick();
      return;
    }
    // A kick can come after shutdown began (an inbox job finishing); the rows are durable and wait for the next
    // start, so a failed wake is reported, never left as an unhandled rejection (which would kill the process).
    for (const h of hosts) this.wake(h).catch((e: unknown) => this.poller.alive && this.d.onError?.(e));
  }

  private async round(): Promise<number | null> {
    const now = Date.now();
    if (now - this.lastRelease > RELEASE_EVERY_MS) {
      this.lastRelease = now;
      await this.d.queue.releaseLeasesExcept(await this.d.liveNodes());
    }
    const expired = await this.d.queue.dropExpired();
    if (expired > 0) this.d.onExpired?.(expired);
    for (const host of await this.d.queue.dueHosts(this.d.maxHosts)) await this.wake(host);
    const next = await this.d.queue.nextDueInMs();
    if (next === null) return null;
    // Rows may be held by a node that has died since: look again by the next release at the latest.
    const untilRelease = this.lastRelease + RELEASE_EVERY_MS - Date.now();
    return Math.max(Math.min(next, untilRelease), BUSY_ROUND_MS);
  }

  private async wake(host: string): Promise<void> {
    // Every slot busy: this host waits for the next round.
    (await this.hosts.child(host))?.cast({ kind: 'work' });
  }
}
