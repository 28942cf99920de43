// One actor per destination host: it claims that host's due deliveries (at most `concurrency` at a time), sends
// them, and records each outcome. Politeness and fairness come from the per-host bound; durability from the table.
import { Actor, type Behavior } from './actor.js';
import type { DelayPolicy } from './policy.js';

export interface QueuedDelivery {
  readonly id: string;
  readonly inboxUrl: string;
  readonly attempts: number;
  readonly giveUpAt: Date;
}

export type DeliveryOutcome =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly error: string; readonly afterMs?: number }
  | { readonly kind: 'drop'; readonly error: string };

export interface DeliveryQueue<D extends QueuedDelivery> {
  claim(host: string, owner: string, limit: number, leaseMs: number): Promise<D[]>;
  delivered(id: string): Promise<void>;
  retryAt(id: string, delayMs: number, error: string): Promise<void>;
}

export interface DeliveryHostDeps<D extends QueuedDelivery> {
  readonly queue: DeliveryQueue<D>;
  readonly send: (d: D) => Promise<DeliveryOutcome>;
  readonly backoff: DelayPolicy;
  readonly owner: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly onGiveUp?: (d: D, error: string) => void;
  readonly now?: () => number;
  /** What the queue carries, naming the supervisor and its actors: `delivery` (the default) or `push`. */
  readonly name?: string;
}

export type DeliveryHostMsg = { readonly kind: 'work' };

export function spawnDeliveryHost<D extends QueuedDelivery>(host: string, deps: DeliveryHostDeps<D>, idleMs: number): Actor<null, DeliveryHostMsg> {
  const now = deps.now ?? Date.now;
  const settle = async (d: D, outcome: DeliveryOutcome): Promise<void> => {
    if (outcome.kind === 'delivered') return deps.queue.delivered(d.id);
    if (outcome.kind === 'retry') {
      const delay = outcome.afterMs ?? deps.backoff(d.attempts) ?? Infinity;
      if (now() + delay <= d.giveUpAt.getTime()) return deps.queue.retryAt(d.id, delay, outcome.error);
    }
    deps.onGiveUp?.(d, outcome.error);
    return deps.queue.delivered(d.id);
  };
  const behavior: Behavior<null, DeliveryHostMsg> = {
    init: () => null,
    async handle(state) {
      // Keep going while the host has due work; each batch holds at most `concurrency` requests in flight.
      for (;;) {
        const batch = await deps.queue.claim(host, deps.owner, deps.concurrency, deps.leaseMs);
        if (batch.length === 0) return state;
        await Promise.all(batch.map(async (d) => settle(d, await deps.send(d).catch((e: unknown) => ({ kind: 'retry', error: String(e) }) as const))));
        if (batch.length < deps.concurrency) return state;
      }
    },
  };
  // A kick while a batch is in flight needs no second slot: the loop re-claims before it stops.
  return Actor.spawn(`${deps.name ?? 'delivery'}:${host}`, behavior, { capacity: 1, idleMs });
}
