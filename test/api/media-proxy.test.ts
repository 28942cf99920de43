// The remote media proxy over real HTTP, with a hand-written origin on loopback. Who may load a remote post's
// media: anyone for a public post; for a followers-only or direct post, only a reader (through the signed address
// they are given, or their token), never an anonymous or unrelated client, and nothing is fetched for a refused one;
// no one once the post is deleted. What the proxy refuses to pass on, with a clear 502 and nothing kept: a file that
// is not what was announced, a file over the size cap, an address the SSRF guard refuses, an origin answering an
// error; a refusal is answered from memory for MEDIA_PROXY_RETRY_MS, and a view after that fetches again.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { MediaStore, type MediaType } from '../../src/store/media.js';
import { StatusStore, type Visibility } from '../../src/store/statuses.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { png } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MiB = 1024 * 1024;
/** How long a refusal is answered from memory here (60 s by default). */
const RETRY_MS = 1500;
const afterRetryTime = () => new Promise((resolve) => setTimeout(resolve, RETRY_MS + 100));

/** How the origin answers one path; every request is counted and its headers kept. */
type Answer = (res: http.ServerResponse) => void;

async function startOrigin() {
  const answers = new Map<string, Answer>();
  const seen: { path: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url!, headers: req.headers });
    const answer = answers.get(req.url!);
    if (answer) answer(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    requests: (p: string) => seen.filter((r) => r.path === p),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const file =
  (contentType: string, data: Buffer): Answer =>
  (res) =>
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': data.length }).end(data);

describe('remote media proxy', () => {
  let s: TestServer;
  let dataDir: string;
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  let members: LocalMembers;
  let remoteId: string;
  let statuses: StatusStore;
  let media: MediaStore;
  let n = 0;
  const storedFiles = async () => (await readdir(path.join(dataDir, 'media')).catch(() => [])).length;

  /** A remote post as the inbox stores it, with one attachment at `url`; returns the status and attachment ids. */
  const remotePost = async (visibility: Visibility, url: string, o: { type?: MediaType; mentions?: string[] } = {}) => {
    const i = ++n;
    const { status } = await statuses.create({
      accountId: remoteId,
      uri: `${origin.base}/users/rae/statuses/${i}`,
      url: null,
      text: '',
      content: `<p>post ${i}</p>`,
      spoilerText: '',
      visibility,
      sensitive: false,
      language: 'en',
      inReplyToId: null,
      inReplyToAccountId: null,
      inReplyToUri: null,
      local: false,
      mentionIds: o.mentions ?? [],
      tags: [],
    });
    const m = await media.create(
      {
        accountId: remoteId,
        type: o.type ?? 'image',
        contentType: 'image/png',
        fileName: null,
        fileSize: null,
        width: null,
        height: null,
        description: null,
        focusX: 0,
        focusY: 0,
        remoteUrl: url,
      },
      status.id,
    );
    return { statusId: status.id, mediaId: m.id, bare: `${s.url}/media_proxy/${m.id}` };
  };
  /** The attachment's address as the API gives it to this reader (undefined token: anonymous). */
  const givenUrl = async (statusId: string, token: string | undefined): Promise<string> => {
    const r = await api(s.url, token, 'GET', `/api/v1/statuses/${statusId}`);
    assert.equal(r.status, 200, r.text);
    return r.body.media_attachments[0].url;
  };
  const get = async (url: string, token?: string) => {
    const res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    const body = Buffer.from(await res.arrayBuffer());
    const json = (res.headers.get('content-type') ?? '').startsWith('application/json') ? (JSON.parse(body.toString()) as Json) : null;
    return { status: res.status, headers: res.headers, body, json };
  };
  // Outside /api a 404 is the server's error page, as for any unknown address.
  const notFound = (r: { status: number; headers: Headers }, what: string) => {
    assert.equal(r.status, 404, what);
    assert.match(r.headers.get('content-type') ?? '', /^text\/html/, what);
  };
  const refused = (r: { status: number; json: Json; headers: Headers }, why: string) => {
    assert.equal(r.status, 502);
    assert.deepEqual(r.json, { error: 'The remote media could not be fetched', error_description: why });
    assert.equal(r.headers.get('cache-control'), 'no-store');
  };

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'stoa-media-proxy-'));
    [s, origin] = await Promise.all([startTestServer({ ...FED_ENV, STOA_DATA_DIR: dataDir, MEDIA_PROXY_RETRY_MS: String(RETRY_MS) }), startOrigin()]);
    statuses = new StatusStore(s.app.db);
    media = new MediaStore(s.app.db);
    members = await createMembers(s, ['fay', 'gus']);
    const host = new URL(origin.base).host;
    remoteId = (
      await s.app.federation.accounts.upsertRemote({
        uri: `${origin.base}/users/rae`,
        username: 'rae',
        domain: host,
        actorType: 'Person',
        displayName: 'Rae',
        note: '',
        url: null,
        locked: true,
        bot: false,
        discoverable: true,
        inboxUrl: `${origin.base}/users/rae/inbox`,
        sharedInboxUrl: null,
        outboxUrl: null,
        followersUrl: `${origin.base}/users/rae/followers`,
        followingUrl: null,
        featuredUrl: null,
        avatarRemoteUrl: null,
        headerRemoteUrl: null,
        fields: [],
        attachment: [],
        alsoKnownAs: [],
        movedToUri: null,
        publicKeyId: null,
        publicKeyPem: null,
        publishedAt: null,
      })
    ).id;
    await s.app.federation.follows.follow(members.id['fay']!, remoteId, null); // fay follows rae; gus does not
  });
  after(async () => {
    await Promise.all([s?.stop(), origin?.stop()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  describe('who may load it', () => {
    it("serves a public post's media to anyone, fetched once (signed) and kept", async () => {
      const data = png(320, 200, 300);
      origin.answers.set('/public.png', file('image/png', data));
      const p = await remotePost('public', `${origin.base}/public.png`);
      const url = await givenUrl(p.statusId, undefined);
      assert.equal(url, p.bare, 'a public post gets the plain address');
      for (let i = 0; i < 2; i++) {
        const r = await get(url);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('content-type'), 'image/png');
        assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
        assert.deepEqual(r.body, data);
      }
      const fetched = origin.requests('/public.png');
      assert.equal(fetched.length, 1, 'fetched on first view only');
      assert.match(String(fetched[0]!.headers['signature']), new RegExp(`keyId="${s.url}/actor#main-key"`), 'through the signed-fetch client');
      // An unlisted post is as open as a public one.
      origin.answers.set('/unlisted.png', file('image/png', data));
      const u = await remotePost('unlisted', `${origin.base}/unlisted.png`);
      assert.equal((await get(u.bare)).status, 200);
    });

    it("gives a followers-only post's media only to its readers, and fetches nothing for anyone else", async () => {
      const data = png(64, 64, 100);
      origin.answers.set('/private.png', file('image/png', data));
      const p = await remotePost('private', `${origin.base}/private.png`);
      notFound(await get(p.bare), 'anonymous, plain address');
      notFound(await get(`${p.bare}?sig=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`), 'anonymous, forged sig');
      notFound(await get(p.bare, members.token['gus']), 'a member who does not follow the author');
      notFound(await get(p.bare, 'not-a-token'), 'an invalid token');
      assert.equal((await api(s.url, members.token['gus'], 'GET', `/api/v1/statuses/${p.statusId}`)).status, 404, 'nor the post itself');
      assert.equal(origin.requests('/private.png').length, 0, 'nothing fetched for a refused request');

      // A follower is given an address that works without their token, as clients load images.
      const url = await givenUrl(p.statusId, members.token['fay']);
      assert.match(url, new RegExp(`^${p.bare}\\?sig=[\\w-]{32}$`));
      const r = await get(url);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, data);
      assert.equal(r.headers.get('cache-control'), 'private, max-age=31536000, immutable', 'never kept by a shared cache');
      // Their token works on the plain address too.
      const withToken = await get(p.bare, members.token['fay']);
      assert.equal(withToken.status, 200);
      assert.deepEqual(withToken.body, data);
      // One attachment's signature opens no other.
      const other = await remotePost('private', `${origin.base}/private.png`);
      notFound(await get(`${other.bare}?${new URL(url).searchParams}`), "another attachment's sig");
      assert.equal(origin.requests('/private.png').length, 1);
    });

    it("gives a direct post's media only to those it mentions", async () => {
      origin.answers.set('/direct.png', file('image/png', png(8, 8)));
      const p = await remotePost('direct', `${origin.base}/direct.png`, { mentions: [members.id['gus']!] });
      notFound(await get(p.bare), 'anonymous');
      notFound(await get(p.bare, members.token['fay']), 'a follower it does not mention');
      assert.equal(origin.requests('/direct.png').length, 0);
      assert.equal((await get(await givenUrl(p.statusId, members.token['gus']))).status, 200);
      assert.equal((await get(p.bare, members.token['gus'])).status, 200);
    });

    it("gives a deleted post's media to no one, kept or not, and never serves a kept file outside the proxy", async () => {
      origin.answers.set('/deleted.png', file('image/png', png(8, 8)));
      const seen = await remotePost('public', `${origin.base}/deleted.png`);
      assert.equal((await get(seen.bare)).status, 200);
      const kept = (await media.byId(seen.mediaId))!.fileName!;
      notFound(await get(`${s.url}/system/media/${kept}`), "a remote post's kept file by its name");
      const priv = await remotePost('private', `${origin.base}/deleted.png`);
      const readerUrl = await givenUrl(priv.statusId, members.token['fay']);
      await statuses.softDelete(seen.statusId);
      await statuses.softDelete(priv.statusId);
      notFound(await get(seen.bare), 'deleted after it was kept');
      notFound(await get(readerUrl), "deleted, with a reader's address");
      const unseen = await remotePost('public', `${origin.base}/deleted.png`);
      await statuses.softDelete(unseen.statusId);
      notFound(await get(unseen.bare), 'deleted before anyone looked');
      assert.equal(origin.requests('/deleted.png').length, 1, 'only the first view fetched');
    });

    it('answers 404 for unknown ids, local uploads and attachments of an unknown kind, fetching nothing', async () => {
      notFound(await get(`${s.url}/media_proxy/123`), 'no such attachment');
      notFound(await get(`${s.url}/media_proxy/not-an-id`), 'not an id');
      const local = await media.create({
        accountId: members.id['fay']!,
        type: 'image',
        contentType: 'image/png',
        fileName: null,
        fileSize: null,
        width: null,
        height: null,
        description: null,
        focusX: 0,
        focusY: 0,
        remoteUrl: null,
      });
      notFound(await get(`${s.url}/media_proxy/${local.id}`), 'a local upload');
      const unknown = await remotePost('public', `${origin.base}/unknown.bin`, { type: 'unknown' });
      notFound(await get(unknown.bare), 'an attachment of a kind we do not serve');
      assert.equal(origin.requests('/unknown.bin').length, 0);
    });
  });

  describe('what it refuses to pass on', () => {
    it('refuses HTML announced as an image, keeps nothing, and serves the image once the origin has it', async () => {
      origin.answers.set('/fake.png', file('image/png', Buffer.from('<!doctype html><script>alert(document.cookie)</script>')));
      const p = await remotePost('public', `${origin.base}/fake.png`);
      const files = await storedFiles();
      const r = await get(p.bare);
      refused(r, 'The remote file is not the image it was announced as');
      assert.ok(!r.body.toString().includes('<script>'));
      assert.equal(await storedFiles(), files, 'nothing kept');
      assert.equal((await media.byId(p.mediaId))!.fileName, null);
      const real = png(10, 10);
      origin.answers.set('/fake.png', file('image/png', real));
      refused(await get(p.bare), 'The remote file is not the image it was announced as');
      assert.equal(origin.requests('/fake.png').length, 1, 'a view soon after is answered from memory');
      await afterRetryTime();
      const again = await get(p.bare);
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, real);
      // A video announced, an image sent: refused as well.
      origin.answers.set('/clip.mp4', file('video/mp4', png(10, 10)));
      refused(
        await get((await remotePost('public', `${origin.base}/clip.mp4`, { type: 'video' })).bare),
        'The remote file is not the video it was announced as',
      );
    });

    it('refuses a file over the size cap, declared or streamed, and keeps nothing', async () => {
      const cap = 16 * MiB;
      const head = png(4000, 3000, 0);
      const chunk = Buffer.alloc(MiB);
      const oversized =
        (declare: boolean): Answer =>
        (res) => {
          res.writeHead(200, { 'Content-Type': 'image/png', ...(declare ? { 'Content-Length': String(cap + 1) } : {}) });
          let left = cap + 1 - head.length;
          res.write(head);
          const pump = () => {
            while (left > 0 && !res.destroyed) {
              const n = Math.min(left, chunk.length);
              left -= n;
              if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
            }
            res.end();
          };
          res.on('error', () => {}); // the proxy hangs up once it has seen enough
          pump();
        };
      origin.answers.set('/huge-declared.png', oversized(true));
      origin.answers.set('/huge-streamed.png', oversized(false));
      const files = await storedFiles();
      for (const name of ['huge-declared', 'huge-streamed']) {
        const p = await remotePost('public', `${origin.base}/${name}.png`);
        refused(await get(p.bare), 'The remote file is larger than 16 MiB');
        assert.equal((await media.byId(p.mediaId))!.fileName, null, name);
      }
      assert.equal(await storedFiles(), files, 'nothing kept');
    });

    it('refuses addresses the SSRF guard forbids (only loopback is allowed here) without connecting', async () => {
      for (const url of ['http://10.0.0.1/x.png', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00::1]/x.png', 'file:///etc/passwd']) {
        const p = await remotePost('public', url);
        refused(await get(p.bare), 'The remote address is not allowed');
      }
    });

    it('answers 502 for an origin error, from memory for a while, and fetches again after that', async () => {
      const p = await remotePost('public', `${origin.base}/flaky.png`);
      origin.answers.set('/flaky.png', (res) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom'));
      refused(await get(p.bare), 'The origin answered 500');
      origin.answers.delete('/flaky.png');
      const views = await Promise.all([get(p.bare), get(p.bare), get(p.bare)]);
      for (const r of views) refused(r, 'The origin answered 500');
      assert.equal(origin.requests('/flaky.png').length, 1, 'views soon after do not reach the origin');
      await afterRetryTime();
      refused(await get(p.bare), 'The origin answered 404');
      const data = png(5, 5);
      origin.answers.set('/flaky.png', file('image/png', data));
      await afterRetryTime();
      const ok = await get(p.bare);
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body, data);
      assert.equal(origin.requests('/flaky.png').length, 3);
    });
  });

  describe('previews of remote images', () => {
    /** The attachment as the API gives it to this reader. */
    const shown = async (statusId: string, token?: string): Promise<Json> =>
      (await api(s.url, token, 'GET', `/api/v1/statuses/${statusId}`)).body.media_attachments[0];

    it("makes a remote image's preview and blurhash once, when its file is kept, and serves it at /small", async () => {
      const data = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#c02040' } })
        .jpeg()
        .toBuffer();
      origin.answers.set('/photo.jpg', file('image/jpeg', data));
      const p = await remotePost('public', `${origin.base}/photo.jpg`);
      const before = await shown(p.statusId);
      assert.deepEqual([before.preview_url, before.blurhash], [p.bare, null], 'nothing to show before the file is kept');
      assert.equal((await get(p.bare)).status, 200);
      const after = await shown(p.statusId);
      assert.equal(after.url, p.bare);
      assert.equal(after.preview_url, `${p.bare}/small`);
      assert.deepEqual(after.meta.original, { width: 1600, height: 1200, size: '1600x1200', aspect: 1600 / 1200 });
      assert.deepEqual(after.meta.small, { width: 554, height: 415, size: '554x415', aspect: 554 / 415 });
      assert.match(after.blurhash, /^.{36}$/);
      const kept = (await media.byId(p.mediaId))!;
      for (let i = 0; i < 2; i++) {
        const r = await get(after.preview_url);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('content-type'), 'image/jpeg');
        const m = await sharp(r.body).metadata();
        assert.deepEqual([m.width, m.height], [554, 415]);
      }
      // Computed once: the same preview file and blurhash after more views, and the origin asked once.
      assert.equal((await get(p.bare)).status, 200);
      const again = (await media.byId(p.mediaId))!;
      assert.deepEqual([again.previewFileName, again.blurhash], [kept.previewFileName, kept.blurhash]);
      assert.equal(origin.requests('/photo.jpg').length, 1);
    });

    it("a first view at /small fetches the file once; a followers-only post's preview is signed like its file", async () => {
      const data = await sharp({ create: { width: 900, height: 300, channels: 3, background: '#2040c0' } })
        .png()
        .toBuffer();
      origin.answers.set('/wide.png', file('image/png', data));
      const p = await remotePost('private', `${origin.base}/wide.png`);
      notFound(await get(`${p.bare}/small`), 'anonymous');
      assert.equal(origin.requests('/wide.png').length, 0);
      const given = await shown(p.statusId, members.token['fay']);
      const first = await get(`${p.bare}/small?${new URL(given.url).searchParams}`);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('cache-control'), 'private, max-age=31536000, immutable');
      const m = await sharp(first.body).metadata();
      assert.deepEqual([m.format, m.width, m.height], ['jpeg', 831, 277]);
      const after = await shown(p.statusId, members.token['fay']);
      assert.match(after.preview_url, new RegExp(`^${p.bare}/small\\?sig=[\\w-]{32}$`));
      assert.equal((await get(after.preview_url)).status, 200);
      notFound(await get(`${p.bare}/small`), 'still not anonymous');
      assert.equal(origin.requests('/wide.png').length, 1);
    });
  });
});
