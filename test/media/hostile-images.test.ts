// Hostile images are refused with 422 and a clear error, never a crash or an unbounded allocation: pixel bombs (a PNG
// declaring 100,000×100,000; a real 20,000×20,000 PNG of a few hundred KB), a truncated JPEG, polyglots (sniffed as
// an image, not decodable as one), as attachments and as avatars; a PNG carrying far more compressed data than its
// declared pixels is decoded only to its declared size. The pool's threads have bounded heaps.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { IMAGE_WORKER_LIMITS, ImagePool } from '../../actors/image-pool.js';
import { pngDeclaring, upload } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A whole greyscale PNG of `width`×`height` whose IDAT inflates to `inflated` bytes of zeros (rows and filter bytes). */
function greyPng(width: number, height: number, inflated: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  const idat = zlib.deflateSync(Buffer.alloc(inflated), { level: 9 });
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

describe('hostile images', () => {
  let s: TestServer;
  let token: string;
  let dataDir: string;
  const mediaFiles = async () => (await readdir(path.join(dataDir, 'media')).catch(() => [])).sort();

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-hostile-'));
    s = await startTestServer({ STOA_DATA_DIR: dataDir });
    token = (await createMembers(s, ['eve'])).token['eve']!;
  });
  after(async () => {
    await s.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses pixel bombs, a truncated JPEG and polyglots with 422, storing nothing, and keeps serving', async () => {
    const before = await mediaFiles();
    const jpeg = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#468' } })
      .jpeg()
      .toBuffer();
    const cases: [string, Buffer, RegExp][] = [
      ['a PNG declaring 100000×100000', pngDeclaring(100_000, 100_000), /100000x100000 images are not supported/],
      // 400 million pixels of zeros deflate to about 400 KB: refused from its header, never inflated.
      ['a 20000×20000 PNG of zeros (decompression bomb)', greyPng(20_000, 20_000, 20_001 * 20_000), /20000x20000 images are not supported/],
      ['a truncated JPEG', jpeg.subarray(0, Math.floor(jpeg.length / 2)), /could not be read as an image/],
      ['a GIF/JavaScript polyglot', Buffer.from('GIF89a/*\x00\x00*/=1;alert(document.cookie)//<script>alert(1)</script>'), /could not be read as an image/],
      // Its "header" is HTML read as a size: refused for that already.
      ['a PNG signature before HTML', Buffer.concat([SIGNATURE, Buffer.from('<html><script>alert(1)</script></html>')]), /images are not supported/],
      [
        'a PNG signature, a 10×10 header, then HTML',
        Buffer.concat([pngDeclaring(10, 10).subarray(0, 33), Buffer.from('<html><script>alert(1)</script></html>')]),
        /could not be read as an image/,
      ],
      [
        'a JPEG start before a ZIP',
        Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('PK\x03\x04'), Buffer.alloc(512, 7)]),
        /could not be read as an image/,
      ],
      ['a WebP header over garbage', Buffer.concat([Buffer.from('RIFF\x40\x00\x00\x00WEBPVP8 '), Buffer.alloc(64, 0x11)]), /could not be read as an image/],
    ];
    for (const [what, data, error] of cases) {
      const r = await upload(s.url, token, data, {}, 'application/octet-stream');
      assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, error, what);
    }
    for (const [what, data] of cases) {
      const form = new FormData();
      form.set('avatar', new Blob([new Uint8Array(data)]), 'me.png');
      const res = await fetch(`${s.url}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { Authorization: `Bearer ${token}` }, body: form });
      assert.equal(res.status, 422, `avatar: ${what}`);
      assert.ok(((await res.json()) as { error: string }).error, what);
    }
    assert.deepEqual(await mediaFiles(), before, 'nothing stored');
    await eventually(async () => assert.deepEqual(await readdir(path.join(dataDir, 'tmp')).catch(() => []), []));
    assert.equal((await upload(s.url, token, jpeg, {}, 'image/jpeg')).status, 200, 'the server still works');
  });

  it('decodes a PNG with 200 MB of compressed zeros behind a 1000×1000 header only to its declared size', async () => {
    const bomb = greyPng(1000, 1000, 200 * 1024 * 1024);
    assert.ok(bomb.length < 300_000);
    const r = await upload(s.url, token, bomb, {}, 'image/png');
    // The picture it declares (black, 1000×1000): the excess is never inflated, so it costs what a 1000×1000 PNG does.
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.meta.original.size, '1000x1000');
    assert.equal(r.body.meta.small.size, '480x480');
  });

  it("bounds the image threads' heaps (sharp's pixels are native memory: limitInputPixels bounds those)", async () => {
    const pool = new ImagePool({ maxThreads: 1, maxQueue: 1, idleTimeoutMs: 1000 });
    try {
      assert.deepEqual(pool.options.resourceLimits, IMAGE_WORKER_LIMITS);
      assert.ok(IMAGE_WORKER_LIMITS.maxOldGenerationSizeMb! <= 256);
    } finally {
      await pool.stop(1000);
    }
  });
});
