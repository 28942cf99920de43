// Uploaded images lose their metadata: a photo's EXIF GPS position and camera serial never reach anyone, neither
// from this server nor from the copy another server fetches; its orientation is applied to the pixels. Files that
// cannot be decoded safely (pixel bombs, truncated files) are refused with 422, leaving nothing behind.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { png, pngDeclaring, upload, uploadProcessed } from '../support/media.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const SERIAL = 'SERIAL-5938-0174';
const MAKER = 'StoaCam';

/** A 400×200 JPEG that says "rotate 90° clockwise" (Orientation 6), with a GPS position and a camera serial. */
function photo(): Promise<Buffer> {
  return sharp({ create: { width: 400, height: 200, channels: 3, background: '#2a6' } })
    .withExif({
      IFD0: { Make: MAKER, Model: 'X1' },
      IFD2: { BodySerialNumber: SERIAL },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2976/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 0/1' },
    })
    .withMetadata({ orientation: 6 })
    .jpeg()
    .toBuffer();
}

/** Whether EXIF data (as sharp's metadata gives it: "Exif\0\0" and a TIFF structure) has a GPS IFD in IFD0. */
function hasGps(exif: Buffer | undefined): boolean {
  if (!exif) return false;
  const tiff = exif.subarray(exif.indexOf('Exif\0\0') === 0 ? 6 : 0);
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (le ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const ifd0 = le ? tiff.readUInt32LE(4) : tiff.readUInt32BE(4);
  const entries = u16(ifd0);
  for (let i = 0; i < entries; i++) if (u16(ifd0 + 2 + 12 * i) === 0x8825) return true;
  return false;
}

/** What a viewer of these bytes could learn beyond the pixels. */
async function leaks(data: Buffer): Promise<{ gps: boolean; serial: boolean; maker: boolean; orientation: number | undefined }> {
  const m = await sharp(data).metadata();
  return { gps: hasGps(m.exif), serial: data.includes(SERIAL), maker: data.includes(MAKER), orientation: m.orientation };
}

const NOTHING = { gps: false, serial: false, maker: false, orientation: undefined };

async function bytes(url: string, init?: RequestInit): Promise<Buffer> {
  const res = await fetch(url, init);
  assert.equal(res.status, 200, url);
  return Buffer.from(await res.arrayBuffer());
}

/** A JPEG declaring 20000×20000 pixels behind comments longer than the bytes sniffed, so only the decoder sees its size. */
async function hiddenPixelBomb(): Promise<Buffer> {
  const small = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } })
    .jpeg()
    .toBuffer();
  const sof = small.indexOf(Buffer.from([0xff, 0xc0]));
  small.writeUInt16BE(20000, sof + 5);
  small.writeUInt16BE(20000, sof + 7);
  const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0xff, 0xff]), Buffer.alloc(0xfffd, 0x20)]);
  return Buffer.concat([small.subarray(0, 2), comment, comment, small.subarray(2)]);
}

describe('uploaded images are re-encoded without metadata', () => {
  let a: TestServer;
  let b: TestServer;
  let tokenA: string;
  let tokenB: string;
  let dataDir: string;
  const mediaFiles = async () => (await readdir(path.join(dataDir, 'media')).catch(() => [])).sort();
  const tempFiles = async () => readdir(path.join(dataDir, 'tmp')).catch(() => []);

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-exif-'));
    [a, b] = await Promise.all([startTestServer({ ...FED_ENV, STOA_DATA_DIR: dataDir }), startTestServer(FED_ENV)]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    const aOnB = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(a.url).host}`)).body.id;
    await api(b.url, tokenB, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    await eventually(async () => assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`)).body[0].following, true));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves a photo without GPS, serial or maker, turned upright, here, in the Note and from the other server', async () => {
    const original = await photo();
    assert.deepEqual(await leaks(original), { gps: true, serial: true, maker: true, orientation: 6 }, 'the test photo carries them');
    const m = await upload(a.url, tokenA, original, { description: 'a field' }, 'image/jpeg');
    assert.equal(m.status, 200, JSON.stringify(m.body));
    // Orientation 6 applied: 400×200 as stored, 200×400 as seen, and as the meta says.
    assert.deepEqual(m.body.meta.original, { width: 200, height: 400, size: '200x400', aspect: 0.5 });
    const served = await bytes(m.body.url);
    assert.deepEqual(await leaks(served), NOTHING);
    assert.deepEqual([(await sharp(served).metadata()).format, (await sharp(served).metadata()).width], ['jpeg', 200]);
    assert.equal((await sharp(served).metadata()).exif, undefined, 'no EXIF at all');
    assert.equal(m.body.meta.original.width, (await sharp(served).metadata()).width);

    const posted = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'out in the fields', media_ids: [m.body.id] })).body;
    // The Note other servers receive names the file they fetch: the stripped one.
    const note = JSON.parse((await bytes(posted.uri, { headers: { Accept: 'application/activity+json' } })).toString()) as Json;
    const attached = note.attachment[0];
    assert.equal(attached.mediaType, 'image/jpeg');
    assert.deepEqual([attached.width, attached.height], [200, 400]);
    assert.ok((await bytes(attached.url)).equals(served));

    let seen: Json;
    await eventually(async () => {
      seen = (await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.uri === posted.uri);
      assert.ok(seen);
    });
    const copy = await bytes(seen.media_attachments[0].url);
    assert.ok(copy.equals(served), "the other server's copy is the stripped file");
    assert.deepEqual(await leaks(copy), NOTHING);
  });

  it('re-encodes avatars and headers the same way', async () => {
    const form = new FormData();
    form.set('avatar', new Blob([new Uint8Array(await photo())], { type: 'image/jpeg' }), 'me.jpg');
    const res = await fetch(`${a.url}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { Authorization: `Bearer ${tokenA}` }, body: form });
    assert.equal(res.status, 200);
    const avatar = await bytes(((await res.json()) as Json).avatar);
    assert.deepEqual(await leaks(avatar), NOTHING);
    const shape = await sharp(avatar).metadata();
    // Shown 200×400 (oriented): the avatar is its centred square, not enlarged to Mastodon's 400×400.
    assert.deepEqual([shape.format, shape.width, shape.height], ['jpeg', 200, 200]);
  });

  it('makes an animated GIF a silent MP4 (gifv, as Mastodon) without its comment, sized by its frame', async () => {
    const frames = Buffer.alloc(10 * 30 * 3);
    for (let i = 0; i < frames.length; i++) frames[i] = i < 300 ? 255 : i < 600 ? 0 : 128; // three different frames
    const gif = await sharp(frames, { raw: { width: 10, height: 30, channels: 3, pageHeight: 10 } })
      .gif({ delay: [100, 200, 300] })
      .toBuffer();
    // A comment extension (metadata GIFs carry), before the first frame's graphic control extension.
    const at = gif.indexOf(Buffer.from([0x21, 0xf9]));
    const comment = Buffer.concat([Buffer.from([0x21, 0xfe, SERIAL.length]), Buffer.from(SERIAL), Buffer.from([0])]);
    const commented = Buffer.concat([gif.subarray(0, at), comment, gif.subarray(at)]);
    assert.equal((await sharp(commented, { animated: true }).metadata()).pages, 3, 'still a valid GIF');
    const m = await uploadProcessed(a.url, tokenA, commented);
    assert.equal(m.type, 'gifv');
    assert.equal(m.meta.original.width, 10);
    assert.equal(m.meta.original.height, 10);
    const file = await bytes(m.url);
    assert.equal(file.includes(SERIAL), false, 'the comment is gone');
    assert.equal(file.toString('latin1', 4, 8), 'ftyp', 'an MP4');
  });

  it('refuses pixel bombs and truncated files with 422, keeping nothing and leaving no temporary file', async () => {
    const before = await mediaFiles();
    const cases: [string, Buffer, string, RegExp][] = [
      ['a PNG declaring 50000×50000', pngDeclaring(50_000, 50_000), 'image/png', /50000x50000 images are not supported/],
      ['a JPEG whose size only the decoder sees', await hiddenPixelBomb(), 'image/jpeg', /images are limited to 33177600 pixels/],
      ['a truncated JPEG', (await photo()).subarray(0, 600), 'image/jpeg', /could not be read as an image/],
      ['a truncated PNG', png(300, 300, 0).subarray(0, 60), 'image/png', /could not be read as an image/],
    ];
    for (const [what, data, type, error] of cases) {
      const r = await upload(a.url, tokenA, data, {}, type);
      assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, error, what);
    }
    assert.deepEqual(await mediaFiles(), before, 'nothing stored');
    await eventually(async () => assert.deepEqual(await tempFiles(), []));
    // And the server still works.
    assert.equal((await upload(a.url, tokenA, png(4, 4))).status, 200);
  });
});
