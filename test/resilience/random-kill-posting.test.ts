// "A crash at any instant loses nothing that was acknowledged and half-writes nothing", for posting: 200 posts (some
// with a poll, some with an image) are sent by four concurrent clients to Stoa running as a separate process, which
// is killed with SIGKILL at random moments and started again on the same database. A client that gets no answer
// retries with the same Idempotency-Key, as Mastodon clients do. In the end every post exists once, whole (its poll,
// its image), and a follower on another server received its Create, with one activity id per post.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import sharp from 'sharp';
import { freshDatabaseUrl } from '../support/db.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort } from '../support/server.js';
import { eventually } from '../support/wait.js';

const POSTS = 200;
const CLIENTS = 4;
const KILLS = 6;
const AS = 'https://www.w3.org/ns/activitystreams';

interface Wanted {
  readonly text: string;
  readonly poll: boolean;
  readonly image: boolean;
}

// A status has a poll or media, never both (as Mastodon).
const wanted = (i: number): Wanted => ({ text: `post number ${i}`, poll: i % 3 === 0, image: i % 3 === 1 && i % 2 === 0 });

describe('posting across random kill -9s', () => {
  let peer: FakePeer;
  let db: pg.Pool;
  let dataDir: string;
  let node: ServerProcess | null = null;
  const nodes: ServerProcess[] = [];

  before(async () => {
    peer = await startFakeActorPeer();
    await peer.addActor('fan');
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'stoa-kill-'));
  });
  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.end();
    await peer?.stop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('every acknowledged post is whole, exists once, and reaches the follower under one activity id', async () => {
    const databaseUrl = await freshDatabaseUrl();
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const start = async () => {
      const n = await startServerProcess({
        databaseUrl,
        port,
        host: '127.0.0.1',
        env: { STOA_DATA_DIR: dataDir, FEDERATION_ALLOW_PRIVATE: 'loopback', DELIVERY_RETRY_BASE_MS: '100' },
      });
      nodes.push(n);
      node = n;
      return n;
    };
    const first = await start();
    assert.ok(first.password);
    const jar = await signIn(base, 'admin', first.password);
    const token = await userToken(base, jar, await registerApp(base, { scopes: 'read write' }), 'read write');
    const auth = { Authorization: `Bearer ${token}` };

    // A follower on another server.
    const me = (await (await fetch(`${base}/api/v1/accounts/verify_credentials`, { headers: auth })).json()) as { url: string };
    const actorId = (await (await fetch(me.url, { headers: { Accept: 'application/activity+json' } })).json()) as { id: string; inbox: string };
    const follow = { '@context': AS, id: peer.newId('follows'), type: 'Follow', actor: peer.actor('fan').id, object: actorId.id };
    assert.equal((await peer.signedPost(actorId.inbox, follow, { actor: 'fan' })).status, 202);
    await peer.waitForPost((r) => r.body?.['type'] === 'Accept', 15_000);

    const image = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#3a6' } })
      .png()
      .toBuffer();

    // Posting, with retries under the same key until acknowledged.
    let next = 0;
    let kills = 0;
    const acked = new Map<number, { id: string; uri: string }>();
    let up: Promise<void> = Promise.resolve();
    let failed = false;
    const untilAnswered = async (send: () => Promise<Response>): Promise<Response> => {
      for (let tries = 0; ; tries++) {
        assert.ok(tries < 200, 'the server keeps not answering');
        await up;
        try {
          return await send();
        } catch {
          // Killed mid-request: the answer is lost; wait for the next process and ask again.
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const client = async () => {
      for (let i = next++; i < POSTS; i = next++) {
        const w = wanted(i);
        const body: Record<string, unknown> = { status: w.text, visibility: 'public' };
        if (w.poll) body['poll'] = { options: [`yes ${i}`, `no ${i}`], expires_in: 3600 };
        if (w.image) {
          const upload = await untilAnswered(() => {
            const form = new FormData();
            form.append('file', new Blob([image], { type: 'image/png' }), `p${i}.png`);
            return fetch(`${base}/api/v2/media`, { method: 'POST', headers: auth, body: form });
          });
          assert.equal(upload.status, 200, await upload.clone().text());
          body['media_ids'] = [((await upload.json()) as { id: string }).id];
        }
        const res = await untilAnswered(() =>
          fetch(`${base}/api/v1/statuses`, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `post-${i}` },
            body: JSON.stringify(body),
          }),
        );
        const text = await res.text();
        assert.equal(res.status, 200, `post ${i}: ${text}`);
        const s = JSON.parse(text) as { id: string; uri: string };
        acked.set(i, { id: s.id, uri: s.uri });
      }
    };
    // Kills at random points of the run, a fixed number of them: a restart costs a second or more (several on a
    // loaded machine), so kills paced by the clock would make the test's length depend on the machine's load.
    const killAt = Array.from({ length: KILLS }, () => 5 + Math.floor(Math.random() * (POSTS - 10))).sort((a, b) => a - b);
    const killer = async () => {
      for (const at of killAt) {
        while (acked.size < at && !failed) await new Promise((r) => setTimeout(r, 5));
        if (failed) return;
        // A moment later, so the kill lands among requests in flight, not between them.
        await new Promise((r) => setTimeout(r, Math.random() * 30));
        const victim = node!;
        let restarted!: () => void;
        up = new Promise((r) => (restarted = r));
        victim.child.kill('SIGKILL');
        await victim.exited;
        kills++;
        await start();
        restarted();
      }
    };
    // A failing side stops the others, so the test ends with its failure.
    const failing = (p: Promise<void>) =>
      p.catch((e: unknown) => {
        failed = true;
        throw e;
      });
    const clients = Array.from({ length: CLIENTS }, () => failing(client()));
    await Promise.all([failing(killer()), ...clients]);
    assert.equal(kills, KILLS, `the server was killed ${kills} times while posting`);

    // Each post exists once, with everything it was sent with.
    const accountId = (await (await fetch(`${base}/api/v1/accounts/verify_credentials`, { headers: auth })).json()) as { id: string };
    const stored = await db.query<{ n: string }>('SELECT count(*) AS n FROM statuses WHERE account_id = $1', [accountId.id]);
    assert.equal(Number(stored.rows[0]!.n), POSTS, 'no post was stored twice, and none half-made');
    assert.equal(new Set([...acked.values()].map((a) => a.id)).size, POSTS);
    for (const [i, a] of acked) {
      const w = wanted(i);
      const res = await fetch(`${base}/api/v1/statuses/${a.id}`, { headers: auth });
      assert.equal(res.status, 200);
      const s = (await res.json()) as { content: string; poll: { options: { title: string }[] } | null; media_attachments: unknown[] };
      assert.ok(s.content.includes(w.text), `post ${i} has its text`);
      if (w.poll)
        assert.deepEqual(
          s.poll?.options.map((o) => o.title),
          [`yes ${i}`, `no ${i}`],
          `post ${i} has its poll`,
        );
      else assert.equal(s.poll, null);
      assert.equal(s.media_attachments.length, w.image ? 1 : 0, `post ${i} has its image`);
    }

    // Every post reached the follower's server, each under one activity id (a redelivery after a kill repeats
    // the same id, which the receiver deduplicates), and nothing else was sent.
    await eventually(
      async () => {
        const r = await db.query<{ n: string }>('SELECT count(*) AS n FROM deliveries');
        assert.equal(Number(r.rows[0]!.n), 0, 'deliveries still queued');
      },
      30_000,
      100,
    );
    const creates = new Map<string, Set<string>>();
    let received = 0;
    for (const p of peer.posts()) {
      if (p.body?.['type'] !== 'Create') continue;
      received++;
      const object = p.body['object'] as { id: string };
      const ids = creates.get(object.id) ?? new Set<string>();
      ids.add(String(p.body['id']));
      creates.set(object.id, ids);
    }
    const uris = new Set([...acked.values()].map((a) => a.uri));
    assert.deepEqual(
      [...uris].filter((u) => !creates.has(u)),
      [],
      'every acknowledged post was delivered',
    );
    assert.deepEqual(
      [...creates.keys()].filter((u) => !uris.has(u)),
      [],
      'nothing was delivered for a post that does not exist',
    );
    for (const [uri, ids] of creates) assert.equal(ids.size, 1, `${uri} went out under one activity id`);
    assert.ok(received - POSTS <= kills, `${received - POSTS} redeliveries after ${kills} kills`);
  });
});
