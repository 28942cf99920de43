// An SSE event reaches the client whole at once, not with the next write. The bundled uWS build frames each chunk
// as `\r\n<hex>\r\n<data>`, its closing CRLF going out only with the next chunk; a client whose chunked parser waits
// for that CRLF (urllib3, so Mastodon.py) saw the last event before a quiet spell only at the next heartbeat.
// Here nothing else is written after the one event (the heartbeat is 5 minutes away), and what the client holds
// is read off the raw socket as an HTTP/1.1 parser must read it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';
import { api } from '../support/api.js';
import { launchBrowser } from '../support/browser.js';
import { mastodonPy } from '../support/cli-clients.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { registerApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { deliverable } from '../support/raw-http.js';
import { subscribed } from '../support/streaming.js';
import { eventually, within } from '../support/wait.js';

describe('SSE framing: an event is whole on the wire at once', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer({ STREAMING_HEARTBEAT_MS: '300000' });
    m = await createMembers(s, ['alice', 'bob', 'carol']);
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

  it("Mastodon.py's stream_user hands a listener the update at once, not at the next heartbeat", async (t) => {
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
    t.diagnostic(`Mastodon.py: posted to on_update in ${Math.round(out.delay * 1000)} ms`);
  });

  it('HEAD answers the head a GET has, and the connection serves the next request', async () => {
    const sock = net.connect(Number(new URL(s.url).port), '127.0.0.1');
    let raw = '';
    sock.on('data', (d: Buffer) => (raw += d.toString()));
    const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
    sock.write(`HEAD /api/v1/streaming/public HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${m.token['alice']}\r\n\r\n`);
    await eventually(() => assert.ok(raw.endsWith('\r\n\r\n'), raw));
    const head = raw;
    assert.match(head, /^HTTP\/1\.1 200 /);
    assert.match(head, /content-type: text\/event-stream/i);
    assert.equal([...s.app.streaming.hub.clients].length, 0, 'a HEAD opens no stream');
    sock.write('GET /api/v1/streaming/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await within(closed, 5_000, 'the next answer, then the close');
    assert.match(raw.slice(head.length), /^HTTP\/1\.1 200 [\s\S]*\r\n\r\nOK$/, "no body came after the HEAD's head");
  });

  it("a browser's EventSource gets the update at once; a stream the server closes is reconnected", async () => {
    const app = await registerApp(s.url, { scopes: 'read' });
    const carol = (await new UserStore(s.app.db).byAccountId(m.id['carol']!))!;
    const token = (await new TokenStore(s.app.db).issue(app.id, carol.userId, ['read'])).token;
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${s.url}/api/v1/instance`);
      await page.evaluate(`
        globalThis.got = []; globalThis.errors = 0;
        globalThis.es = new EventSource('/api/v1/streaming/public?access_token=${token}');
        globalThis.es.addEventListener('update', (e) => globalThis.got.push(JSON.parse(e.data).id));
        globalThis.es.onerror = () => globalThis.errors++;
      `);
      await subscribed(s, m.id['carol']!, 'public');
      const post = await api(s.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'to the browser' });
      assert.equal(post.status, 200);
      await eventually(async () => assert.deepEqual(await page.evaluate('globalThis.got'), [post.body.id]), 3_000);
      // Revoking the token closes the stream; the browser reconnects, is refused (401), and stops.
      const r = await fetch(`${s.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: app.client_id, client_secret: app.client_secret, token }),
      });
      assert.equal(r.status, 200);
      await eventually(async () => assert.equal(await page.evaluate('globalThis.es.readyState'), 2), 15_000);
      assert.ok(((await page.evaluate('globalThis.errors')) as number) >= 1);
    } finally {
      await browser.close();
    }
  });
});
