// How long `npm start` takes to the first answer, as an operator runs it: the real `npm start` in the repository
// (scripts/build.mjs --if-stale, then the supervisor and one server process) on an embedded PostgreSQL in a scratch
// data directory. The first start creates that database (initdb); the warm starts that follow find dist/ and the
// database ready. Against it, in the same run, what every start cost before: `npm run build` on unchanged sources.
// Run: node dist/bench/warm-start.js (after a build), or `npm run bench -- --start`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, loadavg } from './machine.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WARM_STARTS = 3;
const START_TIMEOUT_MS = 120_000;

export interface StartFigures {
  readonly firstMs: number;
  readonly warmMs: readonly number[];
  readonly compileMs: number;
  readonly loadBefore: string;
  readonly loadAfter: string;
}

/** `npm start` until GET /api/v1/instance answers 200; then the whole process group is stopped. */
async function timeStart(dataDir: string): Promise<number> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), STOA_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env['DATABASE_URL'];
  const started = performance.now();
  // Its own process group: npm, the shell it runs, the supervisor and the server are stopped together.
  const child = spawn('npm', ['start'], { cwd: REPO, env, stdio: 'ignore', detached: true });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      if (performance.now() - started > START_TIMEOUT_MS) throw new Error('npm start did not answer in time');
      const ok = await fetch(`http://127.0.0.1:${port}/api/v1/instance`).then(
        (r) => r.arrayBuffer().then(() => r.status === 200),
        () => false,
      );
      if (ok) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
    // The server stops its embedded PostgreSQL on SIGTERM; wait until the port is free for the next start.
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function measureStart(): Promise<StartFigures> {
  const loadBefore = loadavg();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-start-bench-'));
  try {
    const compileStarted = performance.now();
    const build = spawnSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'ignore' });
    if (build.status !== 0) throw new Error('npm run build failed');
    const compileMs = performance.now() - compileStarted;
    const firstMs = await timeStart(dataDir);
    const warmMs: number[] = [];
    for (let i = 0; i < WARM_STARTS; i++) warmMs.push(await timeStart(dataDir));
    return { firstMs, warmMs, compileMs, loadBefore, loadAfter: loadavg() };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

export function startTable(f: StartFigures): string {
  const s = (ms: number) => (ms / 1000).toFixed(2);
  return [
    `npm start to the first 200 (GET /api/v1/instance), embedded PostgreSQL; load ${f.loadBefore} → ${f.loadAfter}`,
    '| start | seconds |',
    '|---|---|',
    `| first (creates the database) | ${s(f.firstMs)} |`,
    ...f.warmMs.map((ms, i) => `| warm ${i + 1} | ${s(ms)} |`),
    `| what each start compiled before (npm run build, unchanged sources) | ${s(f.compileMs)} |`,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  measureStart().then(
    (f) => process.stdout.write(`${startTable(f)}\n`),
    (e: unknown) => {
      process.stderr.write(`bench start failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
