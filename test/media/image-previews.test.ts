// Every uploaded image gets Mastodon's `small` preview (at most 230,400 pixels, aspect kept, never enlarged, the
// orientation applied, sRGB, no metadata) at its own address, meta.original and meta.small from the real files, and a
// blurhash that decodes to the picture's colours: through POST /api/v2/media, masto.js 7 and Mastodon.py 1.8.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decode } from 'blurhash';
import fc from 'fast-check';
import { createRestAPIClient } from 'masto';
import sharp from 'sharp';
import { boundedByArea, SMALL_PIXELS } from '../../src/media/image-sizes.js';
import { reencodeImage } from '../../src/media/reencode.js';
import { api, type Json } from '../support/api.js';
import { mastodonPy } from '../support/cli-clients.js';
import { upload, uploadProcessed } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PASSWORD = 'member-password-1';

/** Left half one colour, right half another: the average is known, and a wrong orientation shows. */
function halves(width: number, height: number, left: string, right: string) {
  return sharp({ create: { width, height, channels: 3, background: left } }).composite([
    { input: { create: { width: Math.ceil(width / 2), height, channels: 3, background: right } }, left: Math.floor(width / 2), top: 0 },
  ]);
}

async function served(url: string): Promise<{ data: Buffer; type: string | null }> {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  return { data: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
}

// Averages in linear light, as blurhash's DC component is: red and blue halves average to a lighter purple in sRGB.
const toLinear = (v: number) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const toSrgb = (v: number) => 255 * (v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055);

/** The average colour of RGB(A) pixels, averaged in linear light and given in sRGB (0..255). */
function averageOf(px: Uint8Array | Uint8ClampedArray, channels: number): [number, number, number] {
  const sum = [0, 0, 0];
  for (let i = 0; i < px.length; i += channels) for (let c = 0; c < 3; c++) sum[c]! += toLinear(px[i + c]!);
  return sum.map((v) => toSrgb(v / (px.length / channels))) as [number, number, number];
}

/** The average colour of an image (alpha ignored). */
async function average(data: Buffer): Promise<[number, number, number]> {
  const { data: px, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return averageOf(px, info.channels);
}

const blurhashAverage = (hash: string) => averageOf(decode(hash, 32, 32), 4);

const close = (a: readonly number[], b: readonly number[], within: number) => a.every((v, i) => Math.abs(v - b[i]!) <= within);

/** What every image upload must satisfy, checked against the files served. */
async function checkPreview(e: Json, original: { width: number; height: number }, colour?: [number, number, number]) {
  assert.notEqual(e.preview_url, e.url, 'a preview of its own');
  assert.deepEqual(e.meta.original, { ...original, size: `${original.width}x${original.height}`, aspect: original.width / original.height });
  const file = await served(e.url);
  const fm = await sharp(file.data).metadata();
  assert.deepEqual([fm.width, fm.pageHeight ?? fm.height], [original.width, original.height], 'meta.original is the served file');
  assert.equal(fm.exif, undefined, 'no EXIF in the served original');
  const small = await served(e.preview_url);
  assert.match(small.type ?? '', /^image\/(jpeg|webp)$/);
  const sm = await sharp(small.data).metadata();
  assert.equal(sm.exif, undefined, 'no EXIF in the served preview');
  assert.deepEqual(e.meta.small, { width: sm.width, height: sm.height, size: `${sm.width}x${sm.height}`, aspect: sm.width! / sm.height! });
  assert.ok(sm.width! * sm.height! <= SMALL_PIXELS, `${sm.width}x${sm.height} is at most 230,400 pixels`);
  assert.deepEqual({ width: sm.width, height: sm.height }, boundedByArea(original.width, original.height, SMALL_PIXELS));
  assert.ok(Math.abs(sm.width! / sm.height! - original.width / original.height) <= (original.width / original.height) * 0.02 + 1 / sm.height!, 'aspect kept');
  assert.match(e.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{36}$/, 'a 4×4 blurhash (1 + 1 + 4 + 15 × 2 characters)');
  const want = colour ?? (await average(small.data));
  assert.ok(close(blurhashAverage(e.blurhash), want, 24), `blurhash ${blurhashAverage(e.blurhash)} ≈ ${want}`);
  return { small: small.data, type: small.type };
}

describe('image previews', () => {
  let s: TestServer;
  let token: string;

  before(async () => {
    s = await startTestServer();
    token = (await createMembers(s, ['ivy'])).token['ivy']!;
  });
  after(async () => {
    await s.stop();
  });

  it('a photo: oriented (EXIF 6), its GPS gone, a JPEG preview within 230,400 pixels', async () => {
    // 1200×800 stored "rotate 90° clockwise": shown 800×1200, red on top, blue below.
    const photo = await halves(1200, 800, '#d01010', '#1010d0')
      .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2976/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 0/1' } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const r = await upload(s.url, token, photo, {}, 'image/jpeg');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { small, type } = await checkPreview(r.body, { width: 800, height: 1200 });
    assert.equal(type, 'image/jpeg');
    const { data, info } = await sharp(small).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => data[(y * info.width + Math.floor(x)) * info.channels]!;
    assert.ok(at(info.width / 2, 5) > 150 && at(info.width / 2, info.height - 5) < 60, 'red on top, blue below: orientation applied');
    assert.equal(r.body.meta.focus.x, 0);
  });

  it('converts a Display P3 photo to sRGB in the preview; the original keeps its profile', async () => {
    const raw = Buffer.alloc(600 * 600 * 3);
    for (let i = 0; i < raw.length; i += 3) raw.set([60, 200, 90], i);
    // sRGB (60, 200, 90) stored as Display P3 values (about 103, 197, 103) with the P3 profile attached.
    const p3 = await sharp(raw, { raw: { width: 600, height: 600, channels: 3 } })
      .withIccProfile('p3')
      .jpeg({ quality: 100 })
      .toBuffer();
    const stored = [...(await sharp(p3).keepIccProfile().raw().toBuffer()).subarray(0, 3)];
    assert.ok(stored[0]! > 90, `P3 values stored: ${stored}`);
    const r = await upload(s.url, token, p3, {}, 'image/jpeg');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await sharp((await served(r.body.url)).data).metadata()).hasProfile, true, 'the original keeps its ICC profile');
    const small = (await served(r.body.preview_url)).data;
    assert.equal((await sharp(small).metadata()).hasProfile, false, 'the preview is plain sRGB');
    const shown = [...(await sharp(small).keepIccProfile().raw().toBuffer()).subarray(0, 3)];
    assert.ok(close(shown, [60, 200, 90], 6), `sRGB values in the preview: ${shown}`);
  });

  it('wide, tall, small, PNG with alpha, WebP, AVIF, and an animated GIF (a gifv with a still poster)', async () => {
    const cases: { name: string; data: Buffer; size: [number, number]; preview?: string }[] = [
      { name: 'wide', data: await halves(4000, 1000, '#20a040', '#20a040').png().toBuffer(), size: [4000, 1000] },
      { name: 'tall', data: await halves(700, 3000, '#f0c000', '#202020').jpeg().toBuffer(), size: [700, 3000] },
      { name: 'small', data: await halves(300, 200, '#0000ff', '#ff0000').png().toBuffer(), size: [300, 200] },
      {
        name: 'alpha',
        data: await sharp({ create: { width: 900, height: 600, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 0.5 } } })
          .png()
          .toBuffer(),
        size: [900, 600],
        preview: 'image/webp',
      },
      { name: 'webp', data: await halves(1000, 1000, '#3050f0', '#3050f0').webp().toBuffer(), size: [1000, 1000] },
      { name: 'avif', data: await halves(1024, 768, '#808000', '#808000').avif().toBuffer(), size: [1024, 768] },
    ];
    const frames = await Promise.all(
      ['#ff0000', '#00ff00', '#0000ff'].map((c) =>
        sharp({ create: { width: 800, height: 600, channels: 3, background: c } })
          .raw()
          .toBuffer(),
      ),
    );
    const gif = await sharp(Buffer.concat(frames), { raw: { width: 800, height: 1800, channels: 3, pageHeight: 600 } } as never)
      .gif({ delay: [100, 100, 100], loop: 0 })
      .toBuffer();
    // An animated GIF is processed into a looping MP4 (issue 38: gifv, media/transcode.ts): its preview is a still poster.
    const gifv = await uploadProcessed(s.url, token, gif);
    assert.equal(gifv.type, 'gifv');
    const poster = await served(gifv.preview_url);
    const pm = await sharp(poster.data).metadata();
    assert.equal(pm.pages ?? 1, 1, "an animation's preview is a still");
    // Mastodon's video `small` style: within 640×640, the aspect kept.
    assert.ok(pm.width! <= 640 && pm.height! <= 640 && Math.abs(pm.width! / pm.height! - 800 / 600) < 0.02, `the poster is small: ${pm.width}x${pm.height}`);
    assert.equal((await served(gifv.url)).type, 'video/mp4');
    assert.match(gifv.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/);
    for (const c of cases) {
      const r = await upload(s.url, token, c.data, {}, 'application/octet-stream');
      assert.equal(r.status, 200, `${c.name}: ${JSON.stringify(r.body)}`);
      const { small, type } = await checkPreview(r.body, { width: c.size[0], height: c.size[1] });
      if (c.preview) assert.equal(type, c.preview, c.name);
      if (c.name === 'alpha') assert.equal((await sharp(small).metadata()).hasAlpha, true, 'alpha kept in the preview');
    }
  });

  it('keeps the preview through GET, status rendering and delete', async () => {
    const up = await upload(s.url, token, await halves(1600, 900, '#102030', '#405060').jpeg().toBuffer(), { focus: '0.5,0.5' }, 'image/jpeg');
    assert.equal(up.status, 200);
    const got = await api(s.url, token, 'GET', `/api/v1/media/${up.body.id}`);
    assert.deepEqual([got.body.preview_url, got.body.blurhash, got.body.meta.small], [up.body.preview_url, up.body.blurhash, up.body.meta.small]);
    assert.deepEqual(got.body.meta.focus, { x: 0.5, y: 0.5 });
    const post = await api(s.url, token, 'POST', '/api/v1/statuses', { status: 'with a picture', media_ids: [up.body.id] });
    assert.equal(post.status, 200, JSON.stringify(post.body));
    const shown = post.body.media_attachments[0];
    assert.deepEqual([shown.preview_url, shown.blurhash, shown.meta.small], [up.body.preview_url, up.body.blurhash, up.body.meta.small]);
    const again = await api(s.url, token, 'GET', `/api/v1/statuses/${post.body.id}`);
    assert.equal(again.body.media_attachments[0].preview_url, up.body.preview_url);
    // Other servers are sent the blurhash in the Note's Document, as Mastodon sends it.
    const note = (await (await fetch(post.body.uri, { headers: { Accept: 'application/activity+json' } })).json()) as Json;
    assert.equal(note.attachment[0].blurhash, up.body.blurhash);
    assert.equal(note['@context'][1].blurhash, 'toot:blurhash');
    const free = await upload(s.url, token, await halves(800, 800, '#000', '#fff').png().toBuffer());
    assert.equal((await api(s.url, token, 'DELETE', `/api/v1/media/${free.body.id}`)).status, 200);
    assert.equal((await fetch(free.body.preview_url)).status, 404, 'the preview goes with its upload');
  });

  it('masto.js 7 (v2.media.create) and Mastodon.py 1.8 (media_post) read the preview, its size and blurhash', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: token });
    const data = await halves(2000, 1500, '#c03030', '#c03030').jpeg().toBuffer();
    const m = await client.v2.media.create({ file: new Blob([data], { type: 'image/jpeg' }), description: 'from masto.js' });
    assert.notEqual(m.previewUrl, m.url);
    assert.deepEqual([m.meta?.small?.width, m.meta?.small?.height], [554, 415]);
    assert.ok(m.blurhash);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-previews-'));
    try {
      const file = path.join(dir, 'wide.png');
      await writeFile(file, await halves(3000, 1000, '#30c030', '#30c030').png().toBuffer());
      const out = (await mastodonPy(
        s.url,
        'ivy',
        PASSWORD,
        `
media = m.media_post(os.environ['FILE'], description='from Mastodon.py')
out['url'] = media['url']
out['preview_url'] = media['preview_url']
out['small'] = [media['meta']['small']['width'], media['meta']['small']['height']]
out['blurhash'] = media['blurhash']
`,
        { FILE: file },
      )) as { url: string; preview_url: string; small: [number, number]; blurhash: string };
      assert.notEqual(out.preview_url, out.url);
      assert.deepEqual(out.small, [831, 277]);
      const sm = await sharp((await served(out.preview_url)).data).metadata();
      assert.deepEqual([sm.width, sm.height], out.small);
      assert.ok(close(blurhashAverage(out.blurhash), [0x30, 0xc0, 0x30], 24));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('preview sizes', () => {
  it('bounds any size by area, keeps the aspect, never enlarges', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20_000 }), fc.integer({ min: 1, max: 20_000 }), (w, h) => {
        const p = boundedByArea(w, h, SMALL_PIXELS);
        assert.ok(p.width * p.height <= SMALL_PIXELS || (p.width === w && p.height === h));
        assert.ok(p.width <= w && p.height <= h && p.width >= 1 && p.height >= 1);
        if (w * h <= SMALL_PIXELS) assert.deepEqual(p, { width: w, height: h });
        else if (p.width > 1 && p.height > 1) assert.ok(Math.abs(p.width / p.height - w / h) <= (w / h) * (1 / p.height + 1 / p.width) + 1e-9);
      }),
      { seed: 38, numRuns: 2000 },
    );
  });

  it('random images of random formats always yield a bounded preview, never a throw', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-preview-prop-'));
    const formats = ['jpeg', 'png', 'webp', 'gif', 'avif'] as const;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 2000 }),
          fc.integer({ min: 1, max: 2000 }),
          fc.constantFrom(...formats),
          fc.boolean(),
          async (w, h, format, alpha) => {
            const input = path.join(dir, `in.${format}`);
            const img = sharp({ create: { width: w, height: h, channels: alpha ? 4 : 3, background: { r: 90, g: 140, b: 200, alpha: 0.7 } } });
            await img.toFormat(format, format === 'avif' ? { effort: 0 } : {}).toFile(input);
            const r = await reencodeImage({
              input,
              output: path.join(dir, 'out'),
              contentType: `image/${format}`,
              maxPixels: 33_177_600,
              preview: path.join(dir, 'small'),
            });
            assert.ok(r.ok, `${w}x${h} ${format}`);
            const p = r.preview!;
            assert.ok(p.width * p.height <= SMALL_PIXELS);
            assert.deepEqual({ width: p.width, height: p.height }, boundedByArea(r.width, r.height, SMALL_PIXELS));
            const real = await sharp(path.join(dir, 'small')).metadata();
            assert.deepEqual([real.width, real.height], [p.width, p.height]);
          },
        ),
        { seed: 3838, numRuns: 24 },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
