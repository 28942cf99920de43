// A video upload's processing held by a node killed with -9: its lease, no longer renewed, runs out, and the other
// node of the cluster (same database, same media directory) takes the job over and finishes it: the upload becomes
// playable once, the second attempt's. Test-only knobs: MEDIA_PROCESS_LEASE_MS (a minute shortened to 1.5 s) and, on
// the first node only, MEDIA_PROCESS_HOLD_MS (it holds the claimed job a minute: the window the kill lands in).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { freshDatabaseUrl } from '../support/db.js';
import { upload } from '../support/media.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { eventually } from '../support/wait.js';

describe('a media job held by a node killed with -9', () => {
  let db: pg.Pool | undefined;
  let dataDir = '';
  const nodes: ServerProcess[] = [];

  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.end();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('is taken over by the other node once its lease runs out, and finished once', async (t) => {
    const databaseUrl = await freshDatabaseUrl();
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-media-job-'));
    let base = '';
    const startNode = async (env: Record<string, string>) => {
      const n = await startServerProcess({
        databaseUrl,
        host: '127.0.0.1',
        env: (port) => ({ BASE_URL: base || `http://127.0.0.1:${port}`, STOA_DATA_DIR: dataDir, MEDIA_PROCESS_LEASE_MS: '1500', ...env }),
      });
      nodes.push(n);
      return n;
    };
    const first = await startNode({ MEDIA_PROCESS_HOLD_MS: '60000' });
    base = first.url;
    assert.ok(first.password);
    const jar = await signIn(base, 'admin', first.password);
    const app = await registerApp(base, { scopes: 'read write' });
    const token = await userToken(base, jar, app, 'read write');

    const webm = path.join(dataDir, 'clip.webm');
    execFileSync('/usr/bin/ffmpeg', ['-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=25', '-c:v', 'libvpx', webm]);
    const r = await upload(base, token, await fs.readFile(webm), {}, 'video/webm');
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const row = async () =>
      (
        await db!.query<{ processing: string; lease_owner: string | null; attempts: number }>(
          'SELECT processing, lease_owner, attempts FROM media_attachments WHERE id = $1',
          [r.body.id],
        )
      ).rows[0]!;
    await eventually(async () => assert.deepEqual([(await row()).processing, (await row()).attempts], ['running', 1]), 10_000);
    const holder = (await row()).lease_owner;

    // The second node starts while the job is held (and its lease renewed): it waits for the lease, not the job.
    const second = await startNode({});
    assert.equal((await row()).lease_owner, holder);
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await first.exited;
    await eventually(async () => assert.equal((await row()).processing, 'done'), 30_000);
    t.diagnostic(`finished by the other node ${Date.now() - killedAt} ms after the kill`);
    const done = await row();
    assert.equal(done.attempts, 2, 'claimed once by each node');
    assert.equal(done.lease_owner, null);

    const g = await fetch(`${second.url}/api/v1/media/${r.body.id}`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(g.status, 200);
    const m = (await g.json()) as { type: string; url: string };
    assert.equal(m.type, 'video');
    const file = await fetch(m.url.replace(base, second.url));
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'video/mp4');
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
