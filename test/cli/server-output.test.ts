// The server as an operator starts it, as a real process: configured by .env.production in its working directory (or
// --env-file), JSON log lines when stdout is not a terminal (pretty ones on request), and the first admin's password
// in a banner that stands out, never in a log line.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { freshDatabaseUrl } from '../support/db.js';
import { freePort } from '../support/server.js';
import { eventually } from '../support/wait.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.js');
const RULE = /^━{20,}$/;

function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(DATABASE_URL|STOA_DATA_DIR|LOG_|PORT$|BASE_URL$|HOST$)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

interface Started {
  readonly child: ChildProcess;
  readonly port: number;
  stdout(): string;
  stop(): Promise<void>;
}

/** Starts main.js in a fresh directory whose .env.production holds `file`, and waits until it serves. */
async function start(file: Record<string, string>, o: { env?: Record<string, string>; args?: string[]; envFileName?: string } = {}): Promise<Started> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-server-'));
  const port = await freePort();
  const values = { PORT: String(port), DATABASE_URL: await freshDatabaseUrl(), SHUTDOWN_GRACE_MS: '2000', ...file };
  const text = Object.entries(values)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join('\n');
  await writeFile(path.join(dir, o.envFileName ?? '.env.production'), `# written by the test\n${text}\n`);
  const child = spawn(process.execPath, [MAIN, ...(o.args ?? [])], { cwd: dir, env: bareEnv(o.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d.toString()));
  child.stderr!.on('data', (d) => (err += d.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  try {
    await eventually(async () => {
      assert.equal(child.exitCode, null, `the server exited:\n${out}${err}`);
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/instance`)).status, 200);
      assert.match(out, /password: \S+\n/);
    }, 30_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    child,
    port,
    stdout: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('the server process: configuration file, log format and the first-start banner', () => {
  it('reads .env.production, logs JSON lines when stdout is not a terminal, and boxes the password outside them', async () => {
    const s = await start({ LOG_LEVEL: 'info', INSTANCE_TITLE: 'From the file' });
    try {
      const instance = (await (await fetch(`http://127.0.0.1:${s.port}/api/v1/instance`)).json()) as { title: string };
      assert.equal(instance.title, 'From the file', 'the settings came from .env.production');
      await eventually(() => assert.match(s.stdout(), /"msg":"request"/));
      const lines = s.stdout().split('\n');
      const first = lines.findIndex((l) => RULE.test(l));
      const last = lines.findLastIndex((l) => RULE.test(l));
      assert.ok(first >= 0 && last > first, `a banner between two rules:\n${s.stdout()}`);
      const banner = lines.slice(first, last + 1).join('\n');
      assert.match(banner, new RegExp(`Stoa is running at http://localhost:${s.port}`));
      assert.match(banner, /username: admin\n\s+password: \S{12,}\n/);
      const password = /password: (\S+)/.exec(banner)![1]!;
      const logLines = [...lines.slice(0, first), ...lines.slice(last + 1)].filter((l) => l.trim() !== '');
      assert.ok(logLines.length >= 3, 'start-up and request lines were logged');
      for (const l of logLines) {
        const entry = JSON.parse(l) as Record<string, unknown>;
        assert.equal(typeof entry['msg'], 'string', l);
        assert.ok(!l.includes(password), `a log line carries the password: ${l}`);
      }
      assert.ok(
        logLines.some((l) => JSON.parse(l).msg === 'configuration file read'),
        'the file it read is logged',
      );
    } finally {
      await s.stop();
    }
  });

  it('with LOG_FORMAT=pretty (as on a terminal) writes readable lines, and the real environment wins over the file', async () => {
    const s = await start(
      { LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      { env: { LOG_FORMAT: 'pretty' }, args: ['--env-file', 'stoa.env'], envFileName: 'stoa.env' },
    );
    try {
      await eventually(() => assert.match(s.stdout(), /INFO.*: request/));
      const listening = s
        .stdout()
        .split('\n')
        .find((l) => l.includes('listening'));
      assert.ok(listening, s.stdout());
      assert.match(listening, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: listening/);
      assert.throws(() => JSON.parse(listening));
      assert.match(s.stdout(), /password: \S{12,}/);
      assert.doesNotMatch(s.stdout(), /"msg":/);
    } finally {
      await s.stop();
    }
  });
});
