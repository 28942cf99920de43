// Where a timeline page's time goes: seeds the timelines (bench/timeline-seeds.ts), starts Stoa with V8's CPU
// profiler, holds one page under wrk for BENCH_PROFILE_SEC seconds (default 15), stops Stoa so the profile is
// written, and prints the functions with the most self time. The .cpuprofile is kept for Chromium's DevTools.
// Run: node dist/bench/profile-page.js home   (any name bench/timelines.ts measures; BENCH_PROFILE=0: no profiler)
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBenchDatabase } from './database.js';
import { startStoa } from './processes.js';
import { timelinePaths } from './timelines.js';
import { seedTimelines } from './timeline-seeds.js';
import { findWrk, runWrk } from './wrk.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'home';
  const seconds = Number(process.env['BENCH_PROFILE_SEC'] ?? 15);
  const wrk = findWrk();
  if (!wrk) throw new Error('wrk is not on PATH');
  const db = await openBenchDatabase();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stoa-profile-'));
  try {
    // Stoa migrates the database as it starts; the seed needs the tables.
    // BENCH_PROFILE=0: the same load without the profiler (whose own cost moves the bottleneck to Node).
    const profiling = process.env['BENCH_PROFILE'] !== '0';
    const stoa = await startStoa(
      { DATABASE_URL: db.url, STOA_DATA_DIR: path.join(db.dataDir, 'stoa'), LOG_LEVEL: 'warn' },
      profiling ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [],
    );
    const seed = await seedTimelines(db.url);
    const found = timelinePaths(seed).find(([n]) => n === name);
    if (!found) throw new Error(`no timeline named ${name}`);
    const target = { path: found[1], headers: { Authorization: `Bearer ${seed.token}` } };
    await runWrk(wrk, stoa.url, target, { threads: 2, connections: 50, durationSec: 3 });
    const r = await runWrk(wrk, stoa.url, target, { threads: 2, connections: 50, durationSec: seconds });
    await stoa.stop(30_000);
    process.stdout.write(`${name}: ${r.requestsPerSec.toFixed(0)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms\n`);
    if (!profiling) return;
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no profile written in ${dir}`);
    process.stdout.write(`profile ${path.join(dir, file)}\n`);
    process.stdout.write(summarise(JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile));
  } finally {
    await db.stop();
  }
}

/** Self time per function (by name and place), the top 40, as % of all samples. */
function summarise(p: Profile): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]!)!;
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    const f = n.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(process.env['BENCH_PROFILE_TOP'] ?? 40))
    .map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)} %  ${k}`)
    .join('\n')
    .concat('\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
