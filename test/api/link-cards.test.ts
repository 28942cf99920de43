// Link preview cards (issue 38), end to end: pages served by a loopback test host (allowed as FED_ENV allows it) are
// read in the background after a member posts a link; the card appears on the status, with its image through our
// proxy and its blurhash, and the author's stream is told by `status.update`. A URL is fetched once for every status
// linking it; private addresses (also reached through a redirect), non-HTML answers and statuses with media get no
// card; an oEmbed provider's video is read; masto.js and Mastodon.py read `card`.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { decode } from 'blurhash';
import { createRestAPIClient } from 'masto';
import sharp from 'sharp';
import { LeaseStore } from '../../src/store/leases.js';
import { TrendStore } from '../../src/store/trends.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { mastodonPy } from '../support/cli-clients.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { png, pngDeclaring, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

describe('link preview cards', () => {
  let s: TestServer;
  let m: LocalMembers;
  let host: http.Server;
  let origin: string;
  let photo: Buffer;
  const hits = new Map<string, number>();

  const page = (title: string, extra = '') => `<!doctype html><html lang="en-GB"><head><meta charset="utf-8">
    <title>Fallback &amp; title</title>
    <meta property="og:title" content="${title}">
    <meta property="og:description" content="A page &amp; its description">
    <meta property="og:image" content="/photo.jpg"><meta property="og:image:alt" content="A gradient">
    <meta property="og:site_name" content="Test Site">${extra}
    </head><body><p>Body text <meta property="og:title" content="not this"></p></body></html>`;

  before(async () => {
    photo = await sharp({ create: { width: 1200, height: 630, channels: 3, background: { r: 200, g: 40, b: 90 } } })
      .composite([{ input: png(300, 300), left: 100, top: 100 }])
      .jpeg()
      .toBuffer();
    host = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      if (path.startsWith('/article')) html(page(`Article ${path.slice(8)}`));
      else if (path === '/photo.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
      else if (path === '/plain') res.writeHead(200, { 'content-type': 'text/plain' }).end('<meta property="og:title" content="plain">');
      else if (path === '/huge') {
        // Past the 1 MiB cap, streamed without a length: the client stops reading at the cap.
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write(page('Huge'));
        res.end(Buffer.alloc(2 * 1024 * 1024, 0x20));
      } else if (path === '/bomb') html(page('Bomb').replace('/photo.jpg', '/bomb.png'));
      else if (path === '/bomb.png') res.writeHead(200, { 'content-type': 'image/png' }).end(pngDeclaring(100_000, 100_000));
      else if (path === '/gone') res.writeHead(410, { 'content-type': 'text/html' }).end(page('Gone'));
      else if (path === '/to-private') res.writeHead(302, { location: 'http://10.0.0.1/secret' }).end();
      else if (path === '/video') html(page('Video page', `<link rel="alternate" type="application/json+oembed" href="${origin}/oembed.json?url=x">`));
      else if (path === '/oembed.json')
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            version: '1.0',
            type: 'video',
            title: 'A video',
            author_name: 'Vid Author',
            author_url: 'https://video.example/@author',
            provider_name: 'VideoHost',
            provider_url: 'https://video.example/',
            width: 560,
            height: 315,
            html: '<iframe src="https://video.example/embed/1" width="560" height="315" onload="alert(1)"></iframe><script>alert(2)</script>',
            thumbnail_url: `${origin}/photo.jpg`,
          }),
        );
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    s = await startTestServer(FED_ENV);
    m = await createMembers(s, ['ada', 'bo', 'cy', 'di', 'ed', 'boss'], { boss: 'admin' });
  });
  after(async () => {
    await s?.stop();
    await new Promise((r) => host?.close(r));
  });

  const post = async (who: string, status: string, extra: Json = {}) => {
    const r = await api(s.url, m.token[who], 'POST', '/api/v1/statuses', { status, ...extra });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const show = async (id: string) => (await api(s.url, m.token['ada'], 'GET', `/api/v1/statuses/${id}`)).body;
  /** Until the status's card job is done (found or not). */
  const settled = async (id: string) =>
    eventually(async () => assert.equal((await s.app.db.pool.query('SELECT 1 FROM card_jobs WHERE status_id = $1', [id])).rowCount, 0));

  it('reads a page with OpenGraph tags into a card, its image proxied with a blurhash, and streams status.update', async () => {
    const ws: WsClient = await openWs(s.url, m.token['ada']);
    try {
      ws.send({ type: 'subscribe', stream: 'user' });
      await subscribed(s, m.id['ada']!, 'user');
      const st = await post('ada', `Read this: ${origin}/article1`);
      // Posting never waits for the card.
      assert.equal(st.card, null);
      let card: Json;
      await eventually(async () => {
        card = (await show(st.id)).card;
        assert.ok(card);
      });
      assert.equal(card.url, `${origin}/article1`);
      assert.equal(card.title, 'Article 1');
      assert.equal(card.description, 'A page & its description');
      assert.equal(card.type, 'link');
      assert.equal(card.provider_name, 'Test Site');
      assert.equal(card.image_description, 'A gradient');
      assert.equal(card.language, 'en');
      assert.equal(card.html, '');
      assert.deepEqual(card.authors, []);
      for (const k of ['author_name', 'author_url', 'provider_url', 'embed_url']) assert.equal(typeof card[k], 'string', k);
      // Mastodon's 400×400 box: 1200×630 becomes 400×210.
      assert.deepEqual([card.width, card.height], [400, 210]);
      assert.ok(card.image.startsWith(`${s.url}/media_proxy/cards/`), card.image);
      const img = await fetch(card.image);
      assert.equal(img.status, 200);
      assert.equal(img.headers.get('content-type'), 'image/jpeg');
      const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
      assert.deepEqual([meta.width, meta.height, meta.exif], [400, 210, undefined]);
      assert.match(card.blurhash, /^[0-9A-Za-z#$%*+,-.:;=?@[\]^_{|}~]{36}$/, 'four by four components');
      const pixels = decode(card.blurhash, 8, 8);
      assert.equal(pixels.length, 8 * 8 * 4);
      assert.ok(pixels[0]! > pixels[2]!, 'the decoded placeholder is reddish, as the photo');
      await eventually(() => {
        const upd = framesOf(ws.frames, 'status.update').find((f) => f.payload?.id === st.id);
        assert.ok(upd, 'status.update on the user stream');
        assert.equal(upd.payload.card.title, 'Article 1');
      });
    } finally {
      ws.close();
    }
  });

  it('fetches a URL once a day, its card shared by every status linking it', async () => {
    const a = await post('ada', `${origin}/article2 first`);
    await eventually(async () => assert.ok((await show(a.id)).card));
    const b = await post('bo', `again: ${origin}/article2`);
    await eventually(async () => assert.equal((await show(b.id)).card?.title, 'Article 2'));
    assert.equal(hits.get('/article2'), 1);
    // Two at once, in one round, are one fetch too.
    const [c, d] = await Promise.all([post('ada', `${origin}/article3`), post('bo', `${origin}/article3`)]);
    await eventually(async () => assert.ok((await show(c.id)).card && (await show(d.id)).card));
    assert.equal(hits.get('/article3'), 1);
    const cards = await s.app.db.pool.query('SELECT count(*)::int AS n FROM preview_cards WHERE url = $1', [`${origin}/article3`]);
    assert.equal(cards.rows[0].n, 1);
  });

  it('makes no card of a private address, a redirect to one, an answer that is not HTML, too large or not 200', async () => {
    const direct = await post('ada', 'inside http://10.0.0.1/admin');
    const redirected = await post('ada', `${origin}/to-private`);
    const plain = await post('ada', `${origin}/plain`);
    const huge = await post('ada', `${origin}/huge`);
    const gone = await post('ada', `${origin}/gone`);
    for (const st of [direct, redirected, plain, huge, gone]) await settled(st.id);
    for (const st of [direct, redirected, plain, huge, gone]) assert.equal((await show(st.id)).card, null);
    assert.equal(hits.get('/to-private'), 1);
    const errors = await s.app.db.pool.query('SELECT url, error FROM preview_cards WHERE url = ANY($1) ORDER BY url', [
      ['http://10.0.0.1/admin', `${origin}/to-private`, `${origin}/plain`, `${origin}/huge`, `${origin}/gone`],
    ]);
    assert.deepEqual(
      errors.rows.map((r) => [r.url.replace(origin, ''), r.error]),
      [
        ['http://10.0.0.1/admin', 'forbidden_address'],
        ['/gone', 'status_410'],
        ['/huge', 'too_large'],
        ['/plain', 'not_html'],
        ['/to-private', 'forbidden_address'],
      ],
    );
  });

  it('keeps a card without its image when the image is a pixel bomb', async () => {
    const st = await post('ada', `${origin}/bomb`);
    let card: Json;
    await eventually(async () => {
      card = (await show(st.id)).card;
      assert.ok(card);
    });
    assert.equal(card.title, 'Bomb');
    assert.deepEqual([card.image, card.blurhash, card.width, card.height], [null, null, 0, 0]);
    assert.equal(hits.get('/bomb.png'), 1);
  });

  it('gives no card to a status with media or a poll, or to a link to this server, as Mastodon', async () => {
    const up = await upload(s.url, m.token['ada'], png(20, 20));
    assert.equal(up.status, 200);
    const st = await post('ada', `${origin}/article4 with a picture`, { media_ids: [up.body.id] });
    await settled(st.id);
    assert.equal((await show(st.id)).card, null);
    assert.equal(hits.get('/article4'), undefined);
    const polled = await post('ada', `${origin}/article12 which?`, { poll: { options: ['this', 'that'], expires_in: 3600 } });
    await settled(polled.id);
    assert.equal((await show(polled.id)).card, null);
    assert.equal(hits.get('/article12'), undefined);
    // Nor to a link to this server (Mastodon's local_url?): our own pages are not fetched as cards.
    const local = await post('ada', `see ${s.url}/about`);
    await settled(local.id);
    assert.equal((await s.app.db.pool.query('SELECT 1 FROM links WHERE url = $1', [`${s.url}/about`])).rowCount, 1, 'it is the link of the post');
    assert.equal((await show(local.id)).card, null);
    assert.equal((await s.app.db.pool.query('SELECT 1 FROM preview_cards WHERE url = $1', [`${s.url}/about`])).rowCount, 0);
  });

  it("reads an oEmbed provider's video: its iframe rebuilt, nothing else kept", async () => {
    const st = await post('ada', `${origin}/video`);
    let card: Json;
    await eventually(async () => {
      card = (await show(st.id)).card;
      assert.ok(card);
    });
    assert.equal(card.type, 'video');
    assert.equal(card.title, 'A video');
    assert.equal(card.author_name, 'Vid Author');
    assert.equal(card.author_url, 'https://video.example/@author');
    assert.equal(card.provider_name, 'VideoHost');
    assert.deepEqual([card.width, card.height], [560, 315]);
    assert.equal(
      card.html,
      '<iframe src="https://video.example/embed/1" width="560" height="315" frameborder="0" allowfullscreen="true" sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms"></iframe>',
    );
    assert.ok(card.image.startsWith(`${s.url}/media_proxy/cards/`));
  });

  it('is fetched by a supervised actor, which takes a job whose lease ran out (its node died mid-fetch)', async () => {
    const fetcher = s.app.supervisor.which('card-fetcher');
    assert.ok(fetcher);
    await fetcher.stop(1_000);
    await eventually(() => assert.notEqual(s.app.supervisor.which('card-fetcher'), fetcher));
    const expired = await post('ada', 'no link here');
    const held = await post('ada', 'nor here');
    // As a dead node left them: claimed, one lease run out, the other still running. The insert's NOTIFY wakes the fetchers.
    await s.app.db.pool.query(
      `INSERT INTO card_jobs (status_id, url, lease_owner, lease_until)
       VALUES ($1, $2, 'gone-node', now() - interval '1 second'), ($3, $4, 'gone-node', now() + interval '1 hour')`,
      [expired.id, `${origin}/article7`, held.id, `${origin}/article8`],
    );
    await eventually(async () => assert.equal((await show(expired.id)).card?.title, 'Article 7'));
    assert.equal((await show(held.id)).card, null);
    // The node watch gives back the gone node's lease (as releaseExcept does for nodes not among the live ones).
    // (This node's own leases are given back too, which costs it nothing here but a new claim.)
    assert.equal((await new LeaseStore(s.app.db).releaseExcept([])).cards, 1);
    await eventually(async () => assert.equal((await show(held.id)).card?.title, 'Article 8'));
  });

  it('shows the same card in the trending links, with its history', async () => {
    const boss = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    assert.equal((await api(s.url, boss, 'PUT', '/api/v1/admin/trends/settings', { review_required: false })).status, 200);
    const posters = ['ada', 'bo', 'cy', 'di', 'ed'];
    for (const who of posters)
      assert.equal((await api(s.url, m.token[who], 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: true })).status, 200);
    const sts = [];
    for (const who of posters) sts.push(await post(who, `trending: ${origin}/article6`));
    for (const st of sts) await settled(st.id);
    await new TrendStore(s.app.db).refresh(new Date());
    const links = (await api(s.url, undefined, 'GET', '/api/v1/trends/links')).body;
    const link = links.find((l: Json) => l.url === `${origin}/article6`);
    assert.ok(link, JSON.stringify(links));
    assert.equal(link.title, 'Article 6');
    assert.equal(link.description, 'A page & its description');
    assert.equal(link.provider_name, 'Test Site');
    assert.ok(link.image.startsWith(`${s.url}/media_proxy/cards/`));
    assert.equal(typeof link.blurhash, 'string');
    assert.equal(link.history.length, 7);
    assert.equal(link.history[0].accounts, '5');
    assert.equal(hits.get('/article6'), 1);
  });

  it('follows an edit: a new link gets its card, no link none', async () => {
    const st = await post('ada', `${origin}/article10`);
    await eventually(async () => assert.equal((await show(st.id)).card?.title, 'Article 10'));
    const edit = (status: string) => api(s.url, m.token['ada'], 'PUT', `/api/v1/statuses/${st.id}`, { status });
    assert.equal((await edit(`now ${origin}/article11`)).status, 200);
    await eventually(async () => assert.equal((await show(st.id)).card?.title, 'Article 11'));
    assert.equal((await edit('no link any more')).status, 200);
    assert.equal((await show(st.id)).card, null);
    assert.equal((await edit(`back to ${origin}/article10`)).status, 200);
    await eventually(async () => assert.equal((await show(st.id)).card?.title, 'Article 10'));
    assert.equal(hits.get('/article10'), 1, 'the kept card, not fetched again');
  });

  it('gives a remote post its card the same way, once its Create is delivered', async () => {
    const AS = 'https://www.w3.org/ns/activitystreams';
    const peer: FakePeer = await startFakeActorPeer();
    try {
      await peer.addActor('rem');
      const rem = peer.actor('rem');
      // bo follows the remote actor, so its public posts are kept here.
      const found = (await api(s.url, m.token['bo'], 'GET', `/api/v2/search?q=${encodeURIComponent(`rem@${peer.host}`)}&resolve=true&type=accounts`)).body;
      const remId = found.accounts[0].id;
      assert.equal((await api(s.url, m.token['bo'], 'POST', `/api/v1/accounts/${remId}/follow`)).status, 200);
      let follow: Json;
      await eventually(() => {
        follow = peer.posts().find((p) => p.body?.['type'] === 'Follow')?.body;
        assert.ok(follow);
      });
      const accept = { '@context': AS, id: peer.newId('accepts'), type: 'Accept', actor: rem.id, object: follow };
      assert.equal((await peer.signedPost(`${s.url}/inbox`, accept, { actor: 'rem' })).status, 202);
      const note = {
        id: peer.newId('notes'),
        type: 'Note',
        attributedTo: rem.id,
        to: [`${AS}#Public`],
        cc: [],
        content: `<p>remote: <a href="https://${peer.host}/tags/x" class="mention hashtag" rel="tag">#<span>x</span></a> <a href="${origin}/article9">${origin}/article9</a></p>`,
        published: new Date().toISOString(),
      };
      const create = { '@context': AS, id: `${note.id}/activity`, type: 'Create', actor: rem.id, to: note.to, cc: [], object: note };
      assert.equal((await peer.signedPost(`${s.url}/inbox`, create, { actor: 'rem' })).status, 202);
      let id = '';
      await eventually(async () => {
        const r = await s.app.db.pool.query('SELECT id::text AS id FROM statuses WHERE uri = $1', [note.id]);
        assert.equal(r.rowCount, 1);
        id = r.rows[0].id;
      });
      await eventually(async () => assert.equal((await show(id)).card?.title, 'Article 9'));
    } finally {
      await peer.stop();
    }
  });

  it('is read by masto.js and Mastodon.py', async () => {
    const st = await post('ada', `${origin}/article5`);
    await eventually(async () => assert.ok((await show(st.id)).card));
    const masto = createRestAPIClient({ url: s.url, accessToken: m.token['ada']! });
    const got = await masto.v1.statuses.$select(st.id).fetch();
    assert.equal(got.card?.title, 'Article 5');
    assert.equal(got.card?.type, 'link');
    assert.ok(got.card?.image?.startsWith(s.url));
    const out = (await mastodonPy(
      s.url,
      'ada',
      'member-password-1',
      `card = m.status(${JSON.stringify(st.id)})['card']\nout['title'] = card['title']\nout['blurhash'] = card['blurhash']`,
    )) as Json;
    assert.equal(out.title, 'Article 5');
    assert.equal(typeof out.blurhash, 'string');
  });
});
