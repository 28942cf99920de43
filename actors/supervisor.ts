// An OTP-style supervisor, described as data. Children start in order and stop in reverse order, each within its
// shutdown timeout. A child that exits is restarted according to its restart type; more than `intensity` restarts
// within `periodMs` means the problem is not local: the supervisor stops every child and exits with a crash, which
// its own supervisor (or main, for the root) sees. Dynamic children of one kind (per-origin actors) are added with
// startChild and are bounded by maxChildren (dynamic-children.ts does it for the schedulers).
import { immediately, type DelayPolicy } from './policy.js';
import { ExitSignal, type ExitReason, type Process } from './process.js';

export type RestartType = 'permanent' | 'transient' | 'temporary';

export interface ChildSpec {
  readonly id: string;
  readonly start: () => Process | Promise<Process>;
  /** permanent: always restarted; transient: only after a crash; temporary: never. */
  readonly restart: RestartType;
  readonly shutdownMs: number;
}

export interface SupervisorSpec {
  readonly strategy: 'one_for_one';
  readonly intensity: number;
  readonly periodMs: number;
  /** Delay before a restart, by restart count within the period. */
  readonly restartDelay?: DelayPolicy;
  /** Bound on children (static and dynamic); startChild past it is refused. */
  readonly maxChildren?: number;
}

export interface SupervisorEvents {
  /** Structured notifications for logging; supervisors never log by themselves. */
  onEvent?(e: { kind: 'restart' | 'exit' | 'escalate'; supervisor: string; child?: string; reason?: ExitReason }): void;
  now?: () => number;
}

export class EscalationError extends Error {
  constructor(
    readonly supervisor: string,
    readonly child: string,
    readonly restarts: number,
  ) {
    super(`${supervisor}: child ${child} restarted ${restarts} times within the period; giving up`);
    this.name = 'EscalationError';
  }
}

export class TooManyChildrenError extends Error {
  constructor(readonly supervisor: string) {
    super(`${supervisor} has reached its maximum number of children`);
    this.name = 'TooManyChildrenError';
  }
}

interface Running {
  readonly spec: ChildSpec;
  process: Process | null;
  /** Bumped on every (re)start so exits of replaced processes are ignored. */
  generation: number;
}

export class Supervisor implements Process {
  private readonly children: Running[] = [];
  private readonly restarts: number[] = [];
  /** Restarts since start by child kind (the id before any ':', so per-host children share one), never reset. */
  private readonly restartTotals = new Map<string, number>();
  private readonly exit = new ExitSignal();
  private stopping = false;
  /** The one shutdown in progress: a second stop (or a stop during escalation) waits for it. */
  private shuttingDown: Promise<void> | null = null;
  private readonly now: () => number;

  private constructor(
    readonly name: string,
    private readonly spec: SupervisorSpec,
    private readonly events: SupervisorEvents,
  ) {
    this.now = events.now ?? Date.now;
  }

  /** Starts children in order; if one fails to start, those already started are stopped and the error is thrown. */
  static async start(name: string, spec: SupervisorSpec, children: readonly ChildSpec[], events: SupervisorEvents = {}): Promise<Supervisor> {
    const sup = new Supervisor(name, spec, events);
    try {
      for (const c of children) await sup.startChild(c);
    } catch (e) {
      await sup.stop(Math.max(0, ...children.map((c) => c.shutdownMs)));
      throw e;
    }
    return sup;
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  which(id: string): Process | undefined {
    return this.children.find((c) => c.spec.id === id)?.process ?? undefined;
  }

  childIds(): string[] {
    return this.children.map((c) => c.spec.id);
  }

  /** How many times children of each kind were restarted since this supervisor started (for metrics). */
  restartCounts(): ReadonlyMap<string, number> {
    return this.restartTotals;
  }

  async startChild(spec: ChildSpec): Promise<Process> {
    if (this.stopping) throw new Error(`${this.name} is stopping`);
    if (this.children.some((c) => c.spec.id === spec.id)) throw new Error(`${this.name} already has a child ${spec.id}`);
    if (this.spec.maxChildren !== undefined && this.children.length >= this.spec.maxChildren) throw new TooManyChildrenError(this.name);
    const entry: Running = { spec, process: null, generation: 0 };
    this.children.push(entry);
    try {
      await this.launch(entry);
    } catch (e) {
      this.remove(entry);
      throw e;
    }
    return entry.process!;
  }

  /** Stops one child and forgets it (it is not restarted). */
  async terminateChild(id: string): Promise<void> {
    const entry = this.children.find((c) => c.spec.id === id);
    if (!entry) return;
    this.remove(entry);
    entry.generation++;
    await entry.process?.stop(entry.spec.shutdownMs);
  }

  /** Stops children in reverse start order, each within its shutdown timeout, then exits. */
  async stop(_timeoutMs?: number): Promise<void> {
    await this.shutdownChildren();
    this.exit.fire({ kind: 'shutdown' });
  }

  private shutdownChildren(): Promise<void> {
    return (this.shuttingDown ??= this.stopChildren());
  }

  private async stopChildren(): Promise<void> {
    this.stopping = true;
    for (const entry of [...this.children].reverse()) {
      entry.generation++;
      const p = entry.process;
      if (p?.alive) await p.stop(entry.spec.shutdownMs);
    }
    this.children.length = 0;
  }

  private async launch(entry: Running): Promise<void> {
    const generation = ++entry.generation;
    const process = await entry.spec.start();
    entry.process = process;
    process.onExit((reason) => void this.childExited(entry, generation, reason));
  }

  private async childExited(entry: Running, generation: number, reason: ExitReason): Promise<void> {
    if (this.stopping || generation !== entry.generation) return;
    this.events.onEvent?.({ kind: 'exit', supervisor: this.name, child: entry.spec.id, reason });
    const restart = entry.spec.restart === 'permanent' || (entry.spec.restart === 'transient' && reason.kind === 'crash');
    if (!restart) {
      this.remove(entry);
      return;
    }
    const now = this.now();
    this.restarts.push(now);
    while (this.restarts.length > 0 && this.restarts[0]! <= now - this.spec.periodMs) this.restarts.shift();
    if (this.restarts.length > this.spec.intensity) {
      this.events.onEvent?.({ kind: 'escalate', supervisor: this.name, child: entry.spec.id, reason });
      await this.shutdownChildren();
      this.exit.fire({ kind: 'crash', error: new EscalationError(this.name, entry.spec.id, this.restarts.length) });
      return;
    }
    const delay = (this.spec.restartDelay ?? immediately)(this.restarts.length) ?? 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (this.stopping || generation !== entry.generation) return;
    this.events.onEvent?.({ kind: 'restart', supervisor: this.name, child: entry.spec.id, reason });
    const kind = entry.spec.id.split(':', 1)[0]!;
    this.restartTotals.set(kind, (this.restartTotals.get(kind) ?? 0) + 1);
    try {
      await this.launch(entry);
    } catch (error) {
      // A child that cannot even start counts as another crash of the same child.
      await this.childExited(entry, entry.generation, { kind: 'crash', error });
    }
  }

  private remove(entry: Running): void {
    const i = this.children.indexOf(entry);
    if (i >= 0) this.children.splice(i, 1);
  }
}
