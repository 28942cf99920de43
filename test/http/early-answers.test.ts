// An answer given before the body was read (no token: 401; a declared length over the limit: 413) reaches a client
// that is still sending: the server reads and drops the rest of the body before it closes, instead of closing over
// unread bytes (the kernel then resets the connection, and the client reports a broken pipe). The server runs in a
// process of its own: sharing this test's event loop, it would never race a client that writes while it answers, and
// its memory is measured apart from the clients'.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { after, before, describe, it } from 'node:test';
import { createMembers } from '../support/members.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { answered } from '../support/raw-http.js';
import { eventually, within } from '../support/wait.js';

const MiB = 1024 * 1024;
const PIECE = Buffer.alloc(64 * 1024, 0x61);
const MULTIPART = 'multipart/form-data; boundary=stoa-early';
// The media route's limit (MAX_MULTIPART_BYTES by default): 40 MiB of video and 1 MiB beside it.
const MEDIA_LIMIT = 41 * MiB;

interface Outcome {
  readonly status?: number;
  readonly body?: string;
  readonly error?: string;
}

/** A body of `size` bytes produced piece by piece as the socket takes them, as a file read from disk would be. */
function steadyBody(size: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      sent += PIECE.length;
      this.push(PIECE);
    },
  });
}

/**
 * POST /api/v2/media with node's http.request, the body written steadily; keepAlive false sends `Connection: close`.
 * Resolves once the whole answer is read and the request is over (node's client stops sending when its answer is
 * complete), or the connection fails.
 */
function upload(base: string, size: number, o: { token?: string; keepAlive: boolean }): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'Content-Type': MULTIPART, 'Content-Length': String(size) };
    if (o.token) headers['Authorization'] = `Bearer ${o.token}`;
    const agent = o.keepAlive ? new http.Agent({ keepAlive: true }) : false;
    let answer: Outcome | null = null;
    let written = false;
    const settle = (): void => {
      if (answer && written) resolve(answer);
    };
    const req = http.request(`${base}/api/v2/media`, { method: 'POST', headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        answer = { status: res.statusCode!, body };
        settle();
      });
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ status: res.statusCode!, error: e.code ?? e.message }));
    });
    req.on('finish', () => {
      written = true;
      settle();
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.on('close', () => {
      written = true;
      settle();
      if (agent) agent.destroy();
    });
    steadyBody(size).pipe(req);
  });
}

/** What each outcome was, counted: `401` for an answer read, the error code for a connection that failed. */
function tally(outcomes: readonly Outcome[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const o of outcomes) {
    const k = o.error ? `${o.status ?? 'no answer'} ${o.error}` : String(o.status);
    t[k] = (t[k] ?? 0) + 1;
  }
  return t;
}

/** The server process's resident memory, sampled every 20 ms while `work` runs: the peak above the start. */
async function peakGrowth<T>(pid: number, work: Promise<T>): Promise<{ result: T; growth: number }> {
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  const start = rss();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 20);
  try {
    const result = await work;
    return { result, growth: Math.max(peak, rss()) - start };
  } finally {
    clearInterval(timer);
  }
}

describe('answers given before the body is read reach the client', () => {
  let a: TestServer;
  let b: ServerProcess;
  let dataDir: string;
  let token: string;
  before(async () => {
    a = await startTestServer();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-early-'));
    b = await startServerProcess({ databaseUrl: a.databaseUrl, env: { STOA_DATA_DIR: dataDir } });
    token = (await createMembers(a, ['uploader'])).token['uploader']!;
  });
  after(async () => {
    if (b) {
      b.child.kill('SIGTERM');
      assert.equal(await b.exited, 0, `the server exits cleanly:\n${b.output()}`);
    }
    await a?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers each of 10 concurrent 40 MiB uploads without a token with a 401 it can read, in flat memory', async () => {
    const clients = Array.from({ length: 10 }, (_, i) => upload(b.url, 40 * MiB, { keepAlive: i % 2 === 0 }));
    const { result, growth } = await peakGrowth(b.child.pid!, Promise.all(clients));
    assert.deepEqual(tally(result), { 401: 10 });
    for (const o of result) assert.equal(JSON.parse(o.body!).error, 'The access token is invalid');
    // 400 MiB went by; the server held none of it.
    assert.ok(growth < 64 * MiB, `the server's memory grew by ${(growth / MiB).toFixed(1)} MiB`);
  });

  it('answers each of 10 concurrent uploads declaring more than the limit with a 413 it can read', async () => {
    const clients = Array.from({ length: 10 }, (_, i) => upload(b.url, MEDIA_LIMIT + 4 * MiB, { token, keepAlive: i % 2 === 0 }));
    const { result, growth } = await peakGrowth(b.child.pid!, Promise.all(clients));
    assert.deepEqual(tally(result), { 413: 10 });
    for (const o of result) assert.equal(JSON.parse(o.body!).error, 'Request entity too large');
    assert.ok(growth < 64 * MiB, `the server's memory grew by ${(growth / MiB).toFixed(1)} MiB`);
  });

  it("answers Node's fetch sending a large body without a token with a 401, not a broken pipe", async () => {
    const body = Buffer.alloc(40 * MiB, 0x61);
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${b.url}/api/v2/media`, { method: 'POST', headers: { 'Content-Type': MULTIPART }, body });
      assert.equal(r.status, 401);
      assert.equal(((await r.json()) as { error: string }).error, 'The access token is invalid');
    }
  });

  it('gives a client that stops sending on seeing the answer the whole of it, whether it keeps the connection or not', async () => {
    for (const keepAlive of [true, false]) {
      const o = await within(stopsSending(b.url, keepAlive), 10_000, `the complete answer (keepAlive ${keepAlive})`);
      assert.equal(o.status, 401, JSON.stringify(o));
      assert.equal(JSON.parse(o.body!).error, 'The access token is invalid');
    }
  });

  it('property: whatever part of its body a refused client sends, keeping its connection or not, it reads its whole answer', async () => {
    const refusals = {
      'no token': { path: '/api/v2/media', headers: { 'Content-Type': MULTIPART }, status: 401, min: 1, max: 4 * MiB },
      'over the limit': { path: '/api/v1/statuses', headers: { 'Content-Type': 'application/json' }, status: 413, min: MiB + 1, max: 4 * MiB },
      'no such route': { path: '/api/v1/no-such-route', headers: { 'Content-Type': 'application/json' }, status: 404, min: 1, max: 4 * MiB },
    } as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...(Object.keys(refusals) as (keyof typeof refusals)[])),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        async (kind, size, part, keepAlive) => {
          const r = refusals[kind];
          const declared = Math.round(r.min + size * (r.max - r.min));
          const sent = part > 0.5 ? declared : Math.round(part * 2 * declared);
          const headers = kind === 'over the limit' ? { ...r.headers, Authorization: `Bearer ${token}` } : r.headers;
          const o = await within(sendPart(b.url, r.path, headers, declared, sent, keepAlive), 10_000, `the answer (${kind}, ${sent} of ${declared})`);
          assert.equal(o.status, r.status, JSON.stringify({ kind, declared, sent, keepAlive, o }));
          assert.equal(typeof JSON.parse(o.body!).error, 'string');
        },
      ),
      { seed: 39, numRuns: 12 },
    );
  });

  it('closes the connection of a client that keeps it after a multipart refusal read with the body reader attached', async () => {
    // No boundary: the body reader is attached and refuses at once; the client sends its 10 bytes, then nothing more,
    // ignoring the answer's `Connection: close`. The server must not keep the socket for ever.
    const c = rawClient(b.url);
    c.sock.write('POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data\r\nContent-Length: 10\r\n\r\n0123456789');
    await within(c.closed, 15_000, 'the server closes the connection');
    assert.match(c.text(), /^HTTP\/1\.1 400 /);
    assert.match(c.text(), /"error"/);
  });

  it('answers a multipart body refused at its end at once, complete, and closes a connection the client keeps', async () => {
    // The whole body is in when the reader refuses it (no closing boundary): nothing to linger on, so no pause to wait.
    const body = '--zz\r\nContent-Disposition: form-data; name="grant_type"\r\n\r\npassword';
    const c = rawClient(b.url);
    const started = performance.now();
    c.sock.write(`POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=zz\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await eventually(() => assert.ok(answered(c.text()), c.text()), 1_500, 10);
    assert.match(c.text(), /^HTTP\/1\.1 400 /);
    assert.ok(performance.now() - started < 1_500, 'answered without waiting for a pause');
    await within(c.closed, 15_000, 'the server closes the connection');
  });

  it('closes the connection of a client that pauses, reads its answer, then finishes its body (Connection: keep-alive, close)', async () => {
    const c = rawClient(b.url);
    c.sock.write(`POST /api/v2/media HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, close\r\nContent-Type: ${MULTIPART}\r\nContent-Length: 1000\r\n\r\n`);
    c.sock.write(PIECE.subarray(0, 100));
    // The answer completes once the client has paused (its last chunk), and the client sends the rest after it.
    await within(c.answered, 10_000, 'the complete answer');
    assert.match(c.text(), /^HTTP\/1\.1 401 /);
    c.sock.write(PIECE.subarray(0, 900));
    await within(c.closed, 15_000, 'the server closes the connection');
  });

  it('stops reading a chunked body at the limit: the client gets its 413 having sent little more than the limit', async () => {
    // Beyond what the server reads (the limit and one read of at most 512 KiB), the two kernels hold what they
    // accepted in their socket buffers: at most the sender's tcp_wmem and the receiver's tcp_rmem.
    const [wmem, rmem] = ['tcp_wmem', 'tcp_rmem'].map((f) => Number(fs.readFileSync(`/proc/sys/net/ipv4/${f}`, 'utf8').trim().split(/\s+/)[2]));
    const result = await chunkedUntilAnswered(b.url, token, MEDIA_LIMIT + 64 * MiB);
    assert.match(result.answer, /^HTTP\/1\.1 413 /);
    const slack = MiB / 2 + wmem! + rmem!;
    assert.ok(result.accepted <= MEDIA_LIMIT + slack, `${(result.accepted / MiB).toFixed(1)} MiB accepted before the 413`);
  });
});

/** A client that declares 1 MiB, sends 1,000 bytes of it and sends no more: its answer, read to the end. */
function stopsSending(base: string, keepAlive: boolean): Promise<Outcome> {
  return sendPart(base, '/api/v2/media', { 'Content-Type': MULTIPART }, MiB, 1000, keepAlive);
}

/** POSTs `sent` bytes of a body declared `declared` long (ending the request only when they are all of it). */
function sendPart(base: string, path: string, headers: Record<string, string>, declared: number, sent: number, keepAlive: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const agent = keepAlive ? new http.Agent({ keepAlive: true }) : false;
    const req = http.request(`${base}${path}`, { method: 'POST', headers: { ...headers, 'Content-Length': String(declared) }, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        resolve({ status: res.statusCode!, body });
        req.destroy();
        if (agent) agent.destroy();
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    // Node holds the head back until the first write: a client that sends none of its body still asks.
    req.flushHeaders();
    for (let at = 0; at < sent; at += PIECE.length) req.write(PIECE.subarray(0, Math.min(PIECE.length, sent - at)));
    if (sent === declared) req.end();
  });
}

/**
 * A chunked upload to the media route written piece by piece, each after the last was taken by the kernel, until
 * the answer arrives: how many bytes the kernel had taken by then, and the answer.
 */
function chunkedUntilAnswered(base: string, token: string, size: number): Promise<{ accepted: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(new URL(base).port), '127.0.0.1');
    const frame = Buffer.concat([Buffer.from(`${PIECE.length.toString(16)}\r\n`), PIECE, Buffer.from('\r\n')]);
    let accepted = 0;
    let answer = '';
    const next = (): void => {
      if (answer || accepted >= size) return;
      sock.write(frame, (e) => {
        if (e) return;
        accepted += PIECE.length;
        next();
      });
    };
    sock.on('connect', () => {
      sock.write(
        `POST /api/v2/media HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${MULTIPART}\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      next();
    });
    sock.on('data', (d) => {
      if (!answer) resolve({ accepted, answer: d.toString() });
      answer += d.toString();
    });
    sock.on('error', (e) => (answer ? undefined : reject(e)));
    sock.on('close', () => (answer ? undefined : reject(new Error(`closed without an answer after ${accepted} bytes`))));
  });
}

/** A raw connection that keeps its end open: what it read, when its answer was complete, when the server closed it. */
function rawClient(base: string): { sock: net.Socket; text: () => string; answered: Promise<void>; closed: Promise<void> } {
  const sock = net.connect(Number(new URL(base).port), '127.0.0.1');
  let text = '';
  let answer!: () => void;
  const answered = new Promise<void>((r) => (answer = r));
  const closed = new Promise<void>((r) => sock.on('close', () => r()));
  sock.on('data', (d) => {
    text += d.toString('latin1');
    if (text.endsWith('\r\n0\r\n\r\n')) answer();
  });
  // A reset is a close too (the server may close over bytes it did not read).
  sock.on('error', () => undefined);
  return { sock, text: () => text, answered, closed };
}
