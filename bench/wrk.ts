// Runs the wrk load generator and parses its text report (--latency adds the percentile table we read p99 from).
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** One request shape to hammer; a method other than GET or a body is sent through a generated Lua script. */
export interface Target {
  readonly path: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface WrkSettings {
  readonly threads: number;
  readonly connections: number;
  readonly durationSec: number;
  /** A reply slower than this counts as a timeout error (wrk's default: 2 s). */
  readonly timeoutSec?: number;
}

export interface WrkResult {
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Responses outside 2xx/3xx: any at all makes the figures suspect. */
  readonly non2xx: number;
  /** connect + read + write + timeout errors. */
  readonly socketErrors: number;
}

/** The absolute path of wrk on PATH, or null. */
export function findWrk(): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'wrk');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export async function runWrk(wrk: string, baseUrl: string, target: Target, s: WrkSettings): Promise<WrkResult> {
  const args = ['-t', String(s.threads), '-c', String(s.connections), '-d', `${s.durationSec}s`, '--latency'];
  if (s.timeoutSec !== undefined) args.push('--timeout', `${s.timeoutSec}s`);
  for (const [k, v] of Object.entries(target.headers ?? {})) args.push('-H', `${k}: ${v}`);
  let scriptDir: string | null = null;
  if ((target.method && target.method !== 'GET') || target.body !== undefined) {
    scriptDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-bench-wrk-'));
    const script = path.join(scriptDir, 'request.lua');
    await fs.writeFile(script, luaScript(target));
    args.push('-s', script);
  }
  args.push(baseUrl + target.path);
  try {
    const { code, stdout, stderr } = await exec(wrk, args);
    if (code !== 0) throw new Error(`wrk exited with ${code}: ${(stderr || stdout).trim()}`);
    return parseWrk(stdout);
  } finally {
    if (scriptDir) await fs.rm(scriptDir, { recursive: true, force: true });
  }
}

function luaScript(t: Target): string {
  const lines = [`wrk.method = ${luaString(t.method ?? 'GET')}`];
  if (t.body !== undefined) lines.push(`wrk.body = ${luaString(t.body)}`);
  return lines.join('\n') + '\n';
}

function luaString(s: string): string {
  // Decimal escapes for everything outside printable ASCII (and for quote/backslash) are valid in every Lua.
  return '"' + [...Buffer.from(s)].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${b}`)).join('') + '"';
}

const running = new Set<ChildProcess>();

/** Stops any wrk still running (on ^C, so that no load generator outlives the run). */
export function killRunningWrk(): void {
  for (const child of running) child.kill('SIGKILL');
}

function exec(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    child.on('exit', () => running.delete(child));
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

const TIME_UNITS_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function timeMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (!m) throw new Error(`cannot parse wrk time ${JSON.stringify(text)}`);
  return Number(m[1]) * TIME_UNITS_MS[m[2]!]!;
}

/** Parses wrk 4.x output as printed with --latency. */
export function parseWrk(out: string): WrkResult {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(out);
  const p50 = /^\s+50%\s+(\S+)/m.exec(out);
  const p99 = /^\s+99%\s+(\S+)/m.exec(out);
  const total = /^\s+(\d+) requests in /m.exec(out);
  if (!rps || !p50 || !p99 || !total) throw new Error(`unexpected wrk output:\n${out}`);
  const non2xx = /^\s+Non-2xx or 3xx responses:\s+(\d+)/m.exec(out);
  const sock = /^\s+Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/m.exec(out);
  return {
    requestsPerSec: Number(rps[1]),
    p50Ms: timeMs(p50[1]!),
    p99Ms: timeMs(p99[1]!),
    requests: Number(total[1]),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: sock ? sock.slice(1).reduce((a, n) => a + Number(n), 0) : 0,
  };
}
