// Avatars and headers at Mastodon's sizes: an avatar is a centred square of at most 400×400, a header at most
// 1500×500 by area with its aspect kept; a GIF or WebP keeps its frames and gets a still PNG of its first frame as
// avatar_static / header_static, removed with it. Through the form, masto.js 7 and Mastodon.py 1.8.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRestAPIClient } from 'masto';
import sharp, { type Metadata } from 'sharp';
import type { Json } from '../support/api.js';
import { mastodonPy } from '../support/cli-clients.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PASSWORD = 'member-password-1';

async function served(url: string): Promise<{ data: Buffer; type: string | null; meta: Metadata }> {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  const data = Buffer.from(await res.arrayBuffer());
  return { data, type: res.headers.get('content-type'), meta: await sharp(data).metadata() };
}

/** An animation of three frames, red, green then blue. */
async function animation(width: number, height: number, format: 'gif' | 'webp'): Promise<Buffer> {
  const frames = await Promise.all(
    ['#ff0000', '#00ff00', '#0000ff'].map((c) =>
      sharp({ create: { width, height, channels: 3, background: c } })
        .raw()
        .toBuffer(),
    ),
  );
  const img = sharp(Buffer.concat(frames), { raw: { width, height: height * 3, channels: 3, pageHeight: height } } as never);
  return (format === 'gif' ? img.gif({ delay: [100, 100, 100], loop: 0 }) : img.webp({ delay: [100, 100, 100], loop: 0 })).toBuffer();
}

async function firstPixel(data: Buffer): Promise<number[]> {
  const { data: px, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
  return [...px.subarray(0, Math.min(3, info.channels))];
}

describe('avatar and header sizes', () => {
  let s: TestServer;
  let m: LocalMembers;

  async function patchForm(token: string, entries: [string, Buffer][]): Promise<{ status: number; body: Json }> {
    const form = new FormData();
    for (const [k, v] of entries) form.append(k, new Blob([new Uint8Array(v)]), 'picture');
    const res = await fetch(`${s.url}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { Authorization: `Bearer ${token}` }, body: form });
    return { status: res.status, body: (await res.json()) as Json };
  }

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ada', 'bo', 'cy']);
  });
  after(async () => s?.stop());

  it('a 1000×600 avatar is served 400×400, a 3000×2000 header within 1500×500 by area', async () => {
    const avatar = await sharp({ create: { width: 1000, height: 600, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    const header = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#996633' } })
      .png()
      .toBuffer();
    const r = await patchForm(m.token['ada']!, [
      ['avatar', avatar],
      ['header', header],
    ]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = await served(r.body.avatar);
    assert.deepEqual([a.type, a.meta.width, a.meta.height], ['image/jpeg', 400, 400]);
    assert.equal(r.body.avatar_static, r.body.avatar, 'a still image is its own static version');
    const h = await served(r.body.header);
    assert.deepEqual([h.type, h.meta.width, h.meta.height], ['image/png', 1060, 707]);
    assert.ok(h.meta.width! * h.meta.height! <= 1500 * 500);
    assert.equal(r.body.header_static, r.body.header);
  });

  it('an animated GIF avatar and WebP header stay animated, with still PNGs of their first frames', async () => {
    const r = await patchForm(m.token['bo']!, [
      ['avatar', await animation(600, 500, 'gif')],
      ['header', await animation(1800, 600, 'webp')],
    ]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = await served(r.body.avatar);
    assert.deepEqual([a.type, a.meta.width, a.meta.pageHeight ?? a.meta.height, a.meta.pages], ['image/gif', 400, 400, 3]);
    assert.notEqual(r.body.avatar_static, r.body.avatar);
    const still = await served(r.body.avatar_static);
    assert.deepEqual([still.type, still.meta.format, still.meta.width, still.meta.height, still.meta.pages ?? 1], ['image/png', 'png', 400, 400, 1]);
    assert.deepEqual(await firstPixel(still.data), [255, 0, 0], 'the first frame');
    const h = await served(r.body.header);
    assert.deepEqual([h.type, h.meta.pages, h.meta.width, h.meta.pageHeight ?? h.meta.height], ['image/webp', 3, 1500, 500]);
    const hs = await served(r.body.header_static);
    assert.deepEqual([hs.type, hs.meta.width, hs.meta.height, hs.meta.pages ?? 1], ['image/png', 1500, 500, 1]);

    // Replaced: the old GIF and its still go together.
    const next = await patchForm(m.token['bo']!, [
      [
        'avatar',
        await sharp({ create: { width: 50, height: 50, channels: 3, background: '#fff' } })
          .png()
          .toBuffer(),
      ],
    ]);
    assert.equal(next.status, 200);
    assert.equal((await fetch(r.body.avatar)).status, 404);
    assert.equal((await fetch(r.body.avatar_static)).status, 404);
    assert.equal(next.body.avatar_static, next.body.avatar);
    // A PNG twin name is served only while its GIF or WebP is someone's image.
    assert.equal((await fetch(r.body.avatar.replace(/\.gif$/, '.png'))).status, 404);
  });

  it('masto.js 7 (updateCredentials) and Mastodon.py 1.8 (account_update_credentials) read the sizes and stills', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['cy']! });
    const gif = await animation(800, 800, 'gif');
    const me = await client.v1.accounts.updateCredentials({ avatar: new Blob([new Uint8Array(gif)], { type: 'image/gif' }) });
    assert.notEqual(me.avatarStatic, me.avatar);
    assert.deepEqual([(await served(me.avatarStatic)).meta.format, (await served(me.avatar)).meta.width], ['png', 400]);

    const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-avatars-'));
    try {
      const file = path.join(dir, 'wide.jpg');
      await writeFile(
        file,
        await sharp({ create: { width: 1000, height: 600, channels: 3, background: '#123456' } })
          .jpeg()
          .toBuffer(),
      );
      const out = (await mastodonPy(
        s.url,
        'cy',
        PASSWORD,
        `
me = m.account_update_credentials(avatar=os.environ['FILE'])
out['avatar'] = me['avatar']
out['avatar_static'] = me['avatar_static']
`,
        { FILE: file },
      )) as { avatar: string; avatar_static: string };
      assert.equal(out.avatar_static, out.avatar);
      const a = await served(out.avatar);
      assert.deepEqual([a.meta.width, a.meta.height], [400, 400]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
