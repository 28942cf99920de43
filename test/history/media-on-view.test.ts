// Issue 17, media fetched when viewed: importing a remote actor's history stores its attachments as rows with their
// remote addresses and downloads nothing; an image is fetched through the media proxy when first viewed and kept; a
// video is fetched when played, a small one kept and served by range from then on, one larger than
// MEDIA_PROXY_CACHE_MAX_BYTES passed through to its origin range by range and never kept. And the member preference
// `media:origin_fallback` is off until the member turns it on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MediaStore } from '../../src/store/media.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startHistoryOrigin, type HistoryOrigin, type OriginRoute } from '../support/history-origin.js';
import { ftyp, png } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const CACHE_MAX = 64 * 1024;

/** A file the origin serves whole, or the part a Range asks for (206), as real servers do. */
function ranged(bytes: Buffer, contentType: string): OriginRoute {
  return (req) => {
    const m = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ''));
    if (!m) return { body: bytes, contentType };
    const start = Number(m[1]);
    const end = m[2] ? Math.min(Number(m[2]), bytes.length - 1) : bytes.length - 1;
    return { status: 206, body: bytes.subarray(start, end + 1), contentType, headers: { 'content-range': `bytes ${start}-${end}/${bytes.length}` } };
  };
}

describe('history media, fetched when viewed', () => {
  let s: TestServer;
  let origin: HistoryOrigin;
  let m: LocalMembers;
  const picture = png(4, 3);
  const smallVideo = ftyp('isom', ['isom', 'mp41'], 20_000);
  const bigVideo = ftyp('isom', ['isom', 'mp41'], 300_000);
  for (let i = 0; i < bigVideo.length; i++) if (i >= 64) bigVideo[i] = i % 251;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const mediaRequests = () => origin.requestLog.filter((p) => p.startsWith('/media/'));
  const proxied = async (url: string, range?: string) => {
    const res = await fetch(url, { headers: range ? { range } : {} });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };

  /** Opens the remote actor and waits until all its history is here; its posts, newest first. */
  const importAll = async (actor: string): Promise<Json[]> => {
    const found = await call(m.token['ann'], 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actor)}`);
    assert.equal(found.status, 200, found.text);
    const id = found.body.accounts[0].id as string;
    const statuses = async () => (await call(m.token['ann'], 'GET', `/api/v1/accounts/${id}/statuses?limit=40`)).body as Json[];
    await statuses(); // the first read asks for the initial fetch
    await eventually(async () => {
      const h = await call(m.token['ann'], 'GET', `/api/v1/accounts/${id}/remote_history`);
      assert.ok(['partial', 'complete'].includes(h.body.state), h.text);
    });
    const h = await call(m.token['ann'], 'GET', `/api/v1/accounts/${id}/remote_history`);
    if (h.body.state === 'partial') {
      assert.equal((await call(m.token['ann'], 'POST', `/api/v1/accounts/${id}/remote_history/fetch`)).status, 202);
      await eventually(async () => assert.equal((await call(m.token['ann'], 'GET', `/api/v1/accounts/${id}/remote_history`)).body.state, 'complete'));
    }
    return statuses();
  };

  before(async () => {
    [s, origin] = await Promise.all([
      startTestServer({ ...FED_ENV, MEDIA_PROXY_RETRY_MS: '0', MEDIA_PROXY_CACHE_MAX_BYTES: String(CACHE_MAX) }),
      startHistoryOrigin(),
    ]);
    m = await createMembers(s, ['ann', 'boss'], { boss: 'admin' });
    const operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    assert.equal((await call(operator, 'PUT', '/api/v1/admin/remote_history', { enabled: true })).status, 200);
  });
  after(async () => {
    await s?.stop();
    await origin?.close();
  });

  it('importing history downloads no media; an image is fetched through the proxy when first viewed, then kept', async () => {
    origin.serve('/media/3.png', { body: picture, contentType: 'image/png' });
    const actor = origin.actor('olga');
    origin.load('basic', { name: 'olga' });
    const posts = await importAll(actor);
    assert.equal(posts.length, 5);
    assert.deepEqual(mediaRequests(), [], 'the origin saw no media request during import');

    const a = posts.find((p) => p.media_attachments.length)!.media_attachments[0];
    assert.equal(a.remote_url, `${origin.url}/media/3.png`);
    assert.equal(a.url, `${s.url}/media_proxy/${a.id}`, 'the attachment is loaded through our proxy');
    assert.equal((await new MediaStore(s.app.db).byId(a.id))?.fileName, null, 'no file is kept before it is viewed');

    const first = await proxied(a.url);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('content-type'), 'image/png');
    assert.deepEqual(first.body, picture);
    assert.deepEqual(mediaRequests(), ['/media/3.png'], 'fetched on first view');
    assert.ok(origin.signed('/media/3.png'), 'signed as the instance actor');

    const again = await proxied(a.url);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, picture);
    assert.equal(origin.requests('/media/3.png'), 1, 'served from our copy from then on');
    assert.ok((await new MediaStore(s.app.db).byId(a.id))?.fileName, 'kept');
  });

  it('a video is fetched when played: a small one kept and served by range, a larger one passed through and never kept', async () => {
    const actor = origin.actor('vic');
    const note = {
      id: `${actor}/statuses/1`,
      type: 'Note',
      attributedTo: actor,
      to: [PUBLIC],
      content: '<p>two videos</p>',
      published: '2024-02-02T10:00:00Z',
      attachment: [
        { type: 'Document', mediaType: 'video/mp4', url: `${origin.url}/media/small.mp4`, name: 'small' },
        { type: 'Document', mediaType: 'video/mp4', url: `${origin.url}/media/big.mp4`, name: 'big' },
        { type: 'Document', mediaType: 'video/mp4', url: `${origin.url}/media/whole.mp4`, name: 'whole only' },
      ],
    };
    origin.serve('/users/vic/outbox', { json: { id: `${actor}/outbox`, type: 'OrderedCollection', totalItems: 1, first: `${actor}/outbox?page=1` } });
    origin.serve('/users/vic/outbox?page=1', {
      json: {
        id: `${actor}/outbox?page=1`,
        type: 'OrderedCollectionPage',
        partOf: `${actor}/outbox`,
        orderedItems: [{ id: `${note.id}/activity`, type: 'Create', actor, published: note.published, to: [PUBLIC], object: note }],
      },
    });
    origin.serve('/media/small.mp4', ranged(smallVideo, 'video/mp4'));
    origin.serve('/media/big.mp4', ranged(bigVideo, 'video/mp4'));
    origin.serve('/media/whole.mp4', { body: bigVideo, contentType: 'video/mp4' }); // an origin that ignores Range
    const before = mediaRequests().length;
    const [post] = await importAll(actor);
    assert.equal(mediaRequests().length, before, 'the origin saw no media request during import');
    const [small, big, whole] = post.media_attachments;
    assert.equal(small.type, 'video');

    // The small one: fetched whole once, kept, and every range served from our copy.
    const head = await proxied(small.url, 'bytes=0-99');
    assert.equal(head.status, 206);
    assert.equal(head.headers.get('content-range'), `bytes 0-99/${smallVideo.length}`);
    assert.deepEqual(head.body, smallVideo.subarray(0, 100));
    const tail = await proxied(small.url, 'bytes=19000-');
    assert.equal(tail.status, 206);
    assert.deepEqual(tail.body, smallVideo.subarray(19000));
    assert.equal(origin.requests('/media/small.mp4'), 1);
    assert.ok((await new MediaStore(s.app.db).byId(small.id))?.fileName, 'kept');

    // The big one: the player's ranges go to the origin, each answered with the origin's part.
    const part = await proxied(big.url, 'bytes=0-1023');
    assert.equal(part.status, 206, part.body.toString());
    assert.equal(part.headers.get('content-type'), 'video/mp4');
    assert.equal(part.headers.get('content-range'), `bytes 0-1023/${bigVideo.length}`);
    assert.deepEqual(part.body, bigVideo.subarray(0, 1024));
    assert.equal(origin.headers('/media/big.mp4')?.range, 'bytes=0-1023', 'the range is passed through');
    const later = await proxied(big.url, 'bytes=200000-200099');
    assert.equal(later.status, 206);
    assert.equal(later.headers.get('content-range'), `bytes 200000-200099/${bigVideo.length}`);
    assert.deepEqual(later.body, bigVideo.subarray(200000, 200100));
    // A player asking for all of it gets at most the cap's worth, and asks again for the rest.
    const open = await proxied(big.url, 'bytes=0-');
    assert.equal(open.status, 206);
    assert.equal(open.headers.get('content-range'), `bytes 0-${CACHE_MAX - 1}/${bigVideo.length}`);
    assert.equal(open.body.length, CACHE_MAX);
    assert.equal((await new MediaStore(s.app.db).byId(big.id))?.fileName, null, 'nothing kept beyond the cap');

    // An origin that answers a range with the whole file: refused (502), nothing kept.
    const refused = await proxied(whole.url, 'bytes=0-1023');
    assert.equal(refused.status, 502);
    assert.equal(JSON.parse(refused.body.toString()).error_description, 'The origin does not send parts of the file');
    assert.equal((await new MediaStore(s.app.db).byId(whole.id))?.fileName, null);
  });

  it('media:origin_fallback is in the preferences, off by default; its settings page is for signed-in members', async () => {
    const r = await call(m.token['ann'], 'GET', '/api/v1/preferences');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body['media:origin_fallback'], false);
    const page = await fetch(`${s.url}/settings/preferences`, { redirect: 'manual' });
    assert.equal(page.status, 302);
    assert.equal(page.headers.get('location'), '/auth/sign_in?return_to=%2Fsettings%2Fpreferences');
  });
});
