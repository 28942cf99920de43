// Durable delivery against recording peers on loopback: retry with backoff while a peer is down and delivery once it
// is back, Retry-After on 429, 410/404 dropped at once, giving up, one POST per shared inbox, valid signatures on
// every POST, and the per-host concurrency bound. Activities are real actor Updates sent through the client API.
import assert from 'node:assert/strict';
import { createHash, verify } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { startRecordingInbox, type RecordedPost, type RecordingInbox } from '../support/recording-inbox.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const ENV = {
  BASE_URL: 'http://127.0.0.1:{port}',
  FEDERATION_ALLOW_PRIVATE: 'loopback',
  DELIVERY_RETRY_BASE_MS: '100',
  DELIVERY_CONCURRENCY: '2',
  DELIVERY_GIVE_UP_HOURS: '1',
};
const BASE_MS = 100;
/** The backoff Stoa is configured with: 100 ms doubling, minus up to 20 % jitter. */
const rawDelay = (attempt: number): number => BASE_MS * 2 ** (attempt - 1);

interface Row {
  activity_id: string;
  inbox_url: string;
  attempts: number;
  next_attempt_at: Date;
  give_up_at: Date;
  created_at: Date;
  lease_until: Date | null;
  last_error: string | null;
  now: Date;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('delivery', () => {
  let s: TestServer;
  let token: string;
  let localId: string;
  let actorUrl: string;
  let key: { id: string; pem: string };
  /** Follows and peers of the current test, undone after it so the next test's Update reaches only its own peers. */
  let followerIds: string[] = [];
  let peers: RecordingInbox[] = [];
  let updates = 0;

  before(async () => {
    s = await startTestServer(ENV);
    const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
    const app = await registerApp(s.url, { scopes: 'read write follow' });
    token = await userToken(s.url, jar, app, 'read write follow');
    const me = await fetch(`${s.url}/api/v1/accounts/verify_credentials`, { headers: { Authorization: `Bearer ${token}` } });
    localId = ((await me.json()) as { id: string }).id;
    actorUrl = `${s.url}/users/admin`;
    const doc = (await (await fetch(actorUrl, { headers: { Accept: 'application/activity+json' } })).json()) as { publicKey: { id: string; publicKeyPem: string } };
    key = { id: doc.publicKey.id, pem: doc.publicKey.publicKeyPem };
  });
  afterEach(async () => {
    for (const id of followerIds) await s.app.federation.follows.remove('follows', id, localId);
    await Promise.all(peers.map((p) => p.close()));
    followerIds = [];
    peers = [];
  });
  after(async () => {
    await s?.stop();
  });

  /** A peer whose actors (resolved by Stoa while the peer is healthy) follow the local member. */
  async function peerWithFollowers(names: readonly string[], sharedInbox = true): Promise<RecordingInbox> {
    const peer = await startRecordingInbox({ actors: names, sharedInbox });
    peers.push(peer);
    for (const name of names) {
      const remote = await s.app.federation.remote.byUri(peer.actorUrl(name));
      await s.app.federation.follows.follow(remote.id, localId, null);
      followerIds.push(remote.id);
    }
    return peer;
  }

  /** A profile edit: Stoa sends an actor Update to every connected server. */
  async function announce(): Promise<void> {
    const r = await fetch(`${s.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ note: `update ${++updates}` }),
    });
    assert.equal(r.status, 200);
  }

  async function rowsFor(peer: RecordingInbox): Promise<Row[]> {
    const r = await s.app.db.pool.query<Row>(
      `SELECT activity_id, inbox_url, attempts, next_attempt_at, give_up_at, created_at, lease_until, last_error, now() AS now
       FROM deliveries WHERE host = $1 ORDER BY id`,
      [peer.host],
    );
    return r.rows;
  }

  /** The one row of this peer, once it waits for its next attempt after exactly `attempts` attempts. */
  async function waitingRow(peer: RecordingInbox, attempts: number): Promise<Row> {
    let row!: Row;
    await eventually(async () => {
      const rows = await rowsFor(peer);
      assert.equal(rows.length, 1);
      row = rows[0]!;
      assert.equal(row.attempts, attempts);
      assert.equal(row.lease_until, null);
    }, 10_000, 5);
    return row;
  }

  /** The POST is signed by the local member's key (draft-cavage rsa-sha256) and its Digest matches the body. */
  function assertSignedByStoa(post: RecordedPost, peer: RecordingInbox): void {
    const header = post.headers['signature'];
    assert.equal(typeof header, 'string', 'a Signature header');
    const params = new Map([...(header as string).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    assert.equal(params.get('keyId'), key.id);
    assert.equal(params.get('algorithm'), 'rsa-sha256');
    const covered = params.get('headers')!.split(' ');
    for (const h of ['(request-target)', 'host', 'date', 'digest']) assert.ok(covered.includes(h), `${h} is signed`);
    const signingString = covered
      .map((h) => (h === '(request-target)' ? `(request-target): post ${post.path}` : `${h}: ${String(post.headers[h])}`))
      .join('\n');
    assert.ok(verify('sha256', Buffer.from(signingString), key.pem, Buffer.from(params.get('signature')!, 'base64')), 'the signature verifies');
    assert.equal(post.headers['digest'], `SHA-256=${createHash('sha256').update(post.body).digest('base64')}`);
    assert.equal(post.headers['host'], peer.host);
    assert.ok(Math.abs(Date.parse(String(post.headers['date'])) - post.at) < 5_000, 'a current Date');
    assert.match(String(post.headers['content-type']), /^application\/activity\+json/);
  }

  /** The body is an actor Update by the local member. */
  function updateOf(post: RecordedPost): { id: string; type: string; actor: string; object: { id: string } } {
    const body = JSON.parse(post.body) as { id: string; type: string; actor: string; object: { id: string } };
    assert.equal(body.type, 'Update');
    assert.equal(body.actor, actorUrl);
    assert.equal(body.object.id, actorUrl);
    return body;
  }

  it('retries a peer answering 503 with growing, jittered backoff, and delivers once the peer is back', async () => {
    const peer = await peerWithFollowers(['ann']);
    peer.setMode({ kind: 'status', status: 503 });
    await announce();
    for (let attempt = 1; attempt <= 4; attempt++) {
      const row = await waitingRow(peer, attempt);
      assert.equal(row.last_error, 'HTTP 503');
      assert.ok(row.next_attempt_at > row.now, 'the next attempt is in the future');
      // Scheduled from the attempt that just failed: the backoff for this attempt, less at most 20 % of jitter.
      const delay = row.next_attempt_at.getTime() - peer.posts[attempt - 1]!.at;
      assert.ok(delay >= rawDelay(attempt) * 0.8 && delay <= rawDelay(attempt) + 100, `attempt ${attempt}: waits ${delay} ms`);
    }
    assert.ok(peer.posts.every((p) => p.status === 503));
    peer.setMode({ kind: 'ok' });
    await eventually(async () => {
      assert.equal(peer.delivered().length, 1);
      assert.deepEqual(await rowsFor(peer), []);
    }, 10_000);
    assert.equal(peer.posts.length, 5);
    const ids = new Set(peer.posts.map((p) => updateOf(p).id));
    assert.equal(ids.size, 1, 'every attempt carries the same activity');
    assert.equal(peer.posts[4]!.path, '/inbox');
    // Each attempt is signed afresh.
    for (const p of peer.posts) assertSignedByStoa(p, peer);
  });

  it('retries while the peer refuses connections, and delivers once it listens again', async () => {
    const peer = await peerWithFollowers(['bea']);
    await peer.down();
    await announce();
    const row = await waitingRow(peer, 2);
    assert.ok(row.next_attempt_at > row.now);
    assert.ok(row.last_error, 'the connection failure is recorded');
    assert.equal(peer.posts.length, 0);
    await peer.up();
    await eventually(async () => {
      assert.equal(peer.delivered().length, 1);
      assert.deepEqual(await rowsFor(peer), []);
    }, 10_000);
    updateOf(peer.posts[0]!);
    assertSignedByStoa(peer.posts[0]!, peer);
  });

  it('waits for Retry-After after a 429 before the next attempt', async () => {
    const peer = await peerWithFollowers(['cid']);
    peer.setMode({ kind: 'status', status: 429, headers: { 'Retry-After': '1' } });
    await announce();
    const row = await waitingRow(peer, 1);
    assert.equal(row.last_error, 'HTTP 429');
    // The base backoff would be at most 100 ms; Retry-After asks for a full second.
    assert.ok(row.next_attempt_at.getTime() - peer.posts[0]!.at >= 1_000, 'scheduled at least 1 s after the 429');
    peer.setMode({ kind: 'ok' });
    await eventually(async () => {
      assert.equal(peer.delivered().length, 1);
      assert.deepEqual(await rowsFor(peer), []);
    }, 10_000);
    assert.equal(peer.posts.length, 2);
    assert.ok(peer.posts[1]!.at - peer.posts[0]!.at >= 1_000, `the retry came ${peer.posts[1]!.at - peer.posts[0]!.at} ms after the 429`);
  });

  it('drops a delivery answered 410 or 404 after one attempt', async () => {
    const gone = await peerWithFollowers(['dee']);
    const missing = await peerWithFollowers(['eve']);
    gone.setMode({ kind: 'status', status: 410 });
    missing.setMode({ kind: 'status', status: 404 });
    await announce();
    await eventually(async () => {
      assert.deepEqual(gone.posts.map((p) => p.status), [410]);
      assert.deepEqual(missing.posts.map((p) => p.status), [404]);
      assert.deepEqual(await rowsFor(gone), []);
      assert.deepEqual(await rowsFor(missing), []);
    });
    // Several base backoff periods later, still nothing retried.
    await sleep(4 * BASE_MS);
    assert.equal(gone.posts.length, 1);
    assert.equal(missing.posts.length, 1);
  });

  it('queues deliveries with the configured give-up time and drops them once it has passed', async () => {
    const peer = await peerWithFollowers(['fay']);
    peer.setMode({ kind: 'status', status: 503 });
    await announce();
    const row = await waitingRow(peer, 1);
    const giveUpAfter = row.give_up_at.getTime() - row.created_at.getTime();
    assert.ok(Math.abs(giveUpAfter - 3_600_000) < 1_000, `DELIVERY_GIVE_UP_HOURS=1 gives ${giveUpAfter} ms`);
    await s.app.db.pool.query(`UPDATE deliveries SET give_up_at = now() - interval '1 second' WHERE host = $1`, [peer.host]);
    const before = peer.posts.length;
    await eventually(async () => assert.deepEqual(await rowsFor(peer), []), 10_000);
    // Past its give-up time a row is never claimed again: at most an attempt already in flight lands.
    const attempts = peer.posts.length;
    assert.ok(attempts <= before + 1, `${attempts - before} attempts after the give-up time`);
    await sleep(4 * BASE_MS);
    assert.equal(peer.posts.length, attempts);
    assert.equal(peer.delivered().length, 0);
  });

  it('sends one POST per shared inbox, and one per follower to a peer without one', async () => {
    const shared = await peerWithFollowers(['gus', 'hal', 'ida']);
    const own = await peerWithFollowers(['jon', 'kim'], false);
    await announce();
    await eventually(async () => {
      assert.equal(shared.delivered().length, 1);
      assert.equal(own.delivered().length, 2);
      assert.deepEqual(await rowsFor(shared), []);
      assert.deepEqual(await rowsFor(own), []);
    });
    assert.equal(shared.posts.length, 1);
    assert.equal(shared.posts[0]!.path, '/inbox');
    assert.deepEqual(own.posts.map((p) => p.path).sort(), ['/users/jon/inbox', '/users/kim/inbox']);
    const ids = new Set([...shared.posts, ...own.posts].map((p) => updateOf(p).id));
    assert.equal(ids.size, 1, 'the same Update everywhere');
    for (const p of shared.posts) assertSignedByStoa(p, shared);
    for (const p of own.posts) assertSignedByStoa(p, own);
  });

  it('never has more than DELIVERY_CONCURRENCY requests in flight to one slow host', async () => {
    const names = ['la', 'lb', 'lc', 'ld', 'le', 'lf'];
    const peer = await peerWithFollowers(names, false);
    peer.setMode({ kind: 'slow', delayMs: 300 });
    await announce();
    await eventually(async () => {
      assert.equal(peer.delivered().length, names.length);
      assert.deepEqual(await rowsFor(peer), []);
    }, 15_000);
    assert.equal(peer.maxInFlight, 2, 'two at a time: the bound is reached and never passed');
    assert.deepEqual(peer.posts.map((p) => p.path).sort(), names.map((n) => `/users/${n}/inbox`).sort());
    for (const p of peer.posts) assertSignedByStoa(p, peer);
  });
});
