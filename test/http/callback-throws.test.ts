// A throw inside any callback the front end hands to a library (uWS's request, data, abort and writable callbacks,
// busboy's part callbacks, the body reader's completion, file streaming, an event stream's opening, every WebSocket
// callback) becomes that request's answer and a log line naming the request, never an uncaught exception: this
// test runs the server in its own process, so one escaping throw would end the run. After each, the server answers.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, it } from 'node:test';
import { pino } from 'pino';
import WebSocket from 'ws';
import { loadConfig } from '../../config/schema.js';
import { MultipartReader } from '../../src/http/multipart.js';
import { json } from '../../src/http/respond.js';
import { HttpServer } from '../../src/http/server.js';
import { PUBLIC, type Reply } from '../../src/http/types.js';
import type { WebSocketBehavior } from '../../src/http/uws.js';
import { errorPage } from '../../src/web/layout.js';
import { rawExchange } from '../support/raw-http.js';
import { eventually } from '../support/wait.js';

const planted = () => new Error('planted bug');

/** Log lines as objects, to find the one a failure wrote. */
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, cb) {
    for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});

/** A reply whose headers throw when the writer reads them: a bug in the writing of an answer. */
const throwingHeaders = (): Reply => ({
  status: 200,
  get headers(): Record<string, string> {
    throw planted();
  },
  body: '{}',
});

// Which WebSocket callback throws next (each test sets it).
let wsThrows: 'upgrade' | 'open' | 'message' | 'close' | null = null;
let wsClosed = 0;
const behavior: WebSocketBehavior<unknown> = {
  upgrade: (res, req, context) => {
    if (wsThrows === 'upgrade') throw planted();
    res.upgrade({}, req.getHeader('sec-websocket-key'), req.getHeader('sec-websocket-protocol'), req.getHeader('sec-websocket-extensions'), context);
  },
  open: () => {
    if (wsThrows === 'open') throw planted();
  },
  message: (ws, message) => {
    if (wsThrows === 'message') throw planted();
    ws.send(message);
  },
  close: () => {
    wsClosed++;
    if (wsThrows === 'close') throw planted();
  },
};

describe('a throw in any callback answers its request and the server serves on', () => {
  let server: HttpServer;
  let base: string;
  const restore: (() => void)[] = [];

  before(async () => {
    const config = loadConfig({ PORT: '0', LOG_LEVEL: 'info' });
    server = new HttpServer({
      config,
      log: pino({ level: 'info' }, sink),
      errorPage: errorPage('Stoa'),
      websockets: [{ pattern: '/ws', behavior }],
      routes: [
        { method: 'POST', path: '/api/v1/echo', auth: PUBLIC, body: true, handler: (req) => json(200, { body: req.body }) },
        {
          method: 'POST',
          path: '/api/v1/upload',
          auth: PUBLIC,
          body: true,
          takesFiles: true,
          handler: (req) => json(200, { keys: Object.keys(req.body as object) }),
        },
        { method: 'GET', path: '/api/v1/ok', auth: PUBLIC, handler: () => json(200, { ok: true }) },
        { method: 'GET', path: '/api/v1/bad-reply', auth: PUBLIC, handler: throwingHeaders },
        { method: 'GET', path: '/api/v1/bad-reply-later', auth: PUBLIC, handler: async () => throwingHeaders() },
        {
          method: 'GET',
          path: '/api/v1/file-fails-at-once',
          auth: PUBLIC,
          handler: () => ({
            status: 200,
            body: {
              kind: 'file',
              start: 0,
              end: 9,
              read: async () => {
                throw planted();
              },
            },
          }),
        },
        {
          method: 'GET',
          path: '/api/v1/file-fails-midway',
          auth: PUBLIC,
          handler: () => ({
            status: 200,
            body: {
              kind: 'file',
              start: 0,
              end: 99,
              read: async () =>
                (async function* () {
                  yield Buffer.alloc(10, 0x61);
                  throw planted();
                })(),
            },
          }),
        },
        {
          method: 'GET',
          path: '/api/v1/events',
          auth: PUBLIC,
          handler: () => ({
            status: 200,
            headers: { 'Content-Type': 'text/event-stream' },
            body: {
              kind: 'events',
              open: () => {
                throw planted();
              },
            },
          }),
        },
      ],
    });
    base = `http://127.0.0.1:${await server.listen()}`;
  });
  afterEach(() => {
    for (const r of restore.splice(0)) r();
    wsThrows = null;
  });
  after(() => server.stopAccepting());

  /** Replaces obj[key] until the test ends. */
  function plant<T extends object>(obj: T, key: string, value: unknown): void {
    const o = obj as Record<string, unknown>;
    const had = Object.hasOwn(o, key);
    const old = o[key];
    o[key] = value;
    restore.push(() => (had ? (o[key] = old) : delete o[key]));
  }

  async function assertServing(): Promise<void> {
    const r = await fetch(`${base}/api/v1/ok`);
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { ok: true });
  }

  /** The error log line written for the request with this id. */
  async function logged(requestId: string | null): Promise<void> {
    assert.ok(requestId, 'the answer names its request');
    await eventually(() =>
      assert.ok(lines.some((l) => l['req'] === requestId && l['level'] === 50 && (l['err'] as { message?: string })?.message === 'planted bug')),
    );
  }

  it('routing (the request callback) throws: 500', async () => {
    plant(server['router' as keyof HttpServer] as object, 'match', () => {
      throw planted();
    });
    const r = await fetch(`${base}/api/v1/ok`);
    assert.equal(r.status, 500);
    assert.deepEqual(await r.json(), { error: 'Internal server error' });
    await logged(r.headers.get('x-request-id'));
    restore.pop()!();
    await assertServing();
  });

  it("the body reader's data callback throws (a chunked body): 500", async () => {
    plant(server.bodyBudget, 'reserve', () => ({
      grow: () => {
        throw planted();
      },
      shrink: () => undefined,
      release: () => undefined,
    }));
    const answer = await rawExchange(base, [
      'POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      '2\r\n{}\r\n0\r\n\r\n',
    ]);
    assert.match(answer, /^HTTP\/1\.1 500 /);
    assert.match(answer, /"error":"Internal server error"/);
    await logged(/X-Request-Id: (\S+)/i.exec(answer)?.[1] ?? null);
    await assertServing();
  });

  it("the body reader's completion throws: 500", async () => {
    plant(server, 'run', () => {
      throw planted();
    });
    const r = await fetch(`${base}/api/v1/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
    assert.equal(r.status, 500);
    await logged(r.headers.get('x-request-id'));
    restore.pop()!();
    await assertServing();
  });

  const multipart = (disposition: string, value: string, type?: string) =>
    `--B\r\nContent-Disposition: form-data${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n${value}\r\n--B--\r\n`;
  const postMultipart = (path: string, data: string) =>
    fetch(base + path, { method: 'POST', headers: { 'Content-Type': 'multipart/form-data; boundary=B' }, body: data });

  it("busboy's field callback meets a part without a name: 400", async () => {
    const r = await postMultipart('/api/v1/echo', multipart('', 'v'));
    assert.equal(r.status, 400);
    assert.deepEqual(await r.json(), { error: 'Malformed multipart (a part without a name) body' });
    await assertServing();
  });

  it("busboy's file callback throws: 500, and the well-formed upload after it is read", async () => {
    plant(MultipartReader.prototype, 'filePart', () => {
      throw planted();
    });
    const r = await postMultipart('/api/v1/upload', multipart('; name="file"; filename="a.bin"', 'abc', 'application/octet-stream'));
    assert.equal(r.status, 500);
    await logged(r.headers.get('x-request-id'));
    restore.pop()!();
    const ok = await postMultipart('/api/v1/upload', multipart('; name="file"; filename="a.bin"', 'abc', 'application/octet-stream'));
    assert.deepEqual(await ok.json(), { keys: ['file'] });
  });

  it("a text part's stream callback throws: 500", async () => {
    plant(MultipartReader.prototype, 'textPart', () => {
      throw planted();
    });
    // A part without a filename but of a file's type: busboy streams it, and it is read as text.
    const r = await postMultipart('/api/v1/echo', multipart('; name="a"', 'abc', 'application/octet-stream'));
    assert.equal(r.status, 500);
    await logged(r.headers.get('x-request-id'));
    await assertServing();
  });

  it('writing the answer throws (a sync handler and an async one): 500', async () => {
    for (const path of ['/api/v1/bad-reply', '/api/v1/bad-reply-later']) {
      const r = await fetch(base + path);
      assert.equal(r.status, 500, path);
      await logged(r.headers.get('x-request-id'));
    }
    await assertServing();
  });

  it("a file's source throws before the first byte: 500", async () => {
    const r = await fetch(`${base}/api/v1/file-fails-at-once`);
    assert.equal(r.status, 500);
    await logged(r.headers.get('x-request-id'));
    await assertServing();
  });

  it("a file's source throws midway: the response is cut off (its length was promised) and logged", async () => {
    const answer = await rawExchange(base, 'GET /api/v1/file-fails-midway HTTP/1.1\r\nHost: x\r\n\r\n', { requireClose: true });
    // The connection is closed (requireClose) before the 100 promised bytes: whatever arrived is visibly cut short.
    assert.ok(!answer.includes('a'.repeat(11)), answer);
    await eventually(() => assert.ok(lines.some((l) => l['msg'] === 'file streaming failed' && (l['err'] as { message?: string })?.message === 'planted bug')));
    await assertServing();
  });

  it("an event stream's opening throws: the stream ends", async () => {
    // A body of declared length cannot end early: its connection closes, and an SSE client reconnects.
    const raw = await rawExchange(base, 'GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\n\r\n', { requireClose: true });
    assert.match(raw, /^HTTP\/1\.1 200 /);
    assert.ok(raw.endsWith('\r\n\r\n:)\n'), raw);
    await assertServing();
  });

  it('a WebSocket upgrade throws: 500', async () => {
    wsThrows = 'upgrade';
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`);
    const status = await new Promise<number>((resolve, reject) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => reject(new Error('opened')));
      ws.on('error', () => undefined);
    });
    assert.equal(status, 500);
    await assertServing();
  });

  for (const where of ['open', 'message'] as const) {
    it(`a WebSocket's ${where} callback throws: the socket closes with 1011`, async () => {
      wsThrows = where;
      const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`);
      if (where === 'message') ws.on('open', () => ws.send('hi'));
      const code = await new Promise<number>((resolve) => ws.on('close', (c) => resolve(c)));
      assert.equal(code, 1011);
      await assertServing();
    });
  }

  it("a WebSocket's close callback throws: logged, and the next socket works", async () => {
    wsThrows = 'close';
    const before = wsClosed;
    const ws = new WebSocket(`${base.replace('http', 'ws')}/ws`);
    await new Promise((r) => ws.on('open', r));
    ws.close();
    await eventually(() => assert.equal(wsClosed, before + 1));
    wsThrows = null;
    const again = new WebSocket(`${base.replace('http', 'ws')}/ws`);
    again.on('open', () => again.send('echo'));
    const reply = await new Promise<string>((resolve) => again.on('message', (m: Buffer) => resolve(m.toString())));
    assert.equal(reply, 'echo');
    again.close();
    await assertServing();
  });
});
