// The supervisor above the server processes (issue 33, parts 4 and 5), as real processes: `stoa start` with the
// embedded PostgreSQL, its server process killed with SIGKILL under a load of posts (its spare answers within 3 s,
// nothing acknowledged lost, the database untouched), then killed past the restart limit (everything stopped, exit
// 1); and with DATABASE_URL, STOA_PROCESSES=2 and no spare, two processes sharing the port, one killed and started
// afresh, and SIGTERM.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freshDatabaseUrl } from '../support/db.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { freePort } from '../support/server.js';
import { alive, startSupervisor, type SupervisorProcess } from '../support/supervisor-process.js';
import { eventually } from '../support/wait.js';

/** What the issue asks: the next requests answered within 3 s of the kill. */
const ANSWERED_WITHIN_MS = 3_000;
const METRICS_TOKEN = 'supervisor-test-metrics-token';
const STOA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/stoa.js');

interface Ack {
  readonly id: string;
  readonly sentAt: number;
  readonly at: number;
}

/** Members posting in a loop, each post sent after the last answer; every 200 is recorded with its status id. */
function postLoad(url: string, token: string, loops: number) {
  const acked: Ack[] = [];
  let failed = 0;
  let stopped = false;
  const loop = async (n: number) => {
    for (let i = 0; !stopped; i++) {
      const sentAt = Date.now();
      try {
        const r = await fetch(`${url}/api/v1/statuses`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ status: `load ${n}.${i}` }),
          signal: AbortSignal.timeout(10_000),
        });
        if (r.status === 200) acked.push({ id: ((await r.json()) as { id: string }).id, sentAt, at: Date.now() });
        else {
          await r.arrayBuffer();
          failed++;
        }
      } catch {
        failed++; // the process died under it, or nothing listens yet
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  const done = Promise.all(Array.from({ length: loops }, (_, n) => loop(n)));
  return {
    acked,
    failed: () => failed,
    stop: () => {
      stopped = true;
      return done;
    },
  };
}

/** GET over a connection of its own (SO_REUSEPORT spreads connections, not requests). */
function freshGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/**
 * n scrapes of /metrics, one after another, each on a new connection: each answer counts the scrapes its process
 * finished before. One process answering them all counts c, c+1, …, c+n-1; anything else means two answered.
 */
async function scrapeCounts(url: string, n: number): Promise<number[]> {
  const counts: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await freshGet(`${url}/metrics`, { Authorization: `Bearer ${METRICS_TOKEN}` });
    assert.equal(r.status, 200);
    const m = /^stoa_http_request_duration_seconds_count\{[^}]*route="\/metrics"[^}]*\} (\d+)$/m.exec(r.body);
    counts.push(m ? Number(m[1]) : 0);
  }
  return counts;
}

const oneProcess = (counts: readonly number[]) => counts.every((c, i) => c === counts[0]! + i);

async function memberToken(sup: SupervisorProcess): Promise<string> {
  assert.ok(sup.password, 'the banner shows the first Owner’s password');
  const jar = await signIn(sup.url, 'admin', sup.password);
  const app = await registerApp(sup.url, { scopes: 'read write' });
  return userToken(sup.url, jar, app, 'read write');
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('the supervisor above the server processes', () => {
  it('a bad setting stops it before anything starts, with one line and EX_CONFIG (78)', () => {
    const r = spawnSync(process.execPath, [STOA, 'start'], {
      env: { ...process.env, STOA_PROCESSES: '0', STOA_DATA_DIR: '/nonexistent' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 78);
    assert.match(r.stderr.trim(), /^Invalid configuration: STOA_PROCESSES [^\n]*"0"\)$/);
  });

  it('refuses METRICS_LISTEN with more than one process (they cannot all listen there), EX_CONFIG', () => {
    const r = spawnSync(process.execPath, [STOA, 'start'], {
      env: { ...process.env, STOA_PROCESSES: '2', METRICS_LISTEN: '127.0.0.1:9394', STOA_DATA_DIR: '/nonexistent' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 78);
    assert.match(r.stderr.trim(), /^Invalid configuration: METRICS_LISTEN cannot be used with STOA_PROCESSES above 1/);
  });

  const started: SupervisorProcess[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const s of started) {
      for (const pid of s.serving().values()) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
      await s.exited;
    }
    for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  });

  it('embedded database: a server process killed with SIGKILL under load is answering again within 3 s, nothing acknowledged is lost, the database lives on; past the restart limit everything stops, exit 1', async (t) => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-sup-'));
    dirs.push(dataDir);
    const sup = await startSupervisor({
      port: await freePort(),
      env: { DATABASE_URL: undefined, STOA_DATA_DIR: dataDir, STOA_RESTART_INTENSITY: '2', STOA_RESTART_PERIOD_MS: '60000' },
    });
    started.push(sup);
    const postmaster = Number((await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n', 1)[0]);
    assert.ok(alive(postmaster), 'the supervisor runs the embedded PostgreSQL');
    const token = await memberToken(sup);

    const load = postLoad(sup.url, token, 4);
    await eventually(() => assert.ok(load.acked.length >= 40, 'posts are acknowledged'), 20_000);
    const first = sup.serving().get('server:1')!;
    process.kill(first, 'SIGKILL');
    const killedAt = Date.now();
    const second = await sup.servingAgain('server:1', first);
    const afterKill = () => load.acked.filter((a) => a.sentAt >= killedAt);
    await eventually(() => assert.ok(afterKill().length >= 40, 'posts are acknowledged after the restart'), 20_000);
    await load.stop();
    const answeredMs = Math.min(...afterKill().map((a) => a.at)) - killedAt;
    const serving = sup.events().find((e) => e['msg'] === 'server process serving' && e['pid'] === second)!;
    const servingMs = Date.parse(serving['time'] as string) - killedAt;
    t.diagnostic(
      `SIGKILL under load: serving again after ${servingMs} ms, answering after ${answeredMs} ms; ${load.acked.length} posts acknowledged, ${load.failed()} failed`,
    );
    assert.ok(answeredMs < ANSWERED_WITHIN_MS, `the next post was answered ${answeredMs} ms after the kill`);
    assert.ok(
      sup.events().some((e) => e['msg'] === 'server process started' && e['pid'] === second && e['spare'] === true),
      'the spare took its place',
    );
    assert.ok(alive(postmaster), 'the embedded PostgreSQL outlived the server process');

    // Every acknowledged post is there.
    const ids = load.acked.map((a) => a.id);
    for (let i = 0; i < ids.length; i += 20) {
      const statuses = await Promise.all(
        ids.slice(i, i + 20).map((id) => fetch(`${sup.url}/api/v1/statuses/${id}`, { headers: { Authorization: `Bearer ${token}` } })),
      );
      for (const [j, r] of statuses.entries()) {
        await r.arrayBuffer();
        assert.equal(r.status, 200, `acknowledged status ${ids[i + j]} is kept`);
      }
    }

    // Two more deaths within the period: the third restart is past STOA_RESTART_INTENSITY=2.
    process.kill(second, 'SIGKILL');
    const third = await sup.servingAgain('server:1', second);
    process.kill(third, 'SIGKILL');
    const exit = await within(sup.exited, 30_000, 'the supervisor exits');
    assert.deepEqual(exit, { code: 1, signal: null }, 'past the restart limit the supervisor exits 1');
    assert.ok(
      sup.events().some((e) => e['msg'] === 'restart limit reached'),
      'it says why',
    );
    await eventually(() => assert.ok(!alive(postmaster), 'the embedded PostgreSQL is stopped'), 10_000);
  });

  it('the supervisor killed with SIGKILL takes everything with it: its server processes, the spare, the embedded database', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-sup-'));
    dirs.push(dataDir);
    const sup = await startSupervisor({ port: await freePort(), env: { DATABASE_URL: undefined, STOA_DATA_DIR: dataDir } });
    started.push(sup);
    const postmaster = Number((await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n', 1)[0]);
    const spare = () => sup.events().find((e) => e['msg'] === 'spare server process started')?.['pid'] as number | undefined;
    await eventually(() => assert.ok(spare(), 'a spare is loaded'), 10_000);
    const pids = [...sup.serving().values(), spare()!, postmaster];
    assert.ok(pids.every(alive));
    sup.child.kill('SIGKILL');
    await sup.exited;
    await eventually(() => assert.deepEqual(pids.filter(alive), [], 'nothing outlives the supervisor'), 15_000);
  });

  it('STOA_PROCESSES=2 on DATABASE_URL, no spare: both processes answer on the one port, one killed leaves the other serving and comes back; SIGTERM stops all, exit 0', async (t) => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-sup-'));
    dirs.push(dataDir);
    const sup = await startSupervisor({
      port: await freePort(),
      processes: 2,
      env: { DATABASE_URL: await freshDatabaseUrl(), STOA_DATA_DIR: dataDir, METRICS_TOKEN, STOA_SPARE_PROCESS: 'false' },
    });
    started.push(sup);
    const pids = [...sup.serving().values()];
    assert.equal(new Set(pids).size, 2, 'two server processes');
    assert.equal(sup.banners(), 1, 'the banner is printed once');
    assert.ok(sup.password, 'with the first Owner’s password');
    assert.ok(!oneProcess(await scrapeCounts(sup.url, 20)), 'connections are answered by both processes');

    const killed = sup.serving().get('server:1')!;
    const other = sup.serving().get('server:2')!;
    process.kill(killed, 'SIGKILL');
    const killedAt = Date.now();
    await eventually(async () => assert.equal((await freshGet(`${sup.url}/health`)).status, 200), ANSWERED_WITHIN_MS, 10);
    t.diagnostic(`one of two killed: answered after ${Date.now() - killedAt} ms`);
    await sup.servingAgain('server:1', killed);
    assert.equal(sup.serving().get('server:2'), other, 'the other process was left alone');
    assert.ok(!oneProcess(await scrapeCounts(sup.url, 20)), 'after the restart both processes answer again');

    const now = [...sup.serving().values()];
    sup.child.kill('SIGTERM');
    const exit = await within(sup.exited, 20_000, 'the supervisor exits on SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null });
    for (const pid of now) assert.ok(!alive(pid), `server process ${pid} stopped`);
  });
});
