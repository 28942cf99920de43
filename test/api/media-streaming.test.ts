// Media files streamed from disk over real HTTP: a 12 MiB H.264 video upload (kept as sent; images are re-encoded) comes
// back byte for byte (also to a reader that takes its time, so the server waits on backpressure), byte ranges as players ask for them (206, suffix ranges,
// 416 when unsatisfiable, the whole file for a header we do not understand), HEAD with the length only, and a
// client that goes away mid-download leaves no open file behind.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { upload } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const openFiles = () => readdirSync('/proc/self/fd').length;

describe('media files streamed from disk', () => {
  let s: TestServer;
  let data: Buffer;
  let url: string;

  before(async () => {
    s = await startTestServer();
    const m = await createMembers(s, ['una']);
    // A real H.264 MP4 (kept as sent by processing) made 12 MiB long by a `free` box, a valid MP4's padding.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-stream-'));
    const file = path.join(dir, 'a.mp4');
    execFileSync('/usr/bin/ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      file,
    ]);
    const mp4 = await readFile(file);
    await rm(dir, { recursive: true, force: true });
    const free = Buffer.alloc(12 * 1024 * 1024);
    free.writeUInt32BE(free.length, 0);
    free.write('free', 4, 'latin1');
    for (let i = 33; i < free.length; i += 4096) free[i] = i % 251; // not all zeros: misplaced chunks would show
    data = Buffer.concat([mp4, free]);
    const r = await upload(s.url, m.token['una'], data, {}, 'video/mp4');
    assert.equal(r.status, 202);
    await eventually(async () => {
      const g = await api(s.url, m.token['una'], 'GET', `/api/v1/media/${r.body.id}`);
      assert.equal(g.status, 200, g.text);
      url = g.body.url;
    }, 30_000);
  });
  after(async () => s?.stop());

  it('sends the whole file byte for byte, with its length and Accept-Ranges', async () => {
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(data.length));
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    assert.equal(res.headers.get('content-type'), 'video/mp4');
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(data));
  });

  it('sends it whole to a reader that takes its time', async () => {
    const res = await fetch(url);
    const reader = res.body!.getReader();
    const parts: Buffer[] = [];
    for (let n = 0; ; n++) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(Buffer.from(value));
      if (n % 16 === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(Buffer.concat(parts).equals(data));
  });

  it('answers byte ranges with 206 and Content-Range, and 416 past the end', async () => {
    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      ['bytes=1000-', 1000, data.length - 1],
      ['bytes=-10', data.length - 10, data.length - 1],
      ['bytes=5-999999999', 5, data.length - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await fetch(url, { headers: { Range: range } });
      assert.equal(res.status, 206, range);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${data.length}`, range);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(data.subarray(start, end + 1)), range);
    }
    const past = await fetch(url, { headers: { Range: `bytes=${data.length}-` } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), `bytes */${data.length}`);
    for (const ignored of ['bytes=0-1,5-6', 'items=0-1', 'bytes=9-3']) {
      const res = await fetch(url, { headers: { Range: ignored } });
      assert.equal(res.status, 200, ignored);
      assert.equal((await res.arrayBuffer()).byteLength, data.length, ignored);
    }
  });

  it('answers HEAD with the length and no body', async () => {
    const res = await fetch(url, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(data.length));
    assert.equal((await res.arrayBuffer()).byteLength, 0);
  });

  it('closes the file when the client goes away mid-download, and keeps serving', async () => {
    const before = openFiles();
    const { hostname, port, pathname } = new URL(url);
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve, reject) => {
        const socket = net.connect(Number(port), hostname, () => socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`));
        let got = 0;
        socket.on('data', (chunk) => {
          got += chunk.length;
          if (got > 256 * 1024) {
            socket.destroy();
            resolve();
          }
        });
        socket.on('error', reject);
      });
    }
    await eventually(async () => assert.ok(openFiles() <= before + 1, `open files ${openFiles()} (before: ${before})`));
    const res = await fetch(url, { headers: { Range: 'bytes=0-9' } });
    assert.equal(res.status, 206);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(data.subarray(0, 10)));
  });
});
