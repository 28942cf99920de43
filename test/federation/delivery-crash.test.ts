// "A kill -9 of the server during delivery loses nothing": Stoa runs as a separate process, queues 60 deliveries
// (30 Follows and an actor Update to 30 inboxes) to a failing peer, which then holds every POST open, and is killed
// with SIGKILL while deliveries are in flight. A new process on the same database delivers every one of them,
// without waiting for the dead process's leases to expire.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshDatabaseUrl } from '../support/db.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startRecordingInbox, type RecordingInbox } from '../support/recording-inbox.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort } from '../support/server.js';
import { eventually } from '../support/wait.js';

const FOLLOWED = 30;
const CONCURRENCY = 8;
const LEASE_MS = 60_000;

/** Stoa on this port and database, as a process of its own. */
function startNode(databaseUrl: string, port: number, dataDir: string): Promise<ServerProcess> {
  return startServerProcess({
    databaseUrl,
    port,
    host: '127.0.0.1',
    env: {
      STOA_DATA_DIR: dataDir,
      FEDERATION_ALLOW_PRIVATE: 'loopback',
      DELIVERY_RETRY_BASE_MS: '100',
      DELIVERY_LEASE_MS: String(LEASE_MS),
      DELIVERY_CONCURRENCY: String(CONCURRENCY),
    },
  });
}

async function api(
  base: string,
  token: string,
  method: string,
  p: string,
  body?: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(base + p, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('delivery across a kill -9', () => {
  let peer: RecordingInbox;
  let db: pg.Pool;
  let dataDir: string;
  const nodes: ServerProcess[] = [];

  before(async () => {
    const names = Array.from({ length: FOLLOWED }, (_, i) => `peer${i}`);
    peer = await startRecordingInbox({ actors: names, sharedInbox: false });
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-crash-'));
  });
  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.end();
    await peer?.close();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('a new process delivers every delivery queued or in flight when the old one was killed', async () => {
    const databaseUrl = await freshDatabaseUrl();
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;

    // While the deliveries are queued the peer fails them (503), so they wait with backoff; GETs (actors,
    // WebFinger) are always answered.
    peer.setMode({ kind: 'status', status: 503 });
    const first = await startNode(databaseUrl, port, dataDir);
    nodes.push(first);
    assert.ok(first.password, 'the banner shows the first admin password');
    const jar = await signIn(base, 'admin', first.password);
    const app = await registerApp(base, { scopes: 'read write follow' });
    const token = await userToken(base, jar, app, 'read write follow');

    for (let i = 0; i < FOLLOWED; i++) {
      const found = await api(base, token, 'GET', `/api/v1/accounts/lookup?acct=peer${i}@${peer.host}`);
      assert.equal(found.status, 200, JSON.stringify(found.body));
      const follow = await api(base, token, 'POST', `/api/v1/accounts/${String(found.body['id'])}/follow`);
      assert.equal(follow.status, 200);
      assert.equal(follow.body['requested'], true, 'the peer never answers, so the follow stays requested');
    }
    const update = await api(base, token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Before the crash' });
    assert.equal(update.status, 200);

    // Every delivery queued; then the peer holds POSTs open, and the process dies with deliveries in flight.
    await eventually(async () => {
      const r = await db.query<{ n: string }>('SELECT count(*) AS n FROM deliveries');
      assert.equal(Number(r.rows[0]!.n), 2 * FOLLOWED);
    }, 15_000);
    peer.setMode({ kind: 'hang' });
    await eventually(() => assert.ok(peer.inFlight >= 1, 'a POST is held open'), 15_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const queued = await db.query<{ activity_id: string; inbox_url: string; leased: boolean }>(
      `SELECT activity_id, inbox_url, lease_until > now() + interval '30 seconds' AS leased FROM deliveries`,
    );
    assert.equal(queued.rows.length, 2 * FOLLOWED, 'nothing lost by the kill');
    const leased = queued.rows.filter((r) => r.leased).length;
    assert.ok(leased >= 1 && leased <= CONCURRENCY, `${leased} deliveries in flight are still leased by the dead process`);
    assert.equal(peer.delivered().length, 0);
    const expected = new Set(queued.rows.map((r) => `${r.activity_id} → ${r.inbox_url}`));
    assert.equal(expected.size, 2 * FOLLOWED);

    // The peer recovers; a new process starts on the same database and address.
    peer.setMode({ kind: 'ok' });
    const started = Date.now();
    const second = await startNode(databaseUrl, port, dataDir);
    nodes.push(second);
    assert.equal(second.password, null, 'the same installation: no new first admin');
    await eventually(
      async () => {
        const arrived = new Set(peer.delivered().map((p) => `${(JSON.parse(p.body) as { id: string }).id} → ${peer.url}${p.path}`));
        assert.deepEqual(
          [...expected].filter((k) => !arrived.has(k)),
          [],
          'every delivery arrived',
        );
        const r = await db.query<{ n: string }>('SELECT count(*) AS n FROM deliveries');
        assert.equal(Number(r.rows[0]!.n), 0);
      },
      20_000,
      100,
    );
    assert.ok(Date.now() - started < LEASE_MS / 2, 'the dead process’s leases were released, not waited out');

    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, `Stoa exits cleanly on SIGTERM:\n${second.output()}`);
  });
});
