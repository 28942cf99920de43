// One server process (`node dist/src/main.js`) as a Process the actors' Supervisor can supervise: started when it
// reports serving over IPC, stopped with SIGTERM then SIGKILL, its exit a reason. Exit 0 (it was stopped) and
// EX_CONFIG (78: its configuration is wrong, a restart would fail the same way) are normal exits; anything else
// (another code, a signal such as SIGKILL) is a crash, which the supervisor restarts.
import { type ChildProcess, spawn } from 'node:child_process';
import { ExitSignal, type ExitReason, type Process } from '../../actors/process.js';
import { isServingReport, type ServingReport } from './serving-report.js';

export const EX_CONFIG = 78;

export interface ServerChildOptions {
  /** The process's name in the supervisor and its logs, e.g. `server:1`. */
  readonly name: string;
  /** Node's own flags, then the script and its arguments. */
  readonly argv: readonly string[];
  readonly env: Record<string, string | undefined>;
  /** How long it may take to serve before it is killed and counted as failed. */
  readonly startMs: number;
  /** Every start and exit, for the supervisor's log. */
  readonly onSpawn?: (pid: number) => void;
  readonly onExit?: (e: ChildExit) => void;
}

export interface ChildExit {
  readonly pid: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The supervisor asked it to stop. */
  readonly asked: boolean;
}

export class ChildExitError extends Error {
  constructor(readonly exit: ChildExit) {
    super(`server process ${exit.pid} ${exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`}`);
    this.name = 'ChildExitError';
  }
}

export class ServerChild implements Process {
  private readonly exit = new ExitSignal();
  private stopping: Promise<void> | null = null;
  private asked = false;
  private readonly exited: Promise<ChildExit>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly report: ServingReport,
    exited: Promise<ChildExit>,
  ) {
    this.exited = exited;
    void exited.then((e) => this.exit.fire(reasonOf({ ...e, asked: this.asked })));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  /** Spawns the process and resolves once it serves; rejects (with ChildExitError if it exited) otherwise. */
  static start(o: ServerChildOptions): Promise<ServerChild> {
    const [node, ...rest] = [process.execPath, ...o.argv];
    const child = spawn(node, rest, { env: o.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let self: ServerChild | undefined;
    const exited = new Promise<ChildExit>((resolve) => {
      child.once('exit', (code, signal) => {
        const e = { pid: child.pid ?? 0, code, signal, asked: self?.asked ?? false };
        o.onExit?.(e);
        resolve(e);
      });
    });
    return new Promise<ServerChild>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${o.name} did not serve within ${o.startMs} ms`));
      }, o.startMs);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once('spawn', () => o.onSpawn?.(child.pid!));
      void exited.then((e) => {
        clearTimeout(timer);
        if (!self) reject(new ChildExitError(e));
      });
      child.on('message', (m: unknown) => {
        if (self || !isServingReport(m)) return;
        clearTimeout(timer);
        self = new ServerChild(o.name, child, m, exited);
        resolve(self);
      });
    });
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  /** SIGTERM (the server drains and stops in order), SIGKILL after timeoutMs; resolves once it has exited. */
  stop(timeoutMs: number): Promise<void> {
    return (this.stopping ??= (async () => {
      this.asked = true;
      if (!this.alive) return;
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
      await this.exited;
      clearTimeout(timer);
    })());
  }
}

function reasonOf(e: ChildExit): ExitReason {
  if (e.asked) return { kind: 'shutdown' };
  if (e.code === 0 || e.code === EX_CONFIG) return { kind: 'normal' };
  return { kind: 'crash', error: new ChildExitError(e) };
}
