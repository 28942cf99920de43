// What a supervised server process tells its supervisor over the IPC channel once it serves: where, and the first
// Owner's one-time password if this start created it (the supervisor prints the banner, once for all processes).
import type { FirstAdmin } from '../bootstrap.js';

export interface ServingReport {
  readonly stoa: 'serving';
  readonly url: string;
  readonly port: number;
  readonly firstAdmin: FirstAdmin | null;
}

export function isServingReport(m: unknown): m is ServingReport {
  const r = m as Partial<ServingReport> | null;
  return r?.stoa === 'serving' && typeof r.url === 'string' && typeof r.port === 'number';
}

/** Sent by the server process (main.ts); false when it has no IPC channel (not started by the supervisor). */
export function reportServing(report: Omit<ServingReport, 'stoa'>): boolean {
  if (!process.send || !process.connected) return false;
  process.send({ stoa: 'serving', ...report } satisfies ServingReport);
  return true;
}
