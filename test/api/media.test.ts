// Media over real HTTP: upload (type from the bytes, size limits), describe, attach to a status (once), serve the
// file; and between two servers, a post's image reaches the other side, which serves it through its proxy after
// fetching it once from the origin.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, type Json } from '../support/api.js';
import { h264Mp4, imageInfo, png, upload, uploadProcessed } from '../support/media.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('media', () => {
  let s: TestServer;
  const token: Record<string, string> = {};
  let dataDir: string;

  before(async () => {
    // A media directory left readable by an older version: the server tightens it.
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-media-'));
    await mkdir(path.join(dataDir, 'media'), { mode: 0o755 });
    s = await startTestServer({ STOA_DATA_DIR: dataDir });
    const members = await createMembers(s, ['kai', 'lea']);
    Object.assign(token, members.token);
    for (const name of ['kai', 'lea']) token[`${name}-read`] = await members.tokenFor(name, ['read']);
  });
  after(async () => {
    await s.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('uploads an image, detects its type and size from the bytes, and serves it', async () => {
    const data = png(640, 480);
    const r = await upload(s.url, token['kai'], data, { description: 'a test picture', focus: '0.5,-0.25' }, 'application/octet-stream');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.type, 'image');
    assert.equal(r.body.description, 'a test picture');
    assert.deepEqual(r.body.meta.original, { width: 640, height: 480, size: '640x480', aspect: 640 / 480 });
    assert.deepEqual(r.body.meta.focus, { x: 0.5, y: -0.25 });
    assert.equal(r.body.remote_url, null);
    const served = await fetch(r.body.url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    // Re-encoded (without metadata), so not the same bytes: the same picture.
    assert.deepEqual(await imageInfo(Buffer.from(await served.arrayBuffer())), { format: 'png', width: 640, height: 480 });
    // Only the server's own user may read what is stored: followers-only media must not be readable by other local users.
    const stored = path.join(s.app.config.dataDir, 'media', new URL(r.body.url).pathname.split('/').pop()!);
    assert.equal((await stat(stored)).mode & 0o777, 0o600);
    assert.equal((await stat(path.dirname(stored))).mode & 0o777, 0o700);
    const fetched = await api(s.url, token['kai'], 'GET', `/api/v1/media/${r.body.id}`);
    assert.equal(fetched.body.id, r.body.id);
    const described = await api(s.url, token['kai'], 'PUT', `/api/v1/media/${r.body.id}`, { description: 'changed', focus: '0,0' });
    assert.equal(described.body.description, 'changed');
    assert.equal((await api(s.url, token['lea'], 'GET', `/api/v1/media/${r.body.id}`)).status, 404, "another member's upload");
  });

  it('refuses what is not media, bad descriptions, missing files and missing scopes, saying why', async () => {
    const html = await upload(s.url, token['kai'], Buffer.from('<html><script>alert(1)</script></html>'), {}, 'image/png');
    assert.equal(html.status, 422);
    assert.equal(html.body.error, 'Validation failed: File content type is not supported');
    assert.match(html.body.error_description, /JPEG, PNG, GIF, WebP, AVIF/);
    const focus = await upload(s.url, token['kai'], png(1, 1), { focus: '2,0' });
    assert.deepEqual([focus.status, focus.body.error], [422, 'Validation failed: focus values must be between -1 and 1']);
    const long = await upload(s.url, token['kai'], png(1, 1), { description: 'x'.repeat(1501) });
    assert.deepEqual([long.status, long.body.error], [422, 'Validation failed: Description is too long (maximum is 1500 characters)']);
    const scope = await upload(s.url, token['kai-read'], png(1, 1));
    assert.deepEqual([scope.status, scope.body.error], [403, 'This action is outside the authorized scopes']);
    const anonymous = await upload(s.url, undefined, png(1, 1));
    assert.deepEqual([anonymous.status, anonymous.body.error], [401, 'The access token is invalid']);
    const noFile = await api(s.url, token['kai'], 'POST', '/api/v2/media', { description: 'no file' });
    assert.deepEqual([noFile.status, noFile.body.error], [422, 'Validation failed: file is required (multipart/form-data)']);
    assert.equal((await fetch(`${s.url}/system/media/../../etc/passwd`)).status, 404);
    assert.equal((await fetch(`${s.url}/system/media/00000000000000000000000000000000.png`)).status, 404);
  });

  it('attaches uploads to a status once, in order, and a post may be media alone', async () => {
    const a = (await upload(s.url, token['kai'], png(10, 20))).body;
    const b = (await upload(s.url, token['kai'], png(30, 40))).body;
    const posted = await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: '', media_ids: [b.id, a.id] });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.deepEqual(
      posted.body.media_attachments.map((m: Json) => m.id),
      [b.id, a.id],
    );
    const again = await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: 'reuse', media_ids: [a.id] });
    assert.equal(again.status, 422);
    const theirs = (await upload(s.url, token['lea'], png(5, 5))).body;
    assert.equal((await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: 'not mine', media_ids: [theirs.id] })).status, 422);
    assert.equal((await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: '', media_ids: [] })).status, 422, 'no text and no media');
  });

  it('refuses a video beside other media, when posting and when editing, as Mastodon does', async () => {
    const video = await uploadProcessed(s.url, token['kai'], h264Mp4());
    assert.equal(video.type, 'video');
    const image = (await upload(s.url, token['kai'], png(8, 8))).body;
    const mixed = await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: 'both', media_ids: [image.id, video.id] });
    assert.equal(mixed.status, 422);
    assert.equal(mixed.body.error, 'Validation failed: Cannot attach a video to a post that already contains images');
    // Nothing was taken: each posts alone.
    const alone = await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: 'a clip', media_ids: [video.id] });
    assert.equal(alone.status, 200, JSON.stringify(alone.body));
    const pictured = (await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: 'a picture', media_ids: [image.id] })).body;
    const second = await uploadProcessed(s.url, token['kai'], h264Mp4());
    const edited = await api(s.url, token['kai'], 'PUT', `/api/v1/statuses/${pictured.id}`, { status: 'a picture', media_ids: [image.id, second.id] });
    assert.equal(edited.status, 422);
    assert.equal(edited.body.error, 'Validation failed: Cannot attach a video to a post that already contains images');
    const unchanged = (await api(s.url, token['kai'], 'GET', `/api/v1/statuses/${pictured.id}`)).body;
    assert.deepEqual(
      unchanged.media_attachments.map((m: Json) => m.id),
      [image.id],
    );
    assert.equal(unchanged.edited_at, null);
    const two = (await upload(s.url, token['kai'], png(9, 9))).body;
    assert.equal(
      (await api(s.url, token['kai'], 'PUT', `/api/v1/statuses/${pictured.id}`, { status: 'two pictures', media_ids: [image.id, two.id] })).status,
      200,
      'images together are fine',
    );
  });

  it('delete and redraft: the deleted post answers its media and text, which post again as a new status', async () => {
    const a = (await upload(s.url, token['kai'], png(12, 12), { description: 'first' })).body;
    const b = (await upload(s.url, token['kai'], png(14, 14))).body;
    const posted = (await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: 'draft one', media_ids: [a.id, b.id] })).body;
    // An edit takes b out: it stays with the post's history, and deleting the post frees it too.
    assert.equal((await api(s.url, token['kai'], 'PUT', `/api/v1/statuses/${posted.id}`, { status: 'draft two', media_ids: [a.id] })).status, 200);
    const deleted = await api(s.url, token['kai'], 'DELETE', `/api/v1/statuses/${posted.id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.text, 'draft two');
    assert.deepEqual(
      deleted.body.media_attachments.map((m: Json) => [m.id, m.description]),
      [[a.id, 'first']],
    );
    assert.equal((await api(s.url, token['kai'], 'GET', `/api/v1/statuses/${posted.id}`)).status, 404);
    const redrafted = await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: deleted.body.text, media_ids: [b.id, a.id] });
    assert.equal(redrafted.status, 200, JSON.stringify(redrafted.body));
    assert.notEqual(redrafted.body.id, posted.id);
    assert.deepEqual(
      redrafted.body.media_attachments.map((m: Json) => m.id),
      [b.id, a.id],
    );
    const served = await fetch(redrafted.body.media_attachments[1].url);
    assert.equal(served.status, 200);
    // Once attached again, they are the new post's: another post cannot take them.
    assert.equal((await api(s.url, token['kai'], 'POST', '/api/v1/statuses', { status: 'again', media_ids: [a.id] })).status, 422);
  });
});

describe('media between two servers', () => {
  const FED_ENV = { BASE_URL: 'http://127.0.0.1:{port}', FEDERATION_ALLOW_PRIVATE: 'loopback', DELIVERY_RETRY_BASE_MS: '200' };
  let a: TestServer;
  let b: TestServer;
  let tokenA: string;
  let tokenB: string;

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    const aOnB = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=admin@${new URL(a.url).host}`)).body.id;
    await api(b.url, tokenB, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    await eventually(async () => assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`)).body[0].following, true));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("serves a remote post's image through the proxy, fetched from its origin", async () => {
    const data = png(800, 600, 500);
    const m = (await upload(a.url, tokenA, data, { description: 'sunset' })).body;
    const posted = (await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'look', media_ids: [m.id] })).body;
    let seen: Json;
    await eventually(async () => {
      seen = (await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.uri === posted.uri);
      assert.ok(seen);
    });
    const [att] = seen.media_attachments;
    assert.equal(att.type, 'image');
    assert.equal(att.description, 'sunset');
    assert.equal(att.remote_url, m.url);
    assert.ok(att.url.startsWith(`${b.url}/media_proxy/`));
    const original = Buffer.from(await (await fetch(m.url)).arrayBuffer());
    assert.deepEqual(await imageInfo(original), { format: 'png', width: 800, height: 600 });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(att.url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), original);
    }
  });
});
