// One measurement: a warm-up run, then the measured wrk run with the CPU use of the server, of wrk and of the rest
// of the machine sampled around it (the last tells whether the figures were disturbed by something else).
import { performance } from 'node:perf_hooks';
import { cpuSeconds, machineBusySeconds, reapedChildrenCpuSeconds } from './cpu.js';
import type { ServerProcess } from './processes.js';
import { runWrk, type Target, type WrkResult, type WrkSettings } from './wrk.js';

export const WARMUP_SEC = 2;

export interface Measurement extends WrkResult {
  /** CPU use during the measured run, in % of one core, of the server and of wrk; null where /proc is unavailable. */
  readonly cpuPercent: number | null;
  readonly wrkCpuPercent: number | null;
  /** Everything else the machine did meanwhile (other processes, kernel work not charged to either): noise. */
  readonly otherCpuPercent: number | null;
  /** Each probe's growth over the measured run (null where it could not be read), by probe name. */
  readonly probes: Readonly<Record<string, number | null>>;
}

/** A counter read just before and just after the measured run (CPU seconds of another process, statements sent…). */
export interface Probe {
  readonly name: string;
  read(): number | null | Promise<number | null>;
}

const fmtPct = (n: number | null) => (n === null ? '?' : `${n.toFixed(0)} %`);

export async function measure(wrk: string, server: ServerProcess, t: Target, s: WrkSettings, probes: readonly Probe[] = []): Promise<Measurement> {
  process.stderr.write(`  ${server.name.padEnd(5)} ${t.method ?? 'GET'} ${t.path}: warm-up ${WARMUP_SEC} s, measure ${s.durationSec} s … `);
  await runWrk(wrk, server.url, t, { ...s, durationSec: WARMUP_SEC });
  const sample = () => ({ server: cpuSeconds(server.pid), wrk: reapedChildrenCpuSeconds(), machine: machineBusySeconds(), at: performance.now() });
  const readProbes = () => Promise.all(probes.map(async (p) => await p.read()));
  const probesBefore = await readProbes();
  const before = sample();
  const w = await runWrk(wrk, server.url, t, s);
  const after = sample();
  const probesAfter = await readProbes();
  const wallSec = (after.at - before.at) / 1000;
  const pct = (a: number | null, b: number | null) => (a !== null && b !== null ? ((b - a) / wallSec) * 100 : null);
  const cpu = pct(before.server, after.server);
  const wrkCpu = pct(before.wrk, after.wrk);
  const machine = pct(before.machine, after.machine);
  const other = cpu !== null && wrkCpu !== null && machine !== null ? Math.max(0, machine - cpu - wrkCpu) : null;
  const deltas = Object.fromEntries(
    probes.map((p, i) => {
      const [a, b] = [probesBefore[i], probesAfter[i]];
      return [p.name, a === null || a === undefined || b === null || b === undefined ? null : b - a];
    }),
  );
  const r = { ...w, cpuPercent: cpu, wrkCpuPercent: wrkCpu, otherCpuPercent: other, probes: deltas };
  process.stderr.write(`${Math.round(r.requestsPerSec)} req/s; CPU: server ${fmtPct(cpu)}, wrk ${fmtPct(wrkCpu)}, other ${fmtPct(other)}\n`);
  if (r.non2xx > 0 || r.socketErrors > 0) {
    process.stderr.write(`  warning: ${r.non2xx} non-2xx responses and ${r.socketErrors} socket errors in ${r.requests} requests\n`);
  }
  return r;
}
