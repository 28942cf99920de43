// An actor owns its state and handles one message at a time from a bounded mailbox. `cast` is fire-and-forget and
// returns an explicit result when the mailbox is full; `call` is request/reply and always has a timeout. A throw in
// a handler crashes the actor (its supervisor decides what happens next). Idle actors passivate themselves.
import { Mailbox } from './mailbox.js';
import { ExitSignal, type ExitReason, type Process } from './process.js';

export interface ActorContext<M> {
  readonly self: Actor<unknown, M>;
  /** Ends the actor normally once the current message has been handled. */
  stopAfterThis(): void;
}

export interface Behavior<S, M> {
  init(): S | Promise<S>;
  handle(state: S, msg: M, ctx: ActorContext<M>): S | Promise<S>;
  terminate?(state: S, reason: ExitReason): void | Promise<void>;
}

export interface ActorOptions {
  /** Mailbox capacity: how many messages may wait. */
  readonly capacity: number;
  /** Stop normally after this long with nothing to do (passivation). */
  readonly idleMs?: number;
}

export type CastResult = 'ok' | 'full' | 'stopped';

export class MailboxFullError extends Error {
  constructor(readonly actor: string) {
    super(`mailbox of ${actor} is full`);
    this.name = 'MailboxFullError';
  }
}
export class CallTimeoutError extends Error {
  constructor(
    readonly actor: string,
    readonly timeoutMs: number,
  ) {
    super(`call to ${actor} timed out after ${timeoutMs} ms`);
    this.name = 'CallTimeoutError';
  }
}
export class ActorStoppedError extends Error {
  constructor(readonly actor: string) {
    super(`${actor} is not running`);
    this.name = 'ActorStoppedError';
  }
}

/** Replies to a `call`; calling it after the caller timed out is harmless. */
export type ReplyTo<R> = (result: R) => void;

interface PendingCall {
  reject(e: Error): void;
}

export class Actor<S, M> implements Process {
  private readonly mailbox: Mailbox<M>;
  private readonly exit = new ExitSignal();
  private readonly pendingCalls = new Set<PendingCall>();
  private state!: S;
  private ready = false;
  private running = false;
  private stopping = false;
  private stopRequested = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private idleWaiters: (() => void)[] = [];
  private readonly ctx: ActorContext<M>;
  /** The one exit in progress: a second finish (overlapping stops, stop during passivation) joins it. */
  private finishing: Promise<void> | null = null;

  private constructor(
    readonly name: string,
    private readonly behavior: Behavior<S, M>,
    private readonly opts: ActorOptions,
  ) {
    this.mailbox = new Mailbox<M>(opts.capacity);
    this.ctx = { self: this as unknown as Actor<unknown, M>, stopAfterThis: () => void (this.stopRequested = true) };
  }

  static spawn<S, M>(name: string, behavior: Behavior<S, M>, opts: ActorOptions): Actor<S, M> {
    const a = new Actor(name, behavior, opts);
    a.boot();
    return a;
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  get queued(): number {
    return this.mailbox.size;
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  cast(msg: M): CastResult {
    if (!this.alive || this.stopping) return 'stopped';
    if (!this.mailbox.push(msg)) return 'full';
    this.schedule();
    return 'ok';
  }

  call<R>(build: (reply: ReplyTo<R>) => M, timeoutMs: number): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let settled = false;
      const pending: PendingCall = {
        reject: (e) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          this.pendingCalls.delete(pending);
          reject(e);
        },
      };
      const timer = setTimeout(() => pending.reject(new CallTimeoutError(this.name, timeoutMs)), timeoutMs);
      const reply: ReplyTo<R> = (result) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.pendingCalls.delete(pending);
        resolve(result);
      };
      this.pendingCalls.add(pending);
      const r = this.cast(build(reply));
      if (r === 'full') pending.reject(new MailboxFullError(this.name));
      else if (r === 'stopped') pending.reject(new ActorStoppedError(this.name));
    });
  }

  async stop(timeoutMs: number): Promise<void> {
    if (!this.alive) return;
    this.stopping = true;
    this.clearIdle();
    if (this.running) {
      // Let the message in hand finish, up to the deadline; past it the actor is abandoned (its result ignored).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.idleWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await this.finish({ kind: 'shutdown' });
  }

  private async boot(): Promise<void> {
    this.running = true;
    try {
      this.state = await this.behavior.init();
    } catch (error) {
      this.setIdle();
      await this.finish({ kind: 'crash', error });
      return;
    }
    this.ready = true;
    this.setIdle();
    this.schedule();
  }

  private schedule(): void {
    this.clearIdle();
    if (this.running || !this.ready || this.stopping || !this.alive) return;
    if (this.mailbox.size === 0) {
      this.armIdle();
      return;
    }
    this.running = true;
    queueMicrotask(() => void this.loop());
  }

  private async loop(): Promise<void> {
    while (this.alive && !this.stopping) {
      const msg = this.mailbox.shift();
      if (msg === undefined) break;
      try {
        const next = this.behavior.handle(this.state, msg, this.ctx);
        this.state = next instanceof Promise ? await next : next;
      } catch (error) {
        this.setIdle();
        if (!this.stopping) await this.finish({ kind: 'crash', error });
        return;
      }
      if (this.stopRequested) {
        this.setIdle();
        await this.finish({ kind: 'normal' });
        return;
      }
    }
    this.setIdle();
    if (this.alive && !this.stopping) this.armIdle();
  }

  private setIdle(): void {
    this.running = false;
    const ws = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of ws) w();
  }

  private armIdle(): void {
    if (this.opts.idleMs === undefined || this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (!this.running && this.mailbox.size === 0 && this.alive && !this.stopping) void this.finish({ kind: 'normal' });
    }, this.opts.idleMs);
    this.idleTimer.unref?.();
  }

  private clearIdle(): void {
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
  }

  private finish(reason: ExitReason): Promise<void> {
    return (this.finishing ??= this.runFinish(reason));
  }

  private async runFinish(reason: ExitReason): Promise<void> {
    if (!this.alive) return;
    this.stopping = true;
    this.clearIdle();
    this.mailbox.drainAll();
    for (const p of [...this.pendingCalls]) p.reject(new ActorStoppedError(this.name));
    if (this.ready && this.behavior.terminate) {
      try {
        await this.behavior.terminate(this.state, reason);
      } catch {
        // terminate is best effort: the actor is already leaving.
      }
    }
    this.exit.fire(reason);
  }
}
