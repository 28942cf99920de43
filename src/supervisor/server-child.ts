// One server process (`node dist/src/main.js`) as a Process the actors' Supervisor can supervise. It is spawned
// first (a Launch: it loads its modules, most of a start's time, and says it is ready), then told to start over IPC,
// and it is started once it reports serving. A Launch may wait as a spare, so that a restart skips the loading.
// Stopped with SIGTERM then SIGKILL. Exit 0 (it was stopped) and EX_CONFIG (78: its configuration is wrong, a
// restart would fail the same way) are normal exits; anything else (another code, a signal such as SIGKILL) is a
// crash, which the supervisor restarts.
import { type ChildProcess, spawn } from 'node:child_process';
import { ExitSignal, type ExitReason, type Process } from '../../actors/process.js';
import { isReadyReport, isServingReport, START_ORDER, type ServingReport } from './serving-report.js';

export const EX_CONFIG = 78;

export interface LaunchOptions {
  /** Node's own flags, then the script and its arguments. */
  readonly argv: readonly string[];
  readonly env: Record<string, string | undefined>;
  /** Every exit, for the supervisor's log; `name` is the launch's name at that moment. */
  readonly onExit?: (e: ChildExit, name: string) => void;
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

/** A spawned server process, not yet told to start. */
export class Launch {
  /** Its name in the supervisor's log: `spare` until a slot takes it. */
  name: string;
  asked = false;
  readonly exited: Promise<ChildExit>;
  /** True once it waits to be told to start; false if it exited first. */
  readonly ready: Promise<boolean>;
  private constructor(
    readonly child: ChildProcess,
    name: string,
    onExit: LaunchOptions['onExit'],
  ) {
    this.name = name;
    this.exited = new Promise<ChildExit>((resolve) => {
      child.once('exit', (code, signal) => {
        const e = { pid: child.pid ?? 0, code, signal, asked: this.asked };
        onExit?.(e, this.name);
        resolve(e);
      });
    });
    this.ready = new Promise<boolean>((resolve) => {
      const onMessage = (m: unknown) => {
        if (!isReadyReport(m)) return;
        child.off('message', onMessage);
        resolve(true);
      };
      child.on('message', onMessage);
      void this.exited.then(() => resolve(false));
    });
    child.on('error', () => undefined); // a failed spawn exits too
  }

  static spawn(name: string, o: LaunchOptions): Launch {
    const [node, ...rest] = [process.execPath, ...o.argv];
    return new Launch(spawn(node, rest, { env: o.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }), name, o.onExit);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM, SIGKILL after timeoutMs; resolves once it has exited. */
  async stop(timeoutMs: number): Promise<void> {
    this.asked = true;
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }
}

export class ServerChild implements Process {
  private readonly exit = new ExitSignal();
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly name: string,
    private readonly launch: Launch,
    readonly report: ServingReport,
  ) {
    void launch.exited.then((e) => this.exit.fire(reasonOf({ ...e, asked: launch.asked })));
  }

  get pid(): number {
    return this.launch.pid;
  }

  get alive(): boolean {
    return !this.exit.exited;
  }

  /** Tells a launch to start and resolves once it serves; rejects (ChildExitError if it exited) otherwise. */
  static async start(name: string, launch: Launch, startMs: number): Promise<ServerChild> {
    launch.name = name;
    const child = launch.child;
    return new Promise<ServerChild>((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        if (done) return;
        done = true;
        child.kill('SIGKILL');
        reject(new Error(`${name} did not serve within ${startMs} ms`));
      }, startMs);
      void launch.exited.then((e) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        reject(new ChildExitError(e));
      });
      const onMessage = (m: unknown) => {
        if (done || !isServingReport(m)) return;
        done = true;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(new ServerChild(name, launch, m));
      };
      child.on('message', onMessage);
      void launch.ready.then((ready) => {
        if (ready && !done && child.connected) child.send(START_ORDER, () => undefined);
      });
    });
  }

  onExit(fn: (reason: ExitReason) => void): void {
    this.exit.on(fn);
  }

  /** SIGTERM (the server drains and stops in order), SIGKILL after timeoutMs; resolves once it has exited. */
  stop(timeoutMs: number): Promise<void> {
    return (this.stopping ??= this.launch.stop(timeoutMs));
  }
}

function reasonOf(e: ChildExit): ExitReason {
  if (e.asked) return { kind: 'shutdown' };
  if (e.code === 0 || e.code === EX_CONFIG) return { kind: 'normal' };
  return { kind: 'crash', error: new ChildExitError(e) };
}
