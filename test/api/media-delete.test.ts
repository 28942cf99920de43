// DELETE /api/v1/media/:id (Mastodon 4.4) over real HTTP: an upload no post uses is deleted with its file; one a post
// (or a scheduled post) uses is refused with Mastodon's 422; another member's, or none, is 404; write:media only.
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startServerWithDataDir, type TestServer } from '../support/server.js';

const IN_USE = { error: 'Media attachment is currently used by a status' };

describe('deleting an upload', () => {
  let s: TestServer & { readonly dataDir: string };
  let m: LocalMembers;
  const call = (who: string, method: string, p: string, body?: unknown) => api(s.url, m.token[who], method, p, body);
  const onDisk = async (url: string) =>
    access(path.join(s.dataDir, 'media', new URL(url).pathname.split('/').pop()!)).then(
      () => true,
      () => false,
    );

  before(async () => {
    s = await startServerWithDataDir();
    m = await createMembers(s, ['kai', 'lea']);
  });
  after(() => s.stop());

  it('deletes an unattached upload and its file, answering {}', async () => {
    const media = (await upload(s.url, m.token['kai']!, png(16, 16))).body;
    assert.equal(await onDisk(media.url), true);
    assert.equal((await call('lea', 'DELETE', `/api/v1/media/${media.id}`)).status, 404, 'another member’s upload');
    const r = await call('kai', 'DELETE', `/api/v1/media/${media.id}`);
    assert.deepEqual([r.status, r.body], [200, {}]);
    assert.equal((await call('kai', 'GET', `/api/v1/media/${media.id}`)).status, 404);
    assert.equal((await fetch(media.url)).status, 404, 'the file is no longer served');
    assert.equal(await onDisk(media.url), false, 'the file is gone from the storage');
    assert.equal((await call('kai', 'DELETE', `/api/v1/media/${media.id}`)).status, 404, 'twice');
    assert.equal((await call('kai', 'POST', '/api/v1/statuses', { status: 'x', media_ids: [media.id] })).status, 422, 'cannot be attached any more');
  });

  it('refuses an upload a post or a scheduled post uses, with Mastodon’s 422', async () => {
    const media = (await upload(s.url, m.token['kai']!, png(16, 16))).body;
    assert.equal((await call('kai', 'POST', '/api/v1/statuses', { status: 'with it', media_ids: [media.id] })).status, 200);
    const r = await call('kai', 'DELETE', `/api/v1/media/${media.id}`);
    assert.deepEqual([r.status, r.body], [422, IN_USE]);
    assert.equal((await fetch(media.url)).status, 200, 'still served');

    const held = (await upload(s.url, m.token['kai']!, png(16, 16))).body;
    const scheduled = await call('kai', 'POST', '/api/v1/statuses', { status: 'later', media_ids: [held.id], scheduled_at: '2099-01-01T00:00:00Z' });
    assert.equal(scheduled.status, 200);
    assert.deepEqual((await call('kai', 'DELETE', `/api/v1/media/${held.id}`)).body, IN_USE);
  });

  it('asks for write:media, and 404s what is not an id', async () => {
    const media = (await upload(s.url, m.token['kai']!, png(16, 16))).body;
    const readOnly = await m.tokenFor('kai', ['read']);
    assert.equal((await api(s.url, readOnly, 'DELETE', `/api/v1/media/${media.id}`)).status, 403);
    assert.equal((await api(s.url, undefined, 'DELETE', `/api/v1/media/${media.id}`)).status, 401);
    assert.equal((await call('kai', 'DELETE', '/api/v1/media/not-an-id')).status, 404);
    assert.equal((await call('kai', 'DELETE', '/api/v1/media/123456')).status, 404);
  });
});
