// An embedded PostgreSQL started to die with its process stops when that process is killed outright (SIGKILL runs
// no exit handler), so a crashed test or server never leaves a cluster running.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { eventually } from '../support/wait.js';

const EMBEDDED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/store/embedded.js');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function postmasterOfKilledOwner(dataDir: string): Promise<number> {
  // The owner starts the cluster, prints the postmaster's pid, and waits to be killed.
  const script = `
    const { startEmbeddedPostgres } = await import(${JSON.stringify(EMBEDDED)});
    const { pino } = await import('pino');
    await startEmbeddedPostgres(process.argv[1], pino({ level: 'silent' }), { dieWithProcess: true });
    const fs = await import('node:fs');
    process.stdout.write('pid ' + fs.readFileSync(process.argv[1] + '/pg/postmaster.pid', 'utf8').split('\\n')[0] + '\\n');
    setInterval(() => {}, 1000);`;
  const owner = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() });
  const pid = await new Promise<number>((resolve, reject) => {
    let out = '';
    owner.stdout!.on('data', (d) => {
      out += d.toString();
      const m = /pid (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    owner.on('exit', (code) => reject(new Error(`the owner exited with ${code} before starting PostgreSQL`)));
  });
  assert.ok(alive(pid), 'PostgreSQL runs while its owner lives');
  const exited = new Promise((r) => owner.on('exit', r));
  owner.kill('SIGKILL');
  await exited;
  return pid;
}

it('stops when the process that started it is killed with SIGKILL', async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-watchdog-'));
  try {
    const pid = await postmasterOfKilledOwner(dataDir);
    await eventually(() => assert.equal(alive(pid), false, 'PostgreSQL stopped with its owner'), 20_000);
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
});
