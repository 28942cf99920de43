// Uploads stream to disk as they arrive: 120 MiB of uploads at once through a real server process move its peak
// memory by a fraction of that, a client that goes away mid-upload leaves no temporary file behind, and neither does
// a process killed mid-upload once the next one has started.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ftyp, uploadStreamed } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';
import { rawExchange } from '../support/raw-http.js';
import { eventually } from '../support/wait.js';

const MiB = 1024 * 1024;

/** A /proc/<pid>/status figure in bytes (VmRSS: resident now; VmHWM: the peak since the last reset). */
function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(m, field);
  return Number(m[1]) * 1024;
}

describe('uploads stream to temporary files', () => {
  let s: TestServer;
  let node: ServerProcess;
  let token: string;
  let dataDir: string;
  const tempFiles = () => readdir(path.join(dataDir, 'tmp')).catch(() => [] as string[]);

  before(async () => {
    // The member is made through an in-process server; the uploads go to a second node on the same database, a
    // process of its own whose memory can be read.
    s = await startTestServer();
    token = (await createMembers(s, ['uma'])).token['uma']!;
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-upload-'));
    // What a process killed mid-upload left two hours ago, and what one still running on this directory writes now.
    await mkdir(path.join(dataDir, 'tmp'), { mode: 0o700 });
    await writeFile(path.join(dataDir, 'tmp', 'left-by-a-crash.upload'), 'old');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(path.join(dataDir, 'tmp', 'left-by-a-crash.upload'), twoHoursAgo, twoHoursAgo);
    await writeFile(path.join(dataDir, 'tmp', 'in-flight.upload'), 'new');
    node = await startServerProcess({ databaseUrl: s.databaseUrl, port: await freePort(), env: { STOA_DATA_DIR: dataDir } });
  });
  after(async () => {
    node?.child.kill('SIGTERM');
    await node?.exited;
    await s?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('removes at start the temporary files a killed process left, and only those', async () => {
    await eventually(async () => assert.deepEqual(await tempFiles(), ['in-flight.upload']));
    await rm(path.join(dataDir, 'tmp', 'in-flight.upload'));
  });

  it('takes four 30 MiB videos at once with the peak memory of the server growing by far less than their 120 MiB', async () => {
    const video = ftyp('isom', ['iso2', 'mp41']);
    // A first upload warms up everything an upload touches (code, buffers, the connection pool).
    // (Taken with 202: video is processed after the answer, and these headers and filler are then refused.)
    assert.equal((await uploadStreamed(node.url, token, { head: video, size: 2 * MiB })).status, 202);
    const pid = node.child.pid!;
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current resident size
    const base = memory(pid, 'VmRSS');
    const uploads = await Promise.all(Array.from({ length: 4 }, () => uploadStreamed(node.url, token, { head: video, size: 30 * MiB })));
    const growth = memory(pid, 'VmHWM') - base;
    for (const r of uploads) assert.equal(r.status, 202, JSON.stringify(r.body));
    // Held in memory, the four bodies would need 120 MiB at once, live. Streamed, what remains is the chunks copied
    // out of uWS on their way to disk, garbage the collector takes back: it fills V8's young generation before a
    // scavenge, which may grow to 48 MiB (three 16 MiB semi-spaces, Node 20's default), however many uploads run.
    // So the peak stays under that ceiling plus a margin, and far under the 120 MiB a buffered body would hold.
    assert.ok(growth < 80 * MiB, `peak resident memory grew by ${(growth / MiB).toFixed(1)} MiB for 120 MiB of uploads`);
    // Processing refuses each (no video in them) and removes its file: nothing is left working for the next tests.
    for (const r of uploads) {
      await eventually(async () => {
        const g = await fetch(`${node.url}/api/v1/media/${r.body.id}`, { headers: { Authorization: `Bearer ${token}` } });
        assert.equal(g.status, 422);
      }, 30_000);
    }
    await eventually(async () => assert.deepEqual(await tempFiles(), []));
  });

  it('refuses text fields over 1 MiB (413) and more than 16 files (400), leaving no temporary file', async () => {
    const video = ftyp('isom', ['iso2', 'mp41']);
    const tooLong = await uploadStreamed(node.url, token, { head: video, size: video.length, fields: { description: 'x'.repeat(MiB + 1) } });
    assert.equal(tooLong.status, 413);
    assert.equal(tooLong.body.error, 'Request entity too large');
    // The answer comes before the body is all sent (and the connection closes), so it is read from a raw exchange.
    const boundary = 'stoa-many';
    const parts = Array.from(
      { length: 17 },
      (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${i}.mp4"\r\nContent-Type: video/mp4\r\n\r\nclip\r\n`,
    ).join('');
    const body = `${parts}--${boundary}--\r\n`;
    const answer = await rawExchange(node.url, [
      `POST /api/v2/media HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    ]);
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.ok(answer.includes('{"error":"Malformed multipart (too many files) body"}'), answer);
    await eventually(async () => assert.deepEqual(await tempFiles(), []));
  });

  it('removes the temporary file of an upload the client abandons', async () => {
    const boundary = 'stoa-abandoned';
    const head = Buffer.from(
      [
        'POST /api/v2/media HTTP/1.1',
        `Host: ${new URL(node.url).host}`,
        `Authorization: Bearer ${token}`,
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        `Content-Length: ${20 * MiB}`,
        '',
        `--${boundary}`,
        'Content-Disposition: form-data; name="file"; filename="clip.mp4"',
        'Content-Type: video/mp4',
        '',
        '',
      ].join('\r\n'),
    );
    const stored = () => readdir(path.join(dataDir, 'media')).catch(() => [] as string[]);
    const before = await stored();
    const sock = net.connect(Number(new URL(node.url).port), '127.0.0.1');
    await new Promise((resolve) => sock.once('connect', resolve));
    sock.write(head);
    sock.write(Buffer.concat([ftyp('isom', ['iso2', 'mp41']), Buffer.alloc(2 * MiB, 0x2a)]));
    // The part is being written to disk while it arrives...
    await eventually(async () => assert.equal((await tempFiles()).length, 1));
    // ...and the client leaves with 18 MiB still to send.
    sock.destroy();
    await eventually(async () => assert.deepEqual(await tempFiles(), []));
    assert.deepEqual(await stored(), before, 'nothing stored');
  });
});
