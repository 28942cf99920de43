// What a supervised server process and its supervisor say over the IPC channel: the process says it is ready (its
// modules loaded), the supervisor tells it to start, and once it serves it says where, with the first Owner's
// one-time password if this start created it (the supervisor prints the banner, once for all processes).
import type { FirstAdmin } from '../bootstrap.js';

export interface ServingReport {
  readonly stoa: 'serving';
  readonly url: string;
  readonly port: number;
  readonly firstAdmin: FirstAdmin | null;
}

export const READY_REPORT = { stoa: 'ready' } as const;
export const START_ORDER = { stoa: 'start' } as const;

export function isServingReport(m: unknown): m is ServingReport {
  const r = m as Partial<ServingReport> | null;
  return r?.stoa === 'serving' && typeof r.url === 'string' && typeof r.port === 'number';
}

export function isReadyReport(m: unknown): boolean {
  return (m as { stoa?: unknown } | null)?.stoa === 'ready';
}

/**
 * In the server process: says it is ready and resolves when the supervisor says start. Until then it holds no
 * database connection and no port (a spare), and it exits if the supervisor goes.
 */
export function awaitStartOrder(): Promise<void> {
  return new Promise<void>((resolve) => {
    // Nothing is open yet: asked to stop, or left alone, it just exits.
    const onGone = () => process.exit(0);
    const events = ['disconnect', 'SIGTERM', 'SIGINT'] as const;
    const onMessage = (m: unknown) => {
      if ((m as { stoa?: unknown } | null)?.stoa !== 'start') return;
      process.off('message', onMessage);
      for (const e of events) process.off(e, onGone);
      resolve();
    };
    process.on('message', onMessage);
    for (const e of events) process.once(e, onGone);
    process.send!(READY_REPORT);
  });
}

/** Sent by the server process (main.ts) once it serves; false when it has no IPC channel. */
export function reportServing(report: Omit<ServingReport, 'stoa'>): boolean {
  if (!process.send || !process.connected) return false;
  process.send({ stoa: 'serving', ...report } satisfies ServingReport);
  return true;
}
