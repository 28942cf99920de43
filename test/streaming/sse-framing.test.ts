// An SSE event reaches the client whole at once, not with the next write. The bundled uWS build frames each chunk
// as `\r\n<hex>\r\n<data>`, its closing CRLF going out only with the next chunk; a client whose chunked parser waits
// for that CRLF (urllib3, so Mastodon.py) saw the last event before a quiet spell only at the next heartbeat.
// Here nothing else is written after the one event (the heartbeat is 5 minutes away), and what the client holds
// is read off the raw socket as an HTTP/1.1 parser must read it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { mastodonPy } from '../support/cli-clients.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { subscribed } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

/**
 * The body bytes an HTTP/1.1 client can hand on so far: with a Content-Length, all that arrived; chunked, only the
 * chunks complete with their closing CRLF (a parser must see that CRLF before it ends the chunk).
 */
function deliverable(raw: Buffer): { headers: string; body: string } | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const headers = raw.subarray(0, end).toString('latin1');
  if (!/^transfer-encoding:\s*chunked/im.test(headers)) return { headers, body: raw.subarray(end + 4).toString('utf8') };
  // uWS writes the head's blank line as the first chunk's leading CRLF: the chunks start right after it.
  const parts: Buffer[] = [];
  let at = end + 4;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    assert.ok(Number.isInteger(size), `a chunk size line: ${JSON.stringify(raw.subarray(at, lineEnd).toString('latin1'))}`);
    const dataEnd = lineEnd + 2 + size;
    if (raw.length < dataEnd + 2) break;
    assert.equal(raw.subarray(dataEnd, dataEnd + 2).toString('latin1'), '\r\n', 'a chunk ends with CRLF');
    parts.push(raw.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
  return { headers, body: Buffer.concat(parts).toString('utf8') };
}

describe('SSE framing: an event is whole on the wire at once', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer({ STREAMING_HEARTBEAT_MS: '300000' });
    m = await createMembers(s, ['alice', 'bob']);
  });
  after(() => s?.stop());

  it('a raw HTTP/1.1 reader holds the whole update within 100 ms of its first byte, with no later write', async () => {
    const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1');
    const received: Buffer[] = [];
    sock.on('data', (d: Buffer) => received.push(d));
    await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
    sock.write(`GET /api/v1/streaming/public HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${m.token['alice']}\r\n\r\n`);
    await subscribed(s, m.id['alice']!, 'public');
    await eventually(() => assert.ok(Buffer.concat(received).includes(':)\n')));

    const post = await api(s.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'one event, then quiet' });
    assert.equal(post.status, 200);
    // The moment the event's bytes begin to arrive, then 100 ms for the rest: no other write comes meanwhile.
    await eventually(() => assert.ok(Buffer.concat(received).includes('event: update')));
    const started = Date.now();
    await eventually(
      () => {
        const got = deliverable(Buffer.concat(received));
        assert.ok(got, 'the head arrived');
        const m2 = /^:\)\nevent: update\ndata: (.*)\n\n$/.exec(got.body);
        assert.ok(m2, `the whole update is deliverable: ${JSON.stringify(got.body.slice(0, 60))}…`);
        assert.equal(JSON.parse(m2[1]!).id, post.body.id);
      },
      100,
      5,
    );
    assert.ok(Date.now() - started < 150);
    // Nothing but the event was written: the stream is not kept alive by writes.
    assert.ok(!Buffer.concat(received).includes(':thump'));
    sock.destroy();
    await eventually(() => assert.equal([...s.app.streaming.hub.clients].length, 0));
  });

  it("Mastodon.py's stream_user hands a listener the update at once, not at the next heartbeat", async () => {
    const out = (await mastodonPy(
      s.url,
      'alice',
      'member-password-1',
      `
import threading, time
from mastodon import StreamListener
arrived = threading.Event()
got = {}
class Listener(StreamListener):
    def on_update(self, status):
        if 'python marker' in status['content'] and 'at' not in got:
            got['at'] = time.monotonic()
            arrived.set()
handle = m.stream_user(Listener(), run_async=True, timeout=10)
deadline = time.monotonic() + 10
while not handle.is_receiving() and time.monotonic() < deadline:
    arrived.wait(0.02)
out['receiving'] = handle.is_receiving()
posted = time.monotonic()
m.status_post('python marker')
arrived.wait(8)
out['delay'] = got['at'] - posted if 'at' in got else None
handle.close()
`,
    )) as { receiving: boolean; delay: number | null };
    assert.equal(out.receiving, true);
    assert.ok(out.delay !== null, 'the update arrived within 8 s');
    assert.ok(out.delay < 3, `the update arrived after ${out.delay} s`);
  });
});
