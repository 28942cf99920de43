// Upload limits over real HTTP, read from the instance documents and checked against what uploads do: a file of
// exactly the advertised size is taken and one byte more is refused with the limit in the message (images and
// video), a multipart body over MAX_MULTIPART_BYTES is refused before it is read, images over the pixel limit and
// files of types not listed are refused, and nothing is stored for a refusal. A server with a lower multipart limit
// advertises, and enforces, smaller files. Large bodies are generated while they are sent (test/support/media.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import sharp from 'sharp';
import { ftyp, png, upload, uploadStreamed } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const MiB = 1024 * 1024;

async function mediaLimits(s: TestServer): Promise<Json> {
  const v1 = (await (await fetch(`${s.url}/api/v1/instance`)).json()) as Json;
  const v2 = (await (await fetch(`${s.url}/api/v2/instance`)).json()) as Json;
  assert.deepEqual(v1.configuration.media_attachments, v2.configuration.media_attachments);
  return v2.configuration.media_attachments;
}

describe('upload limits as advertised', () => {
  let s: TestServer;
  let dataDir: string;
  let token: string;
  let limits: Json;
  const storedFiles = async () => (await readdir(path.join(dataDir, 'media')).catch(() => [])).length;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-media-limits-'));
    s = await startTestServer({ STOA_DATA_DIR: dataDir });
    token = (await createMembers(s, ['ivy'])).token['ivy']!;
    limits = await mediaLimits(s);
  });
  after(async () => {
    await s?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the instance documents advertise the limits and types uploads enforce', () => {
    assert.equal(limits.image_size_limit, 16 * MiB);
    assert.equal(limits.video_size_limit, 40 * MiB);
    assert.equal(limits.description_limit, 1500);
    assert.equal(limits.image_matrix_limit, 33_177_600);
    for (const t of [
      'image/jpeg',
      'image/png',
      'image/gif',
      'image/webp',
      'image/avif',
      'video/mp4',
      'video/quicktime',
      'video/webm',
      'audio/mpeg',
      'audio/ogg',
      'audio/mp4',
    ]) {
      assert.ok(limits.supported_mime_types.includes(t), t);
    }
    assert.ok(!limits.supported_mime_types.includes('image/heic'), 'HEIC is refused, so not advertised');
  });

  it('takes an image of exactly image_size_limit and refuses one byte more, naming the limit', async () => {
    const at = await uploadStreamed(s.url, token, { head: png(1200, 800, 0), size: limits.image_size_limit });
    assert.equal(at.status, 200, JSON.stringify(at.body));
    assert.equal(at.body.type, 'image');
    // Kept re-encoded: the picture, without the padding that made the file that long.
    assert.equal(at.body.meta.original.size, '1200x800');
    const before = await storedFiles();
    const over = await uploadStreamed(s.url, token, { head: png(1200, 800, 0), size: limits.image_size_limit + 1 });
    assert.equal(over.status, 422);
    assert.equal(over.body.error, 'Validation failed: File is too large (images are limited to 16 MiB)');
    assert.equal(await storedFiles(), before, 'nothing stored');
  });

  it('takes a video of exactly video_size_limit (the multipart limit leaves room for it) and refuses one byte more', async () => {
    const stored = await storedFiles();
    const at = await uploadStreamed(s.url, token, {
      head: ftyp('isom', ['iso2', 'mp41']),
      size: limits.video_size_limit,
      fields: { description: 'a long clip' },
    });
    // Taken, and processed after the answer (202): a header and filler is no video, so processing refuses it.
    assert.equal(at.status, 202, JSON.stringify(at.body));
    assert.equal(at.body.type, 'video');
    assert.equal(at.body.description, 'a long clip');
    await eventually(async () => {
      assert.equal((await api(s.url, token, 'GET', `/api/v1/media/${at.body.id}`)).status, 422);
      assert.equal(await storedFiles(), stored, 'the refused file is removed');
    }, 30_000);
    const before = await storedFiles();
    const over = await uploadStreamed(s.url, token, { head: ftyp('isom', ['iso2', 'mp41']), size: limits.video_size_limit + 1 });
    assert.equal(over.status, 422);
    assert.equal(over.body.error, 'Validation failed: File is too large (video and audio are limited to 40 MiB)');
    const audio = await uploadStreamed(s.url, token, { head: ftyp('M4A ', ['M4A ']), size: limits.video_size_limit + 1 });
    assert.equal(audio.body.error, 'Validation failed: File is too large (video and audio are limited to 40 MiB)');
    assert.equal(await storedFiles(), before, 'nothing stored');
  });

  it('refuses a multipart body over MAX_MULTIPART_BYTES from its Content-Length, before reading it', async () => {
    const limit = s.app.config.limits.multipartBytes;
    const r = await uploadStreamed(s.url, token, { head: png(10, 10), size: 64, declaredLength: limit + 1 });
    assert.equal(r.status, 413);
    assert.deepEqual(r.body, { error: 'Request entity too large', error_description: `The body is limited to ${limit} bytes` });
  });

  it('refuses images over image_matrix_limit and takes one at the limit', async () => {
    const before = await storedFiles();
    const over = await upload(s.url, token, png(7681, 4321));
    assert.equal(over.status, 422);
    assert.equal(over.body.error, 'Validation failed: 7681x4321 images are not supported (at most 33177600 pixels)');
    assert.equal(await storedFiles(), before, 'nothing stored');
    const at = await upload(s.url, token, png(7680, 4320));
    assert.equal(at.status, 200, JSON.stringify(at.body));
    assert.equal(at.body.meta.original.size, '7680x4320');
  });

  it('refuses types it does not serve, whatever the client calls them, and takes the ones it lists', async () => {
    for (const [data, claimed] of [
      [ftyp('heic', ['mif1', 'heic']), 'image/heic'],
      [Buffer.from('%PDF-1.7\n'), 'image/jpeg'],
    ] as const) {
      const r = await upload(s.url, token, data, {}, claimed);
      assert.equal(r.status, 422, claimed);
      assert.equal(r.body.error, 'Validation failed: File content type is not supported');
      assert.match(r.body.error_description, /Images \(JPEG, PNG, GIF, WebP, AVIF\)/);
    }
    const picture = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
      .avif()
      .toBuffer();
    const avif = await upload(s.url, token, picture, {}, 'image/avif');
    assert.equal(avif.status, 200, JSON.stringify(avif.body));
    assert.equal((await fetch(avif.body.url)).headers.get('content-type'), 'image/avif');
    // An M4A (made here with ffmpeg) is taken and processed after the answer: served as MP3 (media/transcode.ts).
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-m4a-'));
    execFileSync('/usr/bin/ffmpeg', ['-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'sine=duration=1', '-c:a', 'aac', '-f', 'ipod', path.join(dir, 'a.m4a')]);
    const m4a = await upload(s.url, token, await readFile(path.join(dir, 'a.m4a')), {}, 'audio/x-m4a');
    await rm(dir, { recursive: true, force: true });
    assert.equal(m4a.status, 202, JSON.stringify(m4a.body));
    assert.equal(m4a.body.type, 'audio');
    let url = '';
    await eventually(async () => {
      const g = await api(s.url, token, 'GET', `/api/v1/media/${m4a.body.id}`);
      assert.equal(g.status, 200, g.text);
      url = g.body.url;
    }, 30_000);
    assert.equal((await fetch(url)).headers.get('content-type'), 'audio/mpeg');
  });

  it('takes a description of exactly description_limit characters', async () => {
    const r = await upload(s.url, token, png(2, 2), { description: 'é'.repeat(limits.description_limit) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.description.length, limits.description_limit);
  });
});

describe('upload limits under a lower MAX_MULTIPART_BYTES', () => {
  let s: TestServer;
  let token: string;

  before(async () => {
    s = await startTestServer({ MAX_MULTIPART_BYTES: String(4 * MiB) });
    token = (await createMembers(s, ['jon'])).token['jon']!;
  });
  after(async () => s?.stop());

  it('advertises the smaller files the body can carry, and enforces exactly that', async () => {
    const limits = await mediaLimits(s);
    assert.equal(limits.image_size_limit, 3 * MiB);
    assert.equal(limits.video_size_limit, 3 * MiB);
    const at = await uploadStreamed(s.url, token, { head: png(10, 10, 0), size: limits.image_size_limit });
    assert.equal(at.status, 200, JSON.stringify(at.body));
    const over = await uploadStreamed(s.url, token, { head: png(10, 10, 0), size: limits.image_size_limit + 1 });
    assert.equal(over.status, 422);
    assert.equal(over.body.error, 'Validation failed: File is too large (images are limited to 3 MiB)');
  });
});
