// Request bodies under hostile load: unauthenticated upload-sized bodies are refused from their headers before the
// server reads a byte of them (it then reads and drops them, so that a client still sending reads the answer; its
// memory stays flat), and all bodies held in memory share one budget
// (MAX_BODY_BYTES_IN_FLIGHT): past it a body is refused with 503 and Retry-After before it is read, while a small
// request still goes through, and bodies that are aborted or refused give their bytes back.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { freshDatabaseUrl } from '../support/db.js';
import { createMembers } from '../support/members.js';
import { answered, rawExchange } from '../support/raw-http.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const MiB = 1024 * 1024;

/** Peak resident memory of a process so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/**
 * Sends a request whose body is `size` bytes, written as fast as the server takes it, until the whole body is written
 * and the whole answer read, or the server closes; resolves with the answer and how many body bytes were written.
 */
function pushBody(base: string, head: string, size: number): Promise<{ answer: string; written: number }> {
  return new Promise((resolve) => {
    const sock = net.connect(Number(new URL(base).port), '127.0.0.1');
    const chunk = Buffer.alloc(MiB, 0x2a);
    let answer = '';
    let written = 0;
    let closed = false;
    const finish = (): void => {
      if (written >= size && answered(answer)) sock.destroy();
    };
    const pump = (): void => {
      while (!closed && written < size) {
        const n = Math.min(chunk.length, size - written);
        written += n;
        if (!sock.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void sock.once('drain', pump);
      }
      finish();
    };
    sock.on('data', (d) => {
      answer += d.toString();
      finish();
    });
    sock.on('error', () => undefined); // the server closing while we still write: expected
    sock.on('close', () => {
      closed = true;
      resolve({ answer, written });
    });
    sock.on('connect', () => {
      sock.write(head);
      pump();
    });
  });
}

function multipartHead(path: string, length: number, extra = ''): string {
  return `POST ${path} HTTP/1.1\r\nHost: x\r\n${extra}Content-Type: multipart/form-data; boundary=zz\r\nContent-Length: ${length}\r\n\r\n`;
}

function jsonHead(path: string, token: string, length: number | 'chunked'): string {
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;
}

/** A request that sent its headers and the start of its body, and waits: its body is in flight until destroyed. */
function holdBody(base: string, request: string): Promise<net.Socket> {
  return new Promise((resolve) => {
    const sock = net.connect(Number(new URL(base).port), '127.0.0.1');
    sock.on('error', () => undefined);
    sock.on('connect', () => {
      sock.write(request);
      resolve(sock);
    });
  });
}

describe('unauthenticated upload-sized bodies', () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess({ databaseUrl: await freshDatabaseUrl(), port: await freePort() });
  });
  after(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
  });

  it('20 concurrent 40 MiB multipart bodies get 401 from their headers, each read by its client, in flat memory', async () => {
    const pid = server.child.pid!;
    const peakBefore = peakRss(pid);
    const size = 40 * MiB;
    const head = multipartHead('/api/v2/media', size);
    let waitedMs = 0;
    const [pushed, waited] = await Promise.all([
      // Ten push their bodies at full speed, ten send the headers and wait: a server reading before it
      // authenticates would answer neither kind until the body was in.
      Promise.all(Array.from({ length: 10 }, () => pushBody(server.url, head, size))),
      Promise.all(
        Array.from({ length: 10 }, async () => {
          const started = performance.now();
          const answer = await rawExchange(server.url, head, { untilAnswered: true, timeoutMs: 5_000 });
          waitedMs = Math.max(waitedMs, performance.now() - started);
          return answer;
        }),
      ),
    ]);
    for (const answer of waited) assert.match(answer, /^HTTP\/1\.1 401 [\s\S]*\{"error":"The access token is invalid"\}$/);
    // The server reads and drops the rest of a refused body (http/linger.ts): a client still pushing it reads the 401
    // rather than a TCP reset.
    for (const r of pushed) assert.match(r.answer, /^HTTP\/1\.1 401 [\s\S]*\{"error":"The access token is invalid"\}$/);
    const grown = peakRss(pid) - peakBefore;
    assert.ok(grown < 64 * MiB, `peak RSS grew by ${Math.round(grown / MiB)} MiB (800 MiB of bodies were offered)`);
    assert.ok(waitedMs < 5_000, `answered in ${Math.round(waitedMs)} ms`);
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });
});

describe('the in-flight body budget', () => {
  const budget = 4 * MiB;
  let s: TestServer;
  let token: string;

  before(async () => {
    s = await startTestServer({ MAX_BODY_BYTES_IN_FLIGHT: String(budget), MAX_BODY_BYTES: String(budget), MAX_MULTIPART_BYTES: String(budget) });
    token = (await createMembers(s, ['ada'])).token['ada']!;
  });
  after(() => s?.stop());

  it('refuses a body past the budget with 503 and Retry-After without reading it, while a small request succeeds', async () => {
    const big = 1.5 * MiB;
    const held = await Promise.all([1, 2].map(() => holdBody(s.url, jsonHead('/api/v1/statuses', token, big) + '{"status":"')));
    try {
      await eventually(() => assert.equal(s.app.bodyBytesInFlight(), 2 * big));
      const started = performance.now();
      // Only the headers are sent: a server that admitted the body would wait for it, and rawExchange would time out.
      const refused = await rawExchange(s.url, jsonHead('/api/v1/statuses', token, big), { untilAnswered: true, timeoutMs: 3_000 });
      assert.match(refused, /^HTTP\/1\.1 503 /);
      assert.match(refused, /\r\nretry-after: 2\r\n/i);
      assert.match(refused, /\{"error":"Too many request bodies in flight","error_description":"Try again later"\}$/);
      assert.ok(performance.now() - started < 1_000, 'refused at once');

      const small = await fetch(`${s.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'still here' }),
      });
      assert.equal(small.status, 200);
      assert.equal(((await small.json()) as { content: string }).content, '<p>still here</p>');
    } finally {
      for (const sock of held) sock.destroy();
    }
  });

  it('cuts off a chunked body when it grows past the budget', async () => {
    const held = await holdBody(s.url, jsonHead('/api/v1/statuses', token, 3 * MiB) + '{"status":"');
    try {
      await eventually(() => assert.equal(s.app.bodyBytesInFlight(), 3 * MiB));
      const piece = 'a'.repeat(256 * 1024);
      const chunks = Array.from({ length: 8 }, () => `${piece.length.toString(16)}\r\n${piece}\r\n`);
      const answer = await rawExchange(s.url, [jsonHead('/api/v1/statuses', token, 'chunked'), ...chunks], { requireClose: true, timeoutMs: 3_000 });
      assert.match(answer, /^HTTP\/1\.1 503 /);
      assert.match(answer, /\r\nretry-after: 2\r\n/i);
    } finally {
      held.destroy();
    }
  });

  it('gives back the bytes of every aborted and refused body: a body of exactly the budget is read afterwards', async () => {
    for (let i = 0; i < 30; i++) {
      const request = i % 3 === 2 ? jsonHead('/api/v1/statuses', token, 'chunked') + '4\r\n{"st\r\n' : jsonHead('/api/v1/statuses', token, MiB) + '{"status":"';
      await rawExchange(s.url, request, { destroyAfterWrite: true });
    }
    // Refusals too: each of these is over what is left while the three holders wait.
    const held = await Promise.all([1, 2, 3].map(() => holdBody(s.url, jsonHead('/api/v1/statuses', token, MiB) + '{"status":"')));
    await eventually(() => assert.equal(s.app.bodyBytesInFlight(), 3 * MiB));
    for (let i = 0; i < 5; i++) {
      const refused = await rawExchange(s.url, jsonHead('/api/v1/statuses', token, 2 * MiB), { untilAnswered: true, timeoutMs: 3_000 });
      assert.match(refused, /^HTTP\/1\.1 503 /);
    }
    for (const sock of held) sock.destroy();

    const whole = JSON.stringify({ status: 'x'.repeat(budget - 13) });
    assert.equal(Buffer.byteLength(whole), budget);
    await eventually(async () => {
      const r = await fetch(`${s.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: whole,
      });
      // Read and validated (far too long for a status), not refused for want of budget.
      assert.equal(r.status, 422, await r.text());
    });
    assert.equal(s.app.bodyBytesInFlight(), 0);
  });
});
