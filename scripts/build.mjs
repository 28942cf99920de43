#!/usr/bin/env node
// Builds dist/ with tsc and stamps it. `--if-stale` (what `npm start` runs) builds only when the server's compiled
// files are missing or a source they come from (config/, src/, actors/, tsconfig.json) is newer than the stamp, so
// a warm start runs node at once instead of a 15–30 s compile of unchanged sources. Plain JavaScript on purpose: it
// must run before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.built');
const entry = path.join(root, 'dist', 'src', 'cli', 'stoa.js');
const SOURCE_DIRS = ['config', 'src', 'actors'];
const SOURCE_FILES = ['tsconfig.json'];

/** The newest modification time among the sources the server is compiled from (.ts, and the .sql it reads). */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  for (const d of SOURCE_DIRS) if (existsSync(path.join(root, d))) walk(path.join(root, d));
  for (const f of SOURCE_FILES) newest = Math.max(newest, statSync(path.join(root, f)).mtimeMs);
  return newest;
}

function stale() {
  if (!existsSync(entry) || !existsSync(stamp)) return true;
  return newestSource() > statSync(stamp).mtimeMs;
}

if (process.argv.includes('--if-stale') && !stale()) process.exit(0);

const startedAt = Date.now();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
if (process.argv.includes('--if-stale')) process.stderr.write('Compiling (sources are newer than dist/)…\n');
const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
// The stamp takes the time the build began: a source saved during the compile is newer, so the next start rebuilds.
writeFileSync(stamp, `${new Date(startedAt).toISOString()}\n`);
utimesSync(stamp, new Date(startedAt), new Date(startedAt));
