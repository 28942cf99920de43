// Two Stoa processes on one database; the one holding an inbox job and a delivery is killed with SIGKILL. The other
// notices the node gone (its listening connection dropped with the process) and finishes both within seconds,
// instead of after their leases (five minutes for an inbox job, a minute for a delivery, by default).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshDatabaseUrl } from '../support/db.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startRecordingInbox, type RecordingInbox } from '../support/recording-inbox.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';
/** What the issue asks of a takeover; the lease defaults are 300 s (inbox) and 60 s (delivery). */
const TAKEOVER_LIMIT_MS = 30_000;

interface Lease {
  readonly owner: string | null;
  readonly held: boolean;
}

describe('takeover of a killed node’s work by the other node', () => {
  let peer: RecordingInbox;
  let author: FakePeer;
  let db: pg.Pool;
  let dataDir: string;
  const nodes: ServerProcess[] = [];

  before(async () => {
    peer = await startRecordingInbox({ actors: ['followed'], sharedInbox: false });
    author = await startFakeActorPeer();
    await author.addActor('alice');
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-takeover-'));
  });
  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.end();
    await peer?.close();
    await author?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('an inbox job and a delivery held by a node killed with -9 are finished by the other within 30 s', async (t) => {
    const databaseUrl = await freshDatabaseUrl();
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // Two nodes of one installation: the same BASE_URL (the first node's address), each on a port of its own, taken
    // again if another process binds it between the probe and the start.
    let base = '';
    const startNode = async () => {
      const n = await startServerProcess({
        databaseUrl,
        host: '127.0.0.1',
        env: (port) => ({
          BASE_URL: base || `http://127.0.0.1:${port}`,
          STOA_DATA_DIR: dataDir,
          FEDERATION_ALLOW_PRIVATE: 'loopback',
          DELIVERY_RETRY_BASE_MS: '100',
        }),
      });
      nodes.push(n);
      return n;
    };
    const first = await startNode();
    base = first.url;
    assert.ok(first.password);
    const jar = await signIn(base, 'admin', first.password);
    const app = await registerApp(base, { scopes: 'read write follow' });
    const token = await userToken(base, jar, app, 'read write follow');
    const call = async (at: string, method: string, p: string) => {
      const r = await fetch(at + p, { method, headers: { Authorization: `Bearer ${token}` } });
      assert.equal(r.status, 200, `${method} ${p}`);
      return (await r.json()) as Record<string, unknown> & Record<string, unknown>[];
    };

    // A delivery in flight: the peer holds the Follow's POST open.
    peer.setMode({ kind: 'hang' });
    const followed = await call(base, 'GET', `/api/v1/accounts/lookup?acct=followed@${peer.host}`);
    await call(base, 'POST', `/api/v1/accounts/${String(followed['id'])}/follow`);
    await eventually(() => assert.ok(peer.inFlight >= 1, 'the Follow is being sent'), 15_000);

    // An inbox job in progress: a Create naming its Note by id, which the author's server holds unanswered.
    const admin = `${base}/users/admin`;
    const note = {
      '@context': AS,
      id: author.newId('notes'),
      type: 'Note',
      attributedTo: author.actor('alice').id,
      content: '<p>@admin written before the crash</p>',
      // Public: a private mention from a stranger would wait in a notification request (the default policy).
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [admin],
      tag: [{ type: 'Mention', href: admin, name: `@admin@${new URL(base).host}` }],
      published: new Date().toISOString(),
    };
    author.serve(note);
    author.hangDocuments(true);
    const create = { '@context': AS, id: author.newId('creates'), type: 'Create', actor: author.actor('alice').id, to: [admin], object: note.id };
    const posted = await author.signedPost(`${base}/inbox`, create, { actor: 'alice' });
    assert.equal(posted.status, 202);
    const notePath = new URL(note.id).pathname;
    await eventually(
      () =>
        assert.ok(
          author.requests.some((r) => r.method === 'GET' && r.path === notePath),
          'the Note is being fetched',
        ),
      15_000,
    );

    // The second node joins; then the first dies holding both.
    const second = await startNode();
    const leases = async (): Promise<{ inbox: Lease; delivery: Lease }> => {
      const q = async (sql: string) => (await db.query<Lease>(sql)).rows[0]!;
      return {
        inbox: await q(`SELECT lease_owner AS owner, lease_until > now() AS held FROM inbox_jobs WHERE activity_id = '${create.id}'`),
        delivery: await q(`SELECT lease_owner AS owner, lease_until > now() AS held FROM deliveries WHERE activity_id LIKE '${base}/%'`),
      };
    };
    const held = await leases();
    const killed = `:${first.child.pid}:`;
    assert.ok(held.inbox.held && held.inbox.owner?.includes(killed), `the first node holds the inbox job (${JSON.stringify(held.inbox)})`);
    assert.ok(held.delivery.held && held.delivery.owner?.includes(killed), `the first node holds the delivery (${JSON.stringify(held.delivery)})`);
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await first.exited;
    peer.setMode({ kind: 'ok' });
    author.hangDocuments(false);

    let inboxMs: number | undefined;
    let deliveryMs: number | undefined;
    await eventually(
      async () => {
        if (deliveryMs === undefined && peer.delivered().some((p) => (JSON.parse(p.body) as { type: string }).type === 'Follow')) {
          deliveryMs = Date.now() - killedAt;
        }
        if (inboxMs === undefined) {
          const mentions = await call(second.url, 'GET', '/api/v1/notifications?types[]=mention');
          if (mentions.some((n) => (n['status'] as { uri: string } | null)?.uri === note.id)) inboxMs = Date.now() - killedAt;
        }
        assert.ok(deliveryMs !== undefined, 'the Follow arrived');
        assert.ok(inboxMs !== undefined, 'the post arrived: the admin is told of its mention, through the second node');
      },
      TAKEOVER_LIMIT_MS,
      100,
    );
    t.diagnostic(`takeover after kill -9: inbox job ${inboxMs} ms, delivery ${deliveryMs} ms`);
    assert.ok(inboxMs! < TAKEOVER_LIMIT_MS && deliveryMs! < TAKEOVER_LIMIT_MS);
    await eventually(async () => {
      const left = await db.query(`SELECT 1 FROM deliveries UNION ALL SELECT 1 FROM inbox_jobs WHERE processed_at IS NULL`);
      assert.equal(left.rows.length, 0, 'nothing left queued');
    });
    const stored = await db.query('SELECT 1 FROM statuses WHERE uri = $1', [note.id]);
    assert.equal(stored.rows.length, 1, 'the post is stored once');

    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, `the second node exits cleanly on SIGTERM:\n${second.output()}`);
  });
});
