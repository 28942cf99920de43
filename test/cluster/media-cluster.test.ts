// Issue 20, media for a cluster: two nodes on one database, each with its own data directory, sharing the media
// storage (a directory both mount, or an S3 bucket on a real S3-API server). An upload to either node is served by
// both, by byte range too; a remote image viewed 8 times across both nodes at once is fetched from its origin once
// for the cluster; a remote avatar fetched by one node is served by the other (not the default image).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV } from '../support/api.js';
import { freshDatabaseUrl } from '../support/db.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { importRemoteWithImage, serveRemoteWithImage } from '../support/remote-media.js';
import { startTestS3, type TestS3 } from '../support/s3.js';
import { startTestServer, type TestServer } from '../support/server.js';

async function get(url: string, range?: string) {
  const res = await fetch(url, { headers: range ? { range } : {}, redirect: 'manual' });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

for (const backend of ['a shared directory', 'an S3 bucket'] as const) {
  describe(`two nodes, media on ${backend}`, () => {
    let dir: string;
    let s3: TestS3 | undefined;
    let n1: TestServer;
    let n2: TestServer;
    let origin: HistoryOrigin;
    let m: LocalMembers;
    /** The same address on the other node. */
    const on = (node: TestServer, url: string) => node.url + new URL(url).pathname + new URL(url).search;

    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'stoa-media-cluster-'));
      s3 = backend === 'an S3 bucket' ? await startTestS3() : undefined;
      const shared = s3 ? s3.env : { MEDIA_DIR: path.join(dir, 'shared-media') };
      const db = await freshDatabaseUrl();
      // Each node has its own data directory (temporary files, and the default media directory it must not use).
      [n1, n2, origin] = await Promise.all([
        startTestServer({ ...FED_ENV, ...shared, STOA_DATA_DIR: path.join(dir, 'node1') }, db),
        startTestServer({ ...FED_ENV, ...shared, STOA_DATA_DIR: path.join(dir, 'node2') }, db),
        startHistoryOrigin(),
      ]);
      m = await createMembers(n1, ['ann', 'boss'], { boss: 'admin' });
      const operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
      assert.equal((await api(n1.url, operator, 'PUT', '/api/v1/admin/remote_history', { enabled: true })).status, 200);
    });
    after(async () => {
      await Promise.all([n1?.stop(), n2?.stop(), origin?.close()]);
      await s3?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('an upload to either node is served by both, whole and by range', async () => {
      for (const [to, other] of [
        [n1, n2],
        [n2, n1],
      ] as const) {
        const up = await upload(to.url, m.token['ann'], png(30, 20, 1000));
        assert.equal(up.status, 200, JSON.stringify(up.body));
        const here = await get(up.body.url);
        assert.equal(here.status, 200);
        const there = await get(on(other, up.body.url));
        assert.equal(there.status, 200, 'served by the node that did not receive it');
        assert.deepEqual(there.body, here.body);
        const part = await get(on(other, up.body.url), 'bytes=4-11');
        assert.equal(part.status, 206);
        assert.deepEqual(part.body, here.body.subarray(4, 12));
      }
    });

    it('a remote image viewed 8 times across both nodes, at once, is fetched from its origin once', async () => {
      const picture = png(10, 10, 300);
      // Held a while at the origin, so that every view arrives while the first fetch is under way.
      serveRemoteWithImage(origin, 'nina', picture, png(6, 6), 300);
      const r = await importRemoteWithImage(n1.url, m.token['ann']!, origin, 'nina');
      const views = await Promise.all(Array.from({ length: 8 }, (_, i) => get(on(i % 2 ? n2 : n1, r.attachment.url))));
      for (const v of views) {
        assert.equal(v.status, 200);
        assert.deepEqual(v.body, picture);
      }
      assert.equal(origin.requests(r.imagePath), 1, 'one origin fetch for the cluster');
      assert.deepEqual((await get(on(n2, r.attachment.url))).body, picture);
      assert.equal(origin.requests(r.imagePath), 1);
    });

    it('a remote avatar fetched by one node is served by the other', async () => {
      const avatar = png(9, 9);
      serveRemoteWithImage(origin, 'omar', png(5, 5), avatar);
      const r = await importRemoteWithImage(n1.url, m.token['ann']!, origin, 'omar');
      const first = await get(on(n1, r.avatar));
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, avatar);
      const other = await get(on(n2, r.avatar));
      assert.equal(other.status, 200, `not the default image (${other.headers.get('location')})`);
      assert.deepEqual(other.body, avatar);
      assert.equal(origin.requests(r.avatarPath), 1, 'fetched once');
    });
  });
}
