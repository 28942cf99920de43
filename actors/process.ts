// What a supervisor needs of anything it supervises: actors and supervisors alike.

export type ExitReason =
  | { readonly kind: 'normal' } // finished its work or passivated when idle
  | { readonly kind: 'shutdown' } // asked to stop
  | { readonly kind: 'crash'; readonly error: unknown };

export interface Process {
  readonly name: string;
  readonly alive: boolean;
  /** Stops the process, waiting at most timeoutMs for work in hand; resolves once it has exited. */
  stop(timeoutMs: number): Promise<void>;
  /** Called once, when the process exits for any reason. */
  onExit(fn: (reason: ExitReason) => void): void;
}

export class ExitSignal {
  private listeners: ((r: ExitReason) => void)[] = [];
  private reason: ExitReason | null = null;

  get exited(): boolean {
    return this.reason !== null;
  }

  on(fn: (r: ExitReason) => void): void {
    if (this.reason) queueMicrotask(() => fn(this.reason!));
    else this.listeners.push(fn);
  }

  fire(reason: ExitReason): void {
    if (this.reason) return;
    this.reason = reason;
    const ls = this.listeners;
    this.listeners = [];
    for (const fn of ls) fn(reason);
  }
}
