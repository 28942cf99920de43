// CPU time a process (all its threads) has used so far, from /proc/<pid>/stat on Linux; null elsewhere. Sampled
// around a measurement it tells whether the server was saturated (≈100 % of one core) or the load generator was.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSec: number | null | undefined;

/** Clock ticks per second (the unit of /proc's CPU times); null where getconf is unavailable. */
export function clockTicks(): number | null {
  if (ticksPerSec !== undefined) return ticksPerSec;
  try {
    ticksPerSec = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || null;
  } catch {
    ticksPerSec = null;
  }
  return ticksPerSec;
}

/** Sums two fields of /proc/<who>/stat, counted from the field after the command name (field 3 is index 0). */
function statSeconds(who: string, a: number, b: number): number | null {
  const hz = clockTicks();
  if (!hz) return null;
  try {
    const stat = readFileSync(`/proc/${who}/stat`, 'utf8');
    // The command name is parenthesised and may contain spaces; fields are split after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[a - 3]) + Number(fields[b - 3])) / hz;
  } catch {
    return null;
  }
}

/** utime + stime (fields 14, 15) of a running process. */
export function cpuSeconds(pid: number): number | null {
  return statSeconds(String(pid), 14, 15);
}

/** cutime + cstime (fields 16, 17) of this process: its exited, reaped children. Sampled around a wrk run: wrk's use. */
export function reapedChildrenCpuSeconds(): number | null {
  return statSeconds('self', 16, 17);
}

/** Busy CPU time of the whole machine, all cores (the aggregate line of /proc/stat minus idle and iowait). */
export function machineBusySeconds(): number | null {
  const hz = clockTicks();
  if (!hz) return null;
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user/nice)
    const n = line.trim().split(/\s+/).slice(1, 9).map(Number);
    return (n.reduce((a, b) => a + b, 0) - n[3]! - n[4]!) / hz;
  } catch {
    return null;
  }
}
