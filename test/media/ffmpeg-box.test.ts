// The pieces of video processing that need no server: the GIF frame counter (a parser of untrusted bytes: it never
// throws or loops, whatever the bytes, and counts the frames of real GIFs), the boxed child process (the wall time
// kills, the kernel's CPU limit kills, output is capped), and ffprobe reading only through the demuxer it is given.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import sharp from 'sharp';
import { probe, runLimited } from '../../src/media/ffmpeg.js';
import { gifFrames } from '../../src/media/gif-frames.js';
import { lengthOf } from '../../src/media/transcode.js';

describe('gifFrames', () => {
  it('counts the frames of real GIFs: one for a still, two (its stop) for an animation', async () => {
    const still = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#840' } })
      .gif()
      .toBuffer();
    assert.equal(gifFrames(still), 1);
    const frames = Buffer.alloc(8 * 24 * 3, 0x40); // three different frames
    frames.fill(0xff, 8 * 8 * 3);
    frames.fill(0x90, 2 * 8 * 8 * 3);
    const animated = await sharp(frames, { raw: { width: 8, height: 24, channels: 3, pageHeight: 8 } })
      .gif({ delay: [100, 100, 100] })
      .toBuffer();
    assert.equal(gifFrames(animated), 2);
    assert.equal(gifFrames(animated, 10), 3);
  });

  it('never throws and always ends, on any bytes after a GIF signature', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (tail) => {
        const n = gifFrames(Buffer.concat([Buffer.from('GIF89a'), Buffer.from(tail)]), 1000);
        assert.ok(n >= 0 && n <= 1000);
      }),
      { seed: 38, numRuns: 500 },
    );
  });
});

describe('the boxed ffmpeg run', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-ffbox-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('kills a run past its wall time', async () => {
    const started = Date.now();
    const r = await runLimited('/bin/sleep', ['30'], { wallMs: 300, cpuSeconds: 10 });
    assert.equal(r.timedOut, true);
    assert.equal(r.code, null);
    assert.ok(Date.now() - started < 5_000);
  });

  it('has the kernel stop a run past its CPU time', async () => {
    const r = await runLimited('/bin/sh', ['-c', 'while :; do :; done'], { wallMs: 30_000, cpuSeconds: 1 });
    assert.equal(r.timedOut, false, 'stopped by the CPU limit, not the wall time');
    assert.notEqual(r.code, 0);
  });

  it('probes with the named demuxer only: a playlist naming another file is not read as one', async () => {
    const m3u8 = path.join(dir, 'list.mp4');
    await writeFile(m3u8, '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:/etc/hostname\n#EXT-X-ENDLIST\n');
    assert.equal(await probe(m3u8, 'video/mp4', { wallMs: 10_000, cpuSeconds: 10 }), null);
    assert.equal(await probe(m3u8, 'text/plain', { wallMs: 10_000, cpuSeconds: 10 }), null, 'no demuxer for other types');
  });

  it("writes Mastodon's length", () => {
    assert.equal(lengthOf(5), '0:00:05.00');
    assert.equal(lengthOf(25.11), '0:00:25.11');
    assert.equal(lengthOf(3723.5), '1:02:03.50');
  });
});
