// The results table: one row per scenario and server, with the Stoa/bare ratios measured in the same run.
import type { Measurement } from './measure.js';

export interface Row {
  readonly scenario: string;
  readonly bare: Measurement;
  readonly stoa: Measurement;
}

/** Server CPU time per request in µs: unlike req/s, it does not depend on whether the server or wrk was the bottleneck. */
const usPerRequest = (m: Measurement) => (m.cpuPercent === null ? null : (m.cpuPercent / 100 / m.requestsPerSec) * 1e6);

export function table(rows: readonly Row[]): string {
  const fmtRps = (n: number) => Math.round(n).toLocaleString('en-US');
  const fmtUs = (m: Measurement) => usPerRequest(m)?.toFixed(1) ?? '?';
  const fmtCpu = (m: Measurement) => [m.cpuPercent, m.wrkCpuPercent, m.otherCpuPercent].map((n) => (n === null ? '?' : n.toFixed(0))).join('/') + ' %';
  const ratio = (a: number | null, b: number | null, suffix = '') => (a === null || b === null ? '?' : `${(a / b).toFixed(2)}${suffix}`);
  const lines: string[][] = [
    ['scenario', 'server', 'req/s', 'p99 ms', 'CPU µs/req', 'CPU server/wrk/other', 'Stoa/bare req/s', 'Stoa/bare p99', 'Stoa/bare µs/req'],
  ];
  for (const r of rows) {
    const { bare, stoa } = r;
    lines.push([r.scenario, 'bare', fmtRps(bare.requestsPerSec), bare.p99Ms.toFixed(2), fmtUs(bare), fmtCpu(bare), '', '', '']);
    lines.push([
      r.scenario,
      'stoa',
      fmtRps(stoa.requestsPerSec),
      stoa.p99Ms.toFixed(2),
      fmtUs(stoa),
      fmtCpu(stoa),
      ratio(stoa.requestsPerSec, bare.requestsPerSec),
      ratio(stoa.p99Ms, bare.p99Ms, '×'),
      ratio(usPerRequest(stoa), usPerRequest(bare), '×'),
    ]);
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const fmt = (l: string[]) =>
    l
      .map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(lines[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.slice(1).map(fmt)].join('\n');
}
