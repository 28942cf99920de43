// Durable delivery against recording peers on loopback: retry with backoff while a peer is down and delivery once it
// is back, Retry-After on 429, 401 and 408 retried, 410/404 and redirects dropped at once, giving up, one POST per
// shared inbox, valid signatures on every POST, and the per-host concurrency bound. Activities are real actor Updates
// sent through the client API.
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
}

/** What became of one attempt, as the trigger below recorded it: rescheduled (UPDATE) or removed (DELETE). */
interface Outcome {
  op: 'UPDATE' | 'DELETE';
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
  give_up_at: Date;
  created_at: Date;
  /** The delay the retry was scheduled with: next_attempt_at less the time of the statement that set it. */
  delay_ms: number;
}

// A waiting row lasts one backoff period (80 ms for the first retry), too short to be sure of seeing it by polling
// under load. This trigger in the test's own database keeps every state a row passes through, so each attempt's
// outcome stays observable; `at` is now() of the statement that wrote the row, the same now() its delay was added to.
const KEEP_HISTORY = `
  CREATE TABLE delivery_history (
    seq bigserial PRIMARY KEY, op text NOT NULL, host text NOT NULL, attempts integer NOT NULL,
    next_attempt_at timestamptz NOT NULL, give_up_at timestamptz NOT NULL, created_at timestamptz NOT NULL,
    lease_until timestamptz, last_error text, at timestamptz NOT NULL DEFAULT now());
  CREATE FUNCTION keep_delivery_history() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE r deliveries%ROWTYPE;
  BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    INSERT INTO delivery_history (op, host, attempts, next_attempt_at, give_up_at, created_at, lease_until, last_error)
      VALUES (TG_OP, r.host, r.attempts, r.next_attempt_at, r.give_up_at, r.created_at, r.lease_until, r.last_error);
    RETURN NULL;
  END $$;
  CREATE TRIGGER keep_delivery_history AFTER UPDATE OR DELETE ON deliveries FOR EACH ROW EXECUTE FUNCTION keep_delivery_history();`;

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
    const doc = (await (await fetch(actorUrl, { headers: { Accept: 'application/activity+json' } })).json()) as {
      publicKey: { id: string; publicKeyPem: string };
    };
    key = { id: doc.publicKey.id, pem: doc.publicKey.publicKeyPem };
    await s.app.db.pool.query(KEEP_HISTORY);
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
    const r = await s.app.db.pool.query<Row>('SELECT activity_id, inbox_url, attempts FROM deliveries WHERE host = $1 ORDER BY id', [peer.host]);
    return r.rows;
  }

  /** The outcome of this peer's attempt number `attempts` (its only delivery), once Stoa has recorded it. */
  async function outcome(peer: RecordingInbox, attempts: number): Promise<Outcome> {
    let found: Outcome | undefined;
    await eventually(
      async () => {
        const r = await s.app.db.pool.query<Outcome & { delay_ms: string }>(
          `SELECT op, attempts, last_error, next_attempt_at, give_up_at, created_at, extract(epoch FROM next_attempt_at - at) * 1000 AS delay_ms
         FROM delivery_history WHERE host = $1 AND attempts = $2 AND (op = 'DELETE' OR lease_until IS NULL) ORDER BY seq LIMIT 1`,
          [peer.host, attempts],
        );
        found = r.rows[0] && { ...r.rows[0], delay_ms: Number(r.rows[0].delay_ms) };
        assert.ok(found, `the outcome of attempt ${attempts} to ${peer.host} is recorded`);
      },
      10_000,
      10,
    );
    return found!;
  }

  /** Attempt `attempts` failed with `error` and the delivery was kept for another attempt. */
  async function retried(peer: RecordingInbox, attempts: number, error: string | RegExp): Promise<Outcome> {
    const o = await outcome(peer, attempts);
    assert.equal(o.op, 'UPDATE', `attempt ${attempts} to ${peer.host} is retried, not dropped`);
    if (typeof error === 'string') assert.equal(o.last_error, error);
    else assert.match(String(o.last_error), error);
    assert.ok(o.delay_ms > 0, 'the next attempt is in the future');
    return o;
  }

  /** The peer's one delivery was removed after its first attempt, which the peer answered `status`. */
  async function droppedAfterOne(peer: RecordingInbox, status: number): Promise<void> {
    const o = await outcome(peer, 1);
    assert.equal(o.op, 'DELETE', `a ${status} is not retried`);
    assert.deepEqual(
      peer.posts.map((p) => p.status),
      [status],
    );
    assert.deepEqual(await rowsFor(peer), []);
  }

  /**
   * On the wire as well: once the host's delivery actor has claimed and sent a later activity (claims take the oldest
   * due rows first), that activity is the only POST since, so nothing was left to retry the dropped one.
   */
  async function nextActivityOnlyFollows(targets: readonly RecordingInbox[]): Promise<void> {
    const before = targets.map((p) => p.posts.length);
    for (const p of targets) p.setMode({ kind: 'ok' });
    await announce();
    await eventually(async () => {
      for (const p of targets) {
        assert.equal(p.delivered().length, 1, p.host);
        assert.deepEqual(await rowsFor(p), []);
      }
    }, 10_000);
    targets.forEach((p, i) => {
      assert.equal(p.posts.length, before[i]! + 1, `${p.host}: only the next activity was sent`);
      const earlier = new Set(p.posts.slice(0, -1).map((x) => updateOf(x).id));
      assert.ok(!earlier.has(updateOf(p.delivered()[0]!).id), 'what arrived is the new activity');
    });
  }

  /**
   * The POST is signed by the local member's key (draft-cavage, hs2019 with an RSA key) over Lemmy's header list,
   * `(request-target) content-type date digest host`, and its Digest matches the body.
   */
  function assertSignedByStoa(post: RecordedPost, peer: RecordingInbox): void {
    const header = post.headers['signature'];
    assert.equal(typeof header, 'string', 'a Signature header');
    const params = new Map([...(header as string).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    assert.equal(params.get('keyId'), key.id);
    assert.equal(params.get('algorithm'), 'hs2019');
    const covered = params.get('headers')!.split(' ');
    assert.deepEqual(covered, ['(request-target)', 'content-type', 'date', 'digest', 'host']);
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
    for (let attempt = 1; attempt <= 4; attempt++) await retried(peer, attempt, 'HTTP 503');
    peer.setMode({ kind: 'ok' });
    await eventually(async () => {
      assert.equal(peer.delivered().length, 1);
      assert.deepEqual(await rowsFor(peer), []);
    }, 10_000);
    // At least the four observed failures, then the delivery (a fifth 503 may land before the mode changes).
    const n = peer.posts.length;
    assert.ok(n >= 5, `${n} attempts`);
    assert.deepEqual(
      peer.posts.map((p) => p.status),
      [...Array<number>(n - 1).fill(503), 202],
    );
    for (let attempt = 1; attempt < n; attempt++) {
      const o = await retried(peer, attempt, 'HTTP 503');
      // The backoff for this attempt, less at most 20 % of jitter (whole milliseconds).
      assert.ok(o.delay_ms >= rawDelay(attempt) * 0.8 - 1 && o.delay_ms <= rawDelay(attempt), `attempt ${attempt}: waits ${o.delay_ms} ms`);
      // The next attempt waited for it (both clocks are this machine's; 1 ms for rounding).
      assert.ok(
        peer.posts[attempt]!.at >= o.next_attempt_at.getTime() - 1,
        `attempt ${attempt + 1} came ${o.next_attempt_at.getTime() - peer.posts[attempt]!.at} ms early`,
      );
    }
    const ids = new Set(peer.posts.map((p) => updateOf(p).id));
    assert.equal(ids.size, 1, 'every attempt carries the same activity');
    assert.equal(peer.posts[n - 1]!.path, '/inbox');
    // Each attempt is signed afresh.
    for (const p of peer.posts) assertSignedByStoa(p, peer);
  });

  it('retries while the peer refuses connections, and delivers once it listens again', async () => {
    const peer = await peerWithFollowers(['bea']);
    await peer.down();
    await announce();
    await retried(peer, 2, /./);
    assert.equal(peer.posts.length, 0);
    await peer.up();
    await eventually(async () => {
      assert.equal(peer.delivered().length, 1);
      assert.deepEqual(await rowsFor(peer), []);
    }, 10_000);
    assert.equal(peer.posts.length, 1);
    updateOf(peer.posts[0]!);
    assertSignedByStoa(peer.posts[0]!, peer);
  });

  it('waits for Retry-After after a 429 before the next attempt', async () => {
    const peer = await peerWithFollowers(['cid']);
    peer.setMode({ kind: 'status', status: 429, headers: { 'Retry-After': '1' } });
    await announce();
    const o = await retried(peer, 1, 'HTTP 429');
    // The base backoff would be at most 100 ms; Retry-After asks for a full second.
    assert.ok(o.delay_ms >= 1_000, `scheduled ${o.delay_ms} ms after the 429`);
    peer.setMode({ kind: 'ok' });
    await eventually(async () => {
      assert.equal(peer.delivered().length, 1);
      assert.deepEqual(await rowsFor(peer), []);
    }, 10_000);
    const n = peer.posts.length;
    assert.deepEqual(
      peer.posts.map((p) => p.status),
      [...Array<number>(n - 1).fill(429), 202],
    );
    for (let i = 1; i < n; i++) {
      assert.ok(peer.posts[i]!.at - peer.posts[i - 1]!.at >= 1_000, `attempt ${i + 1} came ${peer.posts[i]!.at - peer.posts[i - 1]!.at} ms after the 429`);
    }
  });

  it('retries a peer answering 401 or 408, and delivers once it accepts', async () => {
    // 401: the peer could not check our signature yet (our key fetch failed there); 408: it timed the request out.
    const unauthorized = await peerWithFollowers(['dan']);
    const timedOut = await peerWithFollowers(['dot']);
    unauthorized.setMode({ kind: 'status', status: 401 });
    timedOut.setMode({ kind: 'status', status: 408 });
    await announce();
    await retried(unauthorized, 1, 'HTTP 401');
    await retried(timedOut, 1, 'HTTP 408');
    unauthorized.setMode({ kind: 'ok' });
    timedOut.setMode({ kind: 'ok' });
    await eventually(async () => {
      for (const p of [unauthorized, timedOut]) {
        assert.equal(p.delivered().length, 1);
        assert.deepEqual(await rowsFor(p), []);
      }
    }, 10_000);
    for (const [p, status] of [
      [unauthorized, 401],
      [timedOut, 408],
    ] as const) {
      const n = p.posts.length;
      assert.deepEqual(
        p.posts.map((x) => x.status),
        [...Array<number>(n - 1).fill(status), 202],
      );
      assert.equal(new Set(p.posts.map((x) => updateOf(x).id)).size, 1, 'the same activity, delivered late');
    }
  });

  it('drops a delivery answered with a redirect after one attempt, without following it', async () => {
    const elsewhere = await startRecordingInbox({ actors: ['zed'] });
    peers.push(elsewhere);
    const statuses = [301, 302, 303, 307, 308];
    const redirecting = await Promise.all(statuses.map((_, i) => peerWithFollowers([`r${i}`])));
    for (const [i, p] of redirecting.entries()) p.setMode({ kind: 'status', status: statuses[i]!, headers: { Location: `${elsewhere.url}/inbox` } });
    await announce();
    for (const [i, p] of redirecting.entries()) await droppedAfterOne(p, statuses[i]!);
    await nextActivityOnlyFollows(redirecting);
    assert.deepEqual(elsewhere.posts, [], 'the Location was never posted to');
  });

  it('drops a delivery answered 410 or 404 after one attempt', async () => {
    const gone = await peerWithFollowers(['dee']);
    const missing = await peerWithFollowers(['eve']);
    gone.setMode({ kind: 'status', status: 410 });
    missing.setMode({ kind: 'status', status: 404 });
    await announce();
    await droppedAfterOne(gone, 410);
    await droppedAfterOne(missing, 404);
    await nextActivityOnlyFollows([gone, missing]);
  });

  it('queues deliveries with the configured give-up time and drops them once it has passed', async () => {
    const peer = await peerWithFollowers(['fay']);
    peer.setMode({ kind: 'status', status: 503 });
    await announce();
    const o = await retried(peer, 1, 'HTTP 503');
    const giveUpAfter = o.give_up_at.getTime() - o.created_at.getTime();
    assert.ok(Math.abs(giveUpAfter - 3_600_000) < 1_000, `DELIVERY_GIVE_UP_HOURS=1 gives ${giveUpAfter} ms`);
    await s.app.db.pool.query(`UPDATE deliveries SET give_up_at = now() - interval '1 second' WHERE host = $1`, [peer.host]);
    const before = peer.posts.length;
    await eventually(async () => assert.deepEqual(await rowsFor(peer), []), 10_000);
    // Past its give-up time a row is never claimed again (a claim is the change that sets a lease): at most an
    // attempt already in flight lands. A row is only removed once no attempt holds it, so all have landed by now.
    const claimedLater = await s.app.db.pool.query(
      `SELECT count(*)::int AS n FROM delivery_history WHERE host = $1 AND op = 'UPDATE' AND lease_until IS NOT NULL
         AND seq > (SELECT min(seq) FROM delivery_history WHERE host = $1 AND give_up_at < at)`,
      [peer.host],
    );
    assert.equal(claimedLater.rows[0].n, 0, 'claimed after its give-up time');
    const attempts = peer.posts.length;
    assert.ok(attempts <= before + 1, `${attempts - before} attempts after the give-up time`);
    assert.equal(peer.delivered().length, 0);
    await nextActivityOnlyFollows([peer]);
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
