// A scheduled post falls due while two Stoa processes share one database; the node that has claimed it (its row
// locked, the status written but not committed) is killed with SIGKILL. Its transaction dies with it, the other node
// claims the post and publishes it: exactly one status with that text, and no scheduled row left to publish again.
// Test-only knobs: SCHEDULED_MIN_OFFSET_MS (Mastodon's 5 minutes shortened to 1 s) and, on the first node only,
// SCHEDULED_PUBLISH_HOLD_MS (it holds the claimed post a minute before committing, the window the kill lands in).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { freshDatabaseUrl } from '../support/db.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { eventually } from '../support/wait.js';

const TEXT = 'published exactly once, whoever dies';

describe('a scheduled post held by a node killed with -9', () => {
  let db: pg.Pool | undefined;
  let dataDir = '';
  const nodes: ServerProcess[] = [];

  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.end();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('is published once, by the other node, within seconds', async (t) => {
    const databaseUrl = await freshDatabaseUrl();
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-scheduled-'));
    let base = '';
    const startNode = async (env: Record<string, string>) => {
      const n = await startServerProcess({
        databaseUrl,
        host: '127.0.0.1',
        env: (port) => ({ BASE_URL: base || `http://127.0.0.1:${port}`, STOA_DATA_DIR: dataDir, SCHEDULED_MIN_OFFSET_MS: '1000', ...env }),
      });
      nodes.push(n);
      return n;
    };
    const first = await startNode({ SCHEDULED_PUBLISH_HOLD_MS: '60000' });
    base = first.url;
    assert.ok(first.password);
    const jar = await signIn(base, 'admin', first.password);
    const app = await registerApp(base, { scopes: 'read write' });
    const token = await userToken(base, jar, app, 'read write');

    const r = await fetch(`${base}/api/v1/statuses`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: TEXT, scheduled_at: new Date(Date.now() + 1_500).toISOString() }),
    });
    assert.equal(r.status, 200);
    const scheduledId = ((await r.json()) as { id: string }).id;

    const count = async () => Number((await db!.query<{ n: string }>('SELECT count(*) AS n FROM statuses WHERE text = $1', [TEXT])).rows[0]!.n);
    // Held: the row is there, but a claim (FOR UPDATE SKIP LOCKED) cannot take it: the first node's transaction has it.
    const state = async () => {
      const c = await db!.connect();
      try {
        await c.query('BEGIN');
        const exists = (await c.query('SELECT 1 FROM scheduled_statuses WHERE id = $1', [scheduledId])).rowCount === 1;
        const free = (await c.query('SELECT 1 FROM scheduled_statuses WHERE id = $1 FOR UPDATE SKIP LOCKED', [scheduledId])).rowCount === 1;
        return exists ? (free ? 'waiting' : 'held') : 'gone';
      } finally {
        await c.query('ROLLBACK');
        c.release();
      }
    };
    await eventually(async () => assert.equal(await state(), 'held'), 10_000);
    assert.equal(await count(), 0, 'the held publication is not committed');

    // The second node starts while the post is held: it sees it due but locked, and looks again every second.
    const second = await startNode({});
    assert.equal(await state(), 'held');
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await first.exited;
    await eventually(async () => {
      assert.equal(await state(), 'gone');
      assert.equal(await count(), 1);
    }, 15_000);
    t.diagnostic(`published by the other node ${Date.now() - killedAt} ms after the kill`);

    // Read through the surviving node's API: one post, with the member's timeline showing it once.
    const me = (await (await fetch(`${second.url}/api/v1/accounts/verify_credentials`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
      id: string;
    };
    const posts = (await (await fetch(`${second.url}/api/v1/accounts/${me.id}/statuses`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
      content: string;
    }[];
    assert.equal(posts.filter((p) => p.content === `<p>${TEXT}</p>`).length, 1);
    assert.equal(await count(), 1, 'still once');
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
