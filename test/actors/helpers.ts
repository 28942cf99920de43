// Small helpers shared by the actor runtime tests (not a test file itself).
import type { ExitReason, Process } from '../../actors/process.js';

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves with the value of `p`, or rejects if it has not settled within `ms` (the timer also keeps the loop alive). */
export function within<T>(p: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** The exit reason of a process, failing the test if it does not exit within `ms`. */
export function exitOf(p: Process, ms = 1000): Promise<ExitReason> {
  return within(new Promise<ExitReason>((resolve) => p.onExit(resolve)), ms, `exit of ${p.name}`);
}

/** Polls until `cond` holds, failing after `ms`. */
export async function waitFor(cond: () => boolean, ms = 1000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error(`${what} not reached within ${ms} ms`);
    await sleep(2);
  }
}
