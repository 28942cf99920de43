// The uWS front end on its own: routing, body limits and decoding, errors as JSON, CORS, aborted requests.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../config/schema.js';
import { Errors } from '../../src/errors.js';
import { json, jsonPieces } from '../../src/http/respond.js';
import { HttpServer } from '../../src/http/server.js';
import { PUBLIC } from '../../src/http/types.js';
import { nativeUws } from '../../src/http/uws.js';
import { errorPage } from '../../src/web/layout.js';
import { rawExchange } from '../support/raw-http.js';
import { eventually } from '../support/wait.js';

describe('uWebSockets.js binding', () => {
  it('is the native binary, not the slow JS fallback', () => {
    assert.equal(nativeUws, true);
  });
});

/** n pieces of a JSON array of strings with two- to four-byte characters in UTF-8 (and a surrogate pair). */
function piecesOf(n: number): string[] {
  const parts = Array.from({ length: n }, (_, i) => (i ? ',' : '[') + JSON.stringify(`${i}: é € 😀 ${'x'.repeat(i % 700)}`));
  parts.push(n ? ']' : '[]');
  return parts;
}

describe('HTTP front end', () => {
  let server: HttpServer;
  let base: string;
  let handled = 0;
  let slowStarted: () => void = () => undefined;
  let releaseSlow: () => void = () => undefined;

  before(async () => {
    const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', MAX_BODY_BYTES: '2048', MAX_FORM_BYTES: '1024', MAX_MULTIPART_BYTES: '4096' });
    server = new HttpServer({
      config,
      log: pino({ level: 'silent' }),
      errorPage: errorPage('Stoa'),
      routes: [
        { method: 'POST', path: '/api/v1/echo', auth: PUBLIC, body: true, handler: (req) => json(200, { body: req.body, query: req.query }) },
        { method: 'POST', path: '/api/v1/echo-upload', auth: PUBLIC, body: true, takesFiles: true, handler: (req) => json(200, { body: req.body }) },
        { method: 'GET', path: '/api/v1/things/:id', auth: PUBLIC, handler: (req) => json(200, { id: req.params['id'] }) },
        { method: 'GET', path: '/api/v1/things/:id/parts/:part', auth: PUBLIC, handler: (req) => json(200, req.params) },
        { method: 'GET', path: '/api/v1/pieces/:n', auth: PUBLIC, handler: (req) => jsonPieces(200, piecesOf(Number(req.params['n']))) },
        {
          method: 'GET',
          path: '/api/v1/boom',
          auth: PUBLIC,
          handler: () => {
            throw new Error('a bug');
          },
        },
        {
          method: 'GET',
          path: '/api/v1/teapot',
          auth: PUBLIC,
          handler: () => {
            throw Errors.forbidden();
          },
        },
        { method: 'GET', path: '/api/v1/split', auth: PUBLIC, handler: () => json(200, {}, { Location: '/x\r\nSet-Cookie: evil=1' }) },
        { method: 'GET', path: '/api/v1/nothing', auth: PUBLIC, handler: () => undefined as never },
        {
          method: 'POST',
          path: '/api/v1/slow',
          auth: PUBLIC,
          body: true,
          handler: async () => {
            slowStarted();
            await new Promise<void>((r) => (releaseSlow = r));
            handled++;
            return json(200, {});
          },
        },
      ],
    });
    const port = await server.listen();
    base = `http://127.0.0.1:${port}`;
  });
  after(() => server.stopAccepting());

  it('routes path parameters, decoding them', async () => {
    const r = await fetch(`${base}/api/v1/things/a%20b/parts/7`);
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { id: 'a b', part: '7' });
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const r = await fetch(`${base}/api/v1/nothing-here`);
    assert.equal(r.status, 404);
    assert.match(r.headers.get('content-type')!, /application\/json/);
    assert.deepEqual(await r.json(), { error: 'Not found' });
  });

  it('answers a wrong method with a JSON 405 and an Allow header', async () => {
    const r = await fetch(`${base}/api/v1/things/1`, { method: 'DELETE' });
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'GET, HEAD');
    assert.equal(((await r.json()) as { error: string }).error, 'Method not allowed');
  });

  it('renders an HTML 404 page for browser paths', async () => {
    const r = await fetch(`${base}/no/such/page`);
    assert.equal(r.status, 404);
    assert.match(r.headers.get('content-type')!, /text\/html/);
    assert.match(await r.text(), /Page not found/);
  });

  it('decodes JSON, url-encoded (Rails brackets) and multipart bodies', async () => {
    const j = await fetch(`${base}/api/v1/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":[1,2]}' });
    assert.deepEqual(((await j.json()) as { body: unknown }).body, { a: [1, 2] });

    const f = await fetch(`${base}/api/v1/echo?x=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'media_ids[]=1&media_ids[]=2&poll[options][]=yes&poll[options][]=no&poll[expires_in]=300',
    });
    assert.deepEqual(await f.json(), {
      body: { media_ids: ['1', '2'], poll: { options: ['yes', 'no'], expires_in: '300' } },
      query: { x: '1' },
    });

    const form = new FormData();
    form.append('description', 'a café');
    form.append('file', new Blob([Buffer.from([1, 2, 3])], { type: 'image/png' }), 'dot.png');
    const m = await fetch(`${base}/api/v1/echo-upload`, { method: 'POST', body: form });
    type Echoed = { description: string; file: { filename: string; contentType: string; path: string; size: number; head: { data: number[] } } };
    const echoed = ((await m.json()) as { body: Echoed }).body;
    assert.equal(echoed.description, 'a café');
    assert.equal(echoed.file.filename, 'dot.png');
    assert.equal(echoed.file.contentType, 'image/png');
    assert.equal(echoed.file.size, 3);
    assert.deepEqual(echoed.file.head.data, [1, 2, 3]);
    // The file part went to a temporary file, removed once the request ended.
    await eventually(() => assert.equal(existsSync(echoed.file.path), false));
    // A route that takes no files refuses a file part rather than store it.
    const refused = await fetch(`${base}/api/v1/echo`, { method: 'POST', body: form });
    assert.equal(refused.status, 400);
    assert.deepEqual(await refused.json(), { error: 'Malformed multipart (this endpoint takes no files) body' });

    // A part with a type but no filename is a text field (as in Rack), even when it arrives as a stream.
    const typed = await fetch(`${base}/api/v1/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'multipart/form-data; boundary=b0' },
      body: '--b0\r\nContent-Disposition: form-data; name="note"\r\nContent-Type: application/octet-stream\r\n\r\nhello\r\n--b0--\r\n',
    });
    assert.deepEqual(((await typed.json()) as { body: unknown }).body, { note: 'hello' });
  });

  it('refuses a body over the limit with 413, whether declared or chunked', async () => {
    const declared = await fetch(`${base}/api/v1/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ s: 'x'.repeat(3000) }),
    });
    assert.equal(declared.status, 413);
    assert.equal(((await declared.json()) as { error: string }).error, 'Request entity too large');

    // A form has its own, smaller limit.
    const form = await fetch(`${base}/api/v1/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `a=${'x'.repeat(1500)}`,
    });
    assert.equal(form.status, 413);

    // Chunked: no Content-Length, so the limit is enforced while streaming.
    const raw = await rawExchange(
      base,
      [
        'POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        ...Array.from({ length: 5 }, () => `400\r\n${'x'.repeat(0x400)}\r\n`),
        '0\r\n\r\n',
      ],
      { timeoutMs: 3_000 },
    );
    assert.match(raw, /^HTTP\/1\.1 413/);
  });

  it('keeps every digit of a long JSON integer (as its digits), and only of a bare integer value', async () => {
    const echo = async (text: string) => {
      const r = await fetch(`${base}/api/v1/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
      return { status: r.status, body: ((await r.json()) as { body: unknown }).body };
    };
    const text =
      '{"id": 9223372036854775807, "ids":[1234567890123456789 ,12],"small":123456789012345,' +
      '"in string":"9223372036854775807 \\" 1234567890123456789","neg":-12345678901234567,"frac":12345678901234567.5,"exp":12345678901234567e2}';
    assert.deepEqual((await echo(text)).body, {
      id: '9223372036854775807',
      ids: ['1234567890123456789', 12],
      small: 123456789012345,
      'in string': '9223372036854775807 " 1234567890123456789',
      // Left to JSON.parse: still numbers, as near as a double gets.
      neg: JSON.parse('-12345678901234567'),
      frac: JSON.parse('12345678901234567.5'),
      exp: JSON.parse('12345678901234567e2'),
    });
    // Nothing malformed becomes well-formed: a number as a key, a leading zero.
    assert.equal((await echo('{12345678901234567890: 1}')).status, 400);
    assert.equal((await echo('{"a": 01234567890123456789}')).status, 400);
  });

  it('ignores one trailing slash on a path (as Rails does), and only one', async () => {
    const r = await fetch(`${base}/api/v1/things/a%20b/parts/7/?x=1`);
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { id: 'a b', part: '7' });
    assert.equal((await fetch(`${base}/api/v1/echo/`, { method: 'POST' })).status, 200);
    assert.equal((await fetch(`${base}/api/v1/things/1/`, { method: 'DELETE' })).status, 405);
    assert.equal((await fetch(`${base}/api/v1/things/1//`)).status, 404);
    assert.equal((await fetch(`${base}/api/v1/things//`)).status, 404);
  });

  it('answers malformed JSON with 400 and an unknown content type with 415', async () => {
    const bad = await fetch(`${base}/api/v1/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":' });
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: 'Malformed JSON body' });
    const xml = await fetch(`${base}/api/v1/echo`, { method: 'POST', headers: { 'Content-Type': 'application/xml' }, body: '<a/>' });
    assert.equal(xml.status, 415);
    assert.equal(((await xml.json()) as { error: string }).error, 'Unsupported media type');
    const multipart = await fetch(`${base}/api/v1/echo`, { method: 'POST', headers: { 'Content-Type': 'multipart/form-data; boundary=zz' }, body: 'garbage' });
    assert.equal(multipart.status, 400);
  });

  it('maps a thrown ApiError to its status and a bug to a JSON 500 without crashing', async () => {
    const forbidden = await fetch(`${base}/api/v1/teapot`);
    assert.equal(forbidden.status, 403);
    assert.deepEqual(await forbidden.json(), { error: 'This action is not allowed' });
    const boom = await fetch(`${base}/api/v1/boom`);
    assert.equal(boom.status, 500);
    assert.deepEqual(await boom.json(), { error: 'Internal server error' });
    assert.equal((await fetch(`${base}/api/v1/things/2`)).status, 200);
  });

  it('never lets query parameters pollute prototypes or crash the server', async () => {
    const r = await fetch(`${base}/api/v1/echo?a[__proto__][X-Evil]=1&b[__proto__][X][y]=1`, { method: 'POST' });
    assert.equal(r.status, 200);
    const next = await fetch(`${base}/api/v1/things/1`);
    assert.equal(next.headers.get('x-evil'), null);
    assert.equal(next.status, 200);
  });

  it('turns an unwritable reply (split header, missing reply) into a 500, never an injected header', async () => {
    const split = await fetch(`${base}/api/v1/split`, { redirect: 'manual' });
    assert.equal(split.status, 500);
    assert.equal(split.headers.get('set-cookie'), null);
    assert.equal((await fetch(`${base}/api/v1/nothing`)).status, 500);
    assert.equal((await fetch(`${base}/api/v1/things/4`)).status, 200);
  });

  it('refuses a Content-Length that is not a plain decimal number, leaking nothing', async () => {
    // uWS itself may drop such a request before our handler; either way no request may stay in flight.
    const raw = await rawExchange(base, ['POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 0x2\r\n\r\n{}'], {
      timeoutMs: 3_000,
    }).catch(() => '');
    assert.ok(raw === '' || /^HTTP\/1\.1 400/.test(raw), raw);
    assert.equal(await server.drain(500), true);
    assert.equal((await fetch(`${base}/api/v1/things/5`)).status, 200);
  });

  it('releases a request whose client vanished mid-body, so shutdown need not wait for it', async () => {
    const sock = net.connect(Number(new URL(base).port), '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write('POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a"');
    await new Promise((r) => setTimeout(r, 30));
    sock.destroy();
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(await server.drain(500), true);
  });

  it('sends CORS headers on API paths and answers preflights', async () => {
    const r = await fetch(`${base}/api/v1/things/1`, { headers: { Origin: 'https://client.example' } });
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.match(r.headers.get('access-control-expose-headers')!, /Link/);
    const pre = await fetch(`${base}/api/v1/echo`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://client.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-methods'), 'POST');
    assert.equal(pre.headers.get('access-control-allow-headers'), 'authorization, content-type');
    const page = await fetch(`${base}/no/such/page`);
    assert.equal(page.headers.get('access-control-allow-origin'), null);
  });

  it('gives every response a request id', async () => {
    const a = await fetch(`${base}/api/v1/things/1`);
    const b = await fetch(`${base}/api/v1/things/1`);
    assert.ok(a.headers.get('x-request-id'));
    assert.notEqual(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
  });

  it('survives a client that aborts mid-request and never writes to it', async () => {
    const started = new Promise<void>((r) => (slowStarted = r));
    const sock = net.connect(Number(new URL(base).port), '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write('POST /api/v1/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
    await started;
    sock.destroy();
    await new Promise((r) => setTimeout(r, 50));
    releaseSlow();
    // The handler finishes and its reply to the vanished client is dropped without a crash.
    await eventually(() => assert.equal(handled, 1));
    // A body cut off before it is complete is abandoned too.
    const sock2 = net.connect(Number(new URL(base).port), '127.0.0.1');
    await new Promise((r) => sock2.once('connect', r));
    sock2.write('POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a"');
    await new Promise((r) => setTimeout(r, 20));
    sock2.destroy();
    const r = await fetch(`${base}/api/v1/things/3`);
    assert.equal(r.status, 200);
  });

  it('refuses a duplicate Authorization, Content-Length or Host header with 400 before any handler, and hangs up', async () => {
    const auth = await exchange(base, 'GET /api/v1/things/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n\r\n');
    assert.match(auth.data, /^HTTP\/1\.1 400/);
    assert.equal(bodyOf(auth.data), '{"error":"Duplicate Authorization header"}');
    assert.equal(auth.closed, true);
    const length = await exchange(
      base,
      'POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}',
    );
    assert.match(length.data, /^HTTP\/1\.1 400/);
    assert.equal(bodyOf(length.data), '{"error":"Duplicate Content-Length header"}');
    assert.equal(length.closed, true);
    // Two lengths frame the body two ways (request smuggling): what follows the first framing is never served.
    const smuggled = await exchange(
      base,
      'POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 44\r\n\r\n{}GET /api/v1/things/9 HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    assert.doesNotMatch(smuggled.data, /HTTP\/1\.1 200/);
    assert.equal(smuggled.closed, true);
    const host = await exchange(base, 'GET /api/v1/things/1 HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n');
    assert.match(host.data, /^HTTP\/1\.1 400/);
    assert.equal(bodyOf(host.data), '{"error":"Duplicate Host header"}');
    assert.equal((await fetch(`${base}/api/v1/things/4`)).status, 200);
  });

  it('sends a body given as pieces as their text in UTF-8, at any size, each response whole', async () => {
    // 0 pieces, a small page, one past the shared buffer's first size (256 KB) and one past what it keeps (4 MB),
    // several at once: each is written in full before the next one takes the buffer.
    const sizes = [0, 40, 1_000, 15_000, 40, 1_000];
    const bodies = await Promise.all(sizes.map(async (n) => (await fetch(`${base}/api/v1/pieces/${n}`)).arrayBuffer()));
    for (const [i, n] of sizes.entries()) {
      const expected = piecesOf(n).join('');
      assert.equal(Buffer.from(bodies[i]!).equals(Buffer.from(expected)), true, `${n} pieces`);
      assert.equal((JSON.parse(expected) as string[]).length, n);
    }
    assert.ok(Buffer.byteLength(piecesOf(15_000).join('')) > 4 * 1024 * 1024, 'the largest is past what the buffer keeps');
    const head = await exchange(base, 'HEAD /api/v1/pieces/1000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 5_000);
    assert.match(head.data, new RegExp(`\\r\\nContent-Length: ${Buffer.byteLength(piecesOf(1000).join(''))}\\r\\n`, 'i'));
  });

  it('answers HEAD with Connection: close and then closes the connection at once', async () => {
    const started = Date.now();
    const r = await exchange(base, 'HEAD /api/v1/things/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 5_000);
    assert.equal(r.closed, true, 'the server closed the connection');
    assert.ok(Date.now() - started < 2_000, `closed after ${Date.now() - started} ms`);
    assert.match(r.data, /^HTTP\/1\.1 200/);
    assert.match(r.data, /\r\nContent-Length: 10\r\n/i, 'the length of the GET body ({"id":"1"})');
    assert.equal(bodyOf(r.data), '');
  });

  it('keeps a connection usable after HEAD (keep-alive)', async () => {
    const r = await exchange(base, 'HEAD /api/v1/things/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /api/v1/things/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const responses = r.data.split(/(?=HTTP\/1\.1 )/);
    assert.equal(responses.length, 2, r.data);
    assert.match(responses[0]!, /^HTTP\/1\.1 200[\s\S]*\r\nContent-Length: 10\r\n/i);
    assert.ok(responses[0]!.endsWith('\r\n\r\n'), 'HEAD has no body');
    assert.match(responses[1]!, /^HTTP\/1\.1 200[\s\S]*\r\n\r\n\{"id":"2"\}$/);
  });
});

/** Writes one raw request and waits (up to timeoutMs) for the server to close; closed says whether it did. */
function exchange(base: string, request: string, timeoutMs = 3_000): Promise<{ data: string; closed: boolean }> {
  return new Promise((resolve) => {
    const sock = net.connect(Number(new URL(base).port), '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      sock.destroy();
      resolve({ data, closed: false });
    }, timeoutMs);
    sock.on('data', (d) => (data += d.toString('latin1')));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearTimeout(timer);
      resolve({ data, closed: true });
    });
    sock.on('connect', () => sock.write(request, 'latin1'));
  });
}

function bodyOf(response: string): string {
  return response.slice(response.indexOf('\r\n\r\n') + 4);
}
