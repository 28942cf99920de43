// One timeline measurement against a running Stoa: wrk's req/s, p50 and p99, and per request the CPU of Stoa's
// process, the CPU of PostgreSQL (all its processes) and the statements Stoa sent (round trips). Shared by the
// timeline scenarios, the scale curve and --advise.
import { measure, type Probe } from './measure.js';
import { postgresCpuSeconds } from './pg-cpu.js';
import type { StoaProcess } from './processes.js';
import type { Target, WrkSettings } from './wrk.js';

export interface TimelineFigures {
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  readonly nodeUsPerReq: number | null;
  readonly pgUsPerReq: number | null;
  readonly statementsPerReq: number | null;
  /** Non-2xx responses plus socket errors: anything but 0 makes the row suspect. */
  readonly errors: number;
  /** Everything else the machine did meanwhile (not Stoa, wrk or PostgreSQL), % of one core: noise. */
  readonly otherCpuPercent: number | null;
}

/** Checks the target answers 200 with something in it (a seed that went wrong must not be benchmarked); returns its item count. */
export async function checkTimeline(baseUrl: string, t: Target): Promise<number> {
  const res = await fetch(baseUrl + t.path, { method: t.method ?? 'GET', headers: t.headers, body: t.body });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${t.method ?? 'GET'} ${t.path} answered ${res.status}: ${text.slice(0, 200)}`);
  const body: unknown = JSON.parse(text);
  const items = Array.isArray(body)
    ? body.length
    : typeof body === 'object' && body !== null
      ? Object.values(body).reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : 0), 0)
      : 0;
  if (items === 0 && !t.path.includes('verify_credentials') && t.method === undefined) throw new Error(`${t.path} answered an empty page: the seed is wrong`);
  return items;
}

/** Slow pages (hundreds of ms each, 50 at a time on two cores) must be measured, not dropped as wrk timeouts. */
const TIMEOUT_SEC = 30;

export async function measureTimeline(wrk: string, stoa: StoaProcess, t: Target, s: WrkSettings, postmaster: number | null): Promise<TimelineFigures> {
  const probes: Probe[] = [
    { name: 'pg', read: () => (postmaster === null ? null : postgresCpuSeconds(postmaster)) },
    { name: 'statements', read: () => stoa.statements() },
  ];
  const m = await measure(wrk, stoa, t, { ...s, timeoutSec: s.timeoutSec ?? TIMEOUT_SEC }, probes);
  const perReq = (v: number | null | undefined, scale: number) => (v === null || v === undefined || m.requests === 0 ? null : (v / m.requests) * scale);
  const pg = m.probes['pg'];
  // measure() counts PostgreSQL in "other" (neither the server nor wrk); here it has its own column.
  const pgPercent = pg === null || pg === undefined || m.requestsPerSec === 0 ? null : (pg / (m.requests / m.requestsPerSec)) * 100;
  return {
    requestsPerSec: m.requestsPerSec,
    p50Ms: m.p50Ms,
    p99Ms: m.p99Ms,
    requests: m.requests,
    nodeUsPerReq: m.cpuPercent === null || m.requestsPerSec === 0 ? null : (m.cpuPercent / 100 / m.requestsPerSec) * 1e6,
    pgUsPerReq: perReq(m.probes['pg'], 1e6),
    statementsPerReq: perReq(m.probes['statements'], 1),
    errors: m.non2xx + m.socketErrors,
    otherCpuPercent: m.otherCpuPercent === null || pgPercent === null ? m.otherCpuPercent : Math.max(0, m.otherCpuPercent - pgPercent),
  };
}

/** A fixed-width text table, numbers right-aligned (every column after the first `left` ones). */
export function textTable(head: readonly string[], rows: readonly (readonly string[])[], left = 1): string {
  const widths = head.map((_, i) => Math.max(head[i]!.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (l: readonly string[]) =>
    l
      .map((c, i) => (i >= left ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

export const fmt = {
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => n.toFixed(n < 10 ? 2 : 1),
  us: (n: number | null) => (n === null ? '?' : Math.round(n).toLocaleString('en-US')),
  per: (n: number | null) => (n === null ? '?' : n.toFixed(1)),
  pct: (n: number | null) => (n === null ? '?' : `${n.toFixed(0)} %`),
};

/** The figures as table cells: req/s, p50, p99, Node µs, PG µs, statements, errors, other CPU. */
export function figureCells(f: TimelineFigures): string[] {
  return [
    fmt.int(f.requestsPerSec),
    fmt.ms(f.p50Ms),
    fmt.ms(f.p99Ms),
    fmt.us(f.nodeUsPerReq),
    fmt.us(f.pgUsPerReq),
    fmt.per(f.statementsPerReq),
    String(f.errors),
    fmt.pct(f.otherCpuPercent),
  ];
}
export const FIGURE_HEAD = ['req/s', 'p50 ms', 'p99 ms', 'Node µs/req', 'PG µs/req', 'stmts/req', 'errors', 'other CPU'];
