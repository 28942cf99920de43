// A client that stops reading is closed once what it left unread passes STREAMING_MAX_BUFFERED_BYTES (small here),
// on WebSocket and SSE alike, rather than buffered for without end; a client that reads is not. Closed, not skipped:
// what the slow client did receive has no gap (a prefix of what the reader got) and then it sees the close, so it
// knows to reconnect and refetch.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSse, openWs, subscribed } from '../support/streaming.js';
import { within } from '../support/wait.js';

// Links count 23 characters whatever their length (as Mastodon counts them): a post of 20 long links is ~150 KB
// rendered, so the kernel's socket buffers (megabytes on loopback) fill after a few dozen posts.
const LONG = Array.from({ length: 20 }, (_, i) => `https://example.com/${i}/${'a'.repeat(3000)}`).join(' ');

describe('slow streaming readers', () => {
  let s: TestServer;
  let m: LocalMembers;

  const connected = (who: string) => [...s.app.streaming.hub.clients].filter((c) => c.accountId === m.id[who]).length;
  /** Posts long public statuses, 4 at a time, until `done` (at most 800: the kernel's buffers fill long before). */
  const flood = async (done: () => boolean) => {
    for (let i = 0; i < 200 && !done(); i++) {
      await Promise.all(
        Array.from({ length: 4 }, async (_, j) => {
          const r = await api(s.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: `${i}.${j} ${LONG}` });
          assert.equal(r.status, 200, r.text);
        }),
      );
    }
  };

  before(async () => {
    s = await startTestServer({ STREAMING_MAX_BUFFERED_BYTES: '65536' });
    m = await createMembers(s, ['alice', 'bob', 'carol', 'dave']);
  });
  after(() => s?.stop());

  it('closes a WebSocket that does not read, and keeps one that does', async () => {
    const slow = await openWs(s.url, m.token['alice'], 'stream=public');
    const reader = await openWs(s.url, m.token['carol'], 'stream=public');
    await subscribed(s, m.id['alice']!, 'public');
    await subscribed(s, m.id['carol']!, 'public');
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    await flood(() => connected('alice') === 0);
    assert.equal(connected('alice'), 0, 'the paused socket was closed');
    assert.equal(connected('carol'), 1, 'the reading socket stays');
    assert.ok(reader.frames.length > 10);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    assert.notEqual(await slow.closed, 1000, 'the slow client sees its socket closed, not a normal end');
    const ids = (c: typeof slow) => c.frames.filter((f) => f.event === 'update').map((f) => (f.payload as { id: string }).id);
    const got = ids(slow);
    assert.ok(got.length > 0 && got.length < ids(reader).length, `${got.length} of ${ids(reader).length} before the close`);
    assert.deepEqual(got, ids(reader).slice(0, got.length), 'no frame skipped before the close');
    reader.ws.terminate();
    slow.ws.terminate();
  });

  it('closes an SSE stream that does not read, and keeps one that does', async () => {
    const reader = await openSse(s.url, '/api/v1/streaming/public', m.token['carol']);
    await subscribed(s, m.id['carol']!, 'public');
    // A raw connection that sends its request and never reads a byte of the answer.
    const sock = net.connect(new URL(s.url).port ? Number(new URL(s.url).port) : 80, '127.0.0.1');
    await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
    sock.pause();
    const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
    sock.write(`GET /api/v1/streaming/public HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${m.token['dave']}\r\n\r\n`);
    await subscribed(s, m.id['dave']!, 'public');
    await flood(() => connected('dave') === 0);
    assert.equal(connected('dave'), 0, 'the paused stream was closed');
    // The client sees its connection end (once it reads again), and reconnects as after any end.
    sock.resume();
    await within(closed, 5_000, 'the closed stream reaches the client');
    assert.equal(connected('carol'), 1, 'the reading stream stays');
    assert.ok(reader.events.length > 10);
    reader.close();
  });
});
