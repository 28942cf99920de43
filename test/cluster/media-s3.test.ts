// Issue 20, media on S3-compatible storage: with S3_ENABLED a server keeps every file in the bucket (a real S3-API
// server on loopback, s3rver): an upload is an object there, served by the API's address whole and by byte range; a
// member's avatar is one too, deleted from the bucket when replaced; a remote post's image viewed through the proxy
// and a remote avatar are kept there, and pruning the remote history deletes the image's object.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { png, upload, uploadProcessed } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { importRemoteWithImage, serveRemoteWithImage } from '../support/remote-media.js';
import { startTestS3, type TestS3 } from '../support/s3.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const nameOf = (url: string) => url.slice(url.lastIndexOf('/') + 1).replace(/\?.*$/, '');

async function get(url: string, range?: string) {
  const res = await fetch(url, { headers: range ? { range } : {}, redirect: 'manual' });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('media on S3-compatible storage', () => {
  let s3: TestS3;
  let s: TestServer;
  let origin: HistoryOrigin;
  let m: LocalMembers;
  let operator: string;

  async function setAvatar(image: Buffer): Promise<string> {
    const form = new FormData();
    form.append('avatar', new Blob([image], { type: 'image/png' }), 'avatar.png');
    const res = await fetch(`${s.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${m.token['ann']}` },
      body: form,
    });
    const body = (await res.json()) as Json;
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.avatar as string;
  }

  before(async () => {
    s3 = await startTestS3();
    [s, origin] = await Promise.all([startTestServer({ ...FED_ENV, ...s3.env, MEDIA_PROXY_RETRY_MS: '0' }), startHistoryOrigin()]);
    m = await createMembers(s, ['ann', 'boss'], { boss: 'admin' });
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    assert.equal((await api(s.url, operator, 'PUT', '/api/v1/admin/remote_history', { enabled: true })).status, 200);
  });
  after(async () => {
    await s?.stop();
    await origin?.close();
    await s3?.close();
  });

  it('a video upload is processed from the bucket: the MOV as sent goes, the MP4 and its poster are objects', async () => {
    const before = await s3.keys();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-s3-video-'));
    const file = path.join(dir, 'a.mov');
    execFileSync('/usr/bin/ffmpeg', ['-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=160x120:rate=10', '-c:v', 'mjpeg', file]);
    const mov = await readFile(file);
    await rm(dir, { recursive: true, force: true });
    const v = await uploadProcessed(s.url, m.token['ann'], mov);
    assert.equal(v.type, 'video');
    const made = (await s3.keys()).filter((k) => !before.includes(k)).sort();
    assert.deepEqual(made, [nameOf(v.url), nameOf(v.preview_url)].sort(), 'the file as sent is gone from the bucket');
    const served = await get(v.url);
    assert.equal(served.status, 200);
    assert.equal(served.body.toString('latin1', 4, 8), 'ftyp');
  });

  it('an upload is an object in the bucket, served by its API address whole and by byte range', async () => {
    const before = await s3.keys();
    const up = await upload(s.url, m.token['ann'], png(40, 30, 2000));
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const name = nameOf(up.body.url);
    assert.equal(up.body.url, `${s.url}/system/media/${name}`, 'served through the server (no S3_ALIAS_HOST)');
    // The preview too (issue 38): an object beside the original, served by its own API address.
    const preview = nameOf(up.body.preview_url);
    assert.notEqual(preview, name);
    assert.deepEqual(await s3.keys(), [...before, name, preview].sort(), 'stored in the bucket');
    const small = await get(up.body.preview_url);
    assert.equal(small.status, 200);
    assert.deepEqual(small.body, await s3.bytes(preview));
    const stored = await s3.bytes(name);

    const whole = await get(up.body.url);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('content-type'), 'image/png');
    assert.equal(whole.headers.get('accept-ranges'), 'bytes');
    assert.deepEqual(whole.body, stored);

    const part = await get(up.body.url, 'bytes=8-23');
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 8-23/${stored.length}`);
    assert.deepEqual(part.body, stored.subarray(8, 24));
    const tail = await get(up.body.url, 'bytes=-5');
    assert.equal(tail.status, 206);
    assert.deepEqual(tail.body, stored.subarray(stored.length - 5));
    assert.equal((await get(up.body.url, `bytes=${stored.length}-`)).status, 416);
  });

  it("a member's avatar is an object in the bucket, served, and deleted from it when replaced", async () => {
    const first = await setAvatar(png(64, 64));
    const firstName = nameOf(first);
    assert.ok((await s3.keys()).includes(firstName), 'stored in the bucket');
    const served = await get(first);
    assert.equal(served.status, 200);
    assert.deepEqual(served.body, await s3.bytes(firstName));

    const second = await setAvatar(png(32, 32));
    const keys = await s3.keys();
    assert.ok(keys.includes(nameOf(second)));
    assert.ok(!keys.includes(firstName), 'the replaced avatar is deleted from the bucket');
    assert.equal((await get(first)).status, 404);
  });

  it('a remote image and avatar viewed through the proxy are kept in the bucket; pruning deletes the image', async () => {
    const picture = png(12, 9, 500);
    const avatar = png(8, 8);
    serveRemoteWithImage(origin, 'rita', picture, avatar);
    const r = await importRemoteWithImage(s.url, m.token['ann']!, origin, 'rita');
    const before = await s3.keys();

    const viewed = await get(r.attachment.url);
    assert.equal(viewed.status, 200);
    assert.deepEqual(viewed.body, picture);
    // The copy, and its preview (issue 38): both in the bucket.
    const kept = (await s3.keys()).filter((k) => !before.includes(k)).sort((a, b) => Number(a.endsWith('.jpg')) - Number(b.endsWith('.jpg')));
    assert.equal(kept.length, 2, 'the proxy keeps its copy and its preview in the bucket');
    assert.deepEqual(await s3.bytes(kept[0]!), picture);
    const previewed = await get(`${r.attachment.url}/small`);
    assert.equal(previewed.status, 200);
    assert.deepEqual(previewed.body, await s3.bytes(kept[1]!));
    assert.deepEqual((await get(r.attachment.url)).body, picture);
    assert.equal(origin.requests(r.imagePath), 1, 'served from the bucket after the first view');

    const shown = await get(r.avatar);
    assert.equal(shown.status, 200);
    assert.deepEqual(shown.body, avatar);
    const avatarKeys = (await s3.keys()).filter((k) => !before.includes(k) && !kept.includes(k));
    assert.equal(avatarKeys.length, 1, 'the remote avatar is kept in the bucket');

    // Past the retention (90 days unviewed), an operator's prune removes the post and deletes its copy.
    await s.app.db.exec("UPDATE remote_histories SET viewed_at = now() - interval '100 days' WHERE account_id = $1", [r.accountId]);
    const pruned = await api(s.url, operator, 'POST', '/api/v1/admin/remote_history/prune');
    assert.equal(pruned.status, 200, pruned.text);
    assert.deepEqual(pruned.body, { removed: 1, media_queued: 1 });
    await eventually(async () => {
      const left = await s3.keys();
      assert.ok(!left.includes(kept[0]!) && !left.includes(kept[1]!), 'the pruned copy and its preview are deleted from the bucket');
    });
    assert.equal((await get(r.attachment.url)).status, 404);
  });
});
