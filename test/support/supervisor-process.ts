// Starts the supervisor (`node dist/src/cli/stoa.js start`, what `npm start` runs) as a real process and follows
// its log: which server process (server:1, server:2, …) serves under which pid, and the banner's password.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const STOA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/stoa.js');

export interface SupervisorProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first admin's one-time password, from the banner the supervisor printed. */
  readonly password: string | null;
  /** The pid of each server process serving now, by name. */
  serving(): ReadonlyMap<string, number>;
  /** The supervisor's own log records (component process-supervisor), in order. */
  events(): readonly Record<string, unknown>[];
  /** How many times the banner was printed. */
  banners(): number;
  output(): string;
  /** Resolves once `name` serves under a pid other than `not`; its pid. */
  servingAgain(name: string, not: number, timeoutMs?: number): Promise<number>;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** env: PORT and BASE_URL are set from port; LOG_LEVEL info and JSON lines (the records are read), grace 2 s. */
export async function startSupervisor(o: { port: number; processes?: number; env?: Record<string, string | undefined> }): Promise<SupervisorProcess> {
  const url = `http://127.0.0.1:${o.port}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(o.port),
    HOST: '127.0.0.1',
    BASE_URL: url,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    SHUTDOWN_GRACE_MS: '2000',
    STOA_PROCESSES: String(o.processes ?? 1),
    ...o.env,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const child = spawn(process.execPath, [STOA, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let partial = '';
  const records: Record<string, unknown>[] = [];
  const serving = new Map<string, number>();
  const onData = (d: Buffer) => {
    const text = d.toString();
    out += text;
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.includes('"process-supervisor"')) continue;
      let r: Record<string, unknown>;
      try {
        r = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue; // a line cut by another process's write (the server processes share the pipe)
      }
      records.push(r);
      if (r['msg'] === 'server process serving') serving.set(r['child'] as string, r['pid'] as number);
      if (r['msg'] === 'server process exited' && serving.get(r['child'] as string) === r['pid']) serving.delete(r['child'] as string);
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  let status: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve((status = { code, signal }))),
  );
  const until = async (what: string, ok: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!ok()) {
      if (status) throw new Error(`the supervisor exited (${JSON.stringify(status)}) before ${what}:\n${out.slice(-4000)}`);
      if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms did not happen:\n${out.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  try {
    await until(`${o.processes ?? 1} server processes serving`, () => serving.size === (o.processes ?? 1), 60_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    url,
    child,
    exited,
    password: /password: (\S+)/.exec(out)?.[1] ?? null,
    serving: () => serving,
    events: () => records,
    banners: () => out.split('Stoa is running at').length - 1,
    output: () => out,
    servingAgain: async (name, not, timeoutMs = 10_000) => {
      await until(`${name} serving again`, () => serving.has(name) && serving.get(name) !== not, timeoutMs);
      return serving.get(name)!;
    },
  };
}
