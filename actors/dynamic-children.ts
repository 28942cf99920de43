// Bounded dynamic children of one kind (OTP's simple_one_for_one): a supervisor whose first child is the scheduler
// that finds work, and beside it at most `max` children of one kind, each keyed by a name (a host, an origin),
// started on demand, restarted after a crash (transient), and gone once idle (they passivate, exiting normally).
// Past the bound a start is refused: the key waits for the scheduler's next round. Delivery, push and remote history
// are each one of these.
import type { Process } from './process.js';
import { Supervisor, TooManyChildrenError } from './supervisor.js';

/** The children's kind: named `${kind}:${key}` under the supervisor (restarts are counted by kind). */
export interface ChildKind<P extends Process> {
  readonly kind: string;
  readonly start: (key: string) => P;
}

/** The children of one kind under one supervisor, found by key. */
export class DynamicChildren<P extends Process> {
  private readonly byKey = new Map<string, P>();

  constructor(
    private readonly sup: Supervisor,
    private readonly spec: ChildKind<P>,
  ) {}

  /** The key's child, started if none runs; null when every slot is busy (the key waits for the next round). */
  async child(key: string): Promise<P | null> {
    const known = this.byKey.get(key);
    if (known?.alive) return known;
    try {
      return await this.start(key);
    } catch (e) {
      if (e instanceof TooManyChildrenError) return null;
      throw e;
    }
  }

  private async start(key: string): Promise<P> {
    const id = `${this.spec.kind}:${key}`;
    const running = this.sup.which(id);
    if (running?.alive) return running as P;
    if (running) await this.sup.terminateChild(id);
    const child = (await this.sup.startChild({ id, start: () => this.spec.start(key), restart: 'transient', shutdownMs: 5_000 })) as P;
    this.byKey.set(key, child);
    child.onExit(() => {
      if (this.byKey.get(key) === child) this.byKey.delete(key);
    });
    return child;
  }
}

/** A scheduler is its poller, as far as its supervisor is concerned. */
export interface Scheduler {
  readonly poller: Process;
}

/**
 * Starts the supervisor: the scheduler first (permanent: made anew by `scheduler` on a restart), then up to `max`
 * children, which the scheduler starts through its DynamicChildren over the supervisor it is given. The answer's
 * `scheduler` is always the one running now.
 */
export async function superviseDynamicChildren<S extends Scheduler>(
  name: string,
  max: number,
  scheduler: (sup: Supervisor) => S,
): Promise<{ readonly supervisor: Supervisor; readonly scheduler: S }> {
  let current!: S;
  const supervisor = await Supervisor.start(name, { strategy: 'one_for_one', intensity: 10, periodMs: 30_000, maxChildren: max + 1 }, []);
  await supervisor.startChild({
    id: 'scheduler',
    start: () => (current = scheduler(supervisor)).poller,
    restart: 'permanent',
    shutdownMs: 5_000,
  });
  return {
    supervisor,
    get scheduler() {
      return current;
    },
  };
}
