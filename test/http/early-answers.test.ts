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
import { after, before, describe, it } from 'node:test';
import { createMembers } from '../support/members.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { within } from '../support/wait.js';

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

/** POST /api/v2/media with node's http.request, the body written steadily; keepAlive false sends `Connection: close`. */
function upload(base: string, size: number, o: { token?: string; keepAlive: boolean }): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'Content-Type': MULTIPART, 'Content-Length': String(size) };
    if (o.token) headers['Authorization'] = `Bearer ${o.token}`;
    const agent = o.keepAlive ? new http.Agent({ keepAlive: true }) : false;
    const req = http.request(`${base}/api/v2/media`, { method: 'POST', headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ status: res.statusCode!, error: e.code ?? e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.on('close', () => (agent ? agent.destroy() : undefined));
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
  return new Promise((resolve) => {
    const agent = keepAlive ? new http.Agent({ keepAlive: true }) : false;
    const headers = { 'Content-Type': MULTIPART, 'Content-Length': String(MiB) };
    const req = http.request(`${base}/api/v2/media`, { method: 'POST', headers, agent }, (res) => {
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
    req.write(Buffer.alloc(1000, 0x61));
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
