// CPU time of a PostgreSQL server running on this machine: its postmaster found from a backend's parent (so it
// works for the embedded server and for a local DATABASE_URL alike), then the postmaster's own time, the time of
// its children that have exited (cutime/cstime: a backend that ends mid-run is not lost) and of those still
// running. Sampled around a measurement it gives PostgreSQL's share of a request's cost; null when the server is
// elsewhere (another machine, another PID namespace).
import { readdirSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { Database } from '../src/store/db.js';
import { clockTicks } from './cpu.js';

/** Fields after the parenthesised command name, so that index 0 is field 3 (state) of proc(5). */
function statFields(pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The postmaster's pid, or null when the backend serving this connection is not visible in /proc. */
export async function postmasterPid(databaseUrl: string): Promise<number | null> {
  const db = new Database(databaseUrl, 1, pino({ level: 'silent' }));
  try {
    const backend = (await db.one<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid;
    const f = statFields(String(backend));
    // A pid from another namespace may name some unrelated process here: accept it only if it is a postgres.
    if (!f || !readFileSync(`/proc/${backend}/comm`, 'utf8').startsWith('postgres')) return null;
    return Number(f[1]);
  } catch {
    return null;
  } finally {
    await db.close();
  }
}

/** CPU seconds the postmaster and all its children (live and exited) have used so far. */
export function postgresCpuSeconds(postmaster: number): number | null {
  const hz = clockTicks();
  const pm = statFields(String(postmaster));
  if (!hz || !pm) return null;
  // utime, stime, cutime, cstime are fields 14–17.
  let ticks = Number(pm[11]) + Number(pm[12]) + Number(pm[13]) + Number(pm[14]);
  const parent = String(postmaster);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(name);
    if (f && f[1] === parent) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks / hz;
}
