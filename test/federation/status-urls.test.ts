// The URLs we give out for statuses and tags, over plain HTTP: one URL answers the page or the ActivityStreams
// document by Accept (the Note's very bytes, Vary: Accept), a Fedify server resolves a pasted status URL to its Note,
// a tag's URL is Mastodon's collection of our recent public posts with it, and oEmbed answers for public posts only,
// whatever `url` it is given (a property test: never a 500).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFedifyPeer, type FedifyPeer } from '../support/fedify-peer.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const AS2 = 'application/activity+json';
const LD = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

describe('status and tag URLs', () => {
  let s: TestServer;
  let m: LocalMembers;
  let peer: FedifyPeer;
  let pub: Json;
  let unlisted: Json;
  let priv: Json;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const post = async (who: string, status: string, visibility: string) => {
    const r = await call(m.token[who], 'POST', '/api/v1/statuses', { status, visibility });
    assert.equal(r.status, 200, r.text);
    return r.body as Json;
  };
  const get = (url: string, accept?: string) => fetch(url, { headers: accept ? { Accept: accept } : {}, redirect: 'manual' });

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFedifyPeer()]);
    m = await createMembers(s, ['ann', 'bob']);
    pub = await post('ann', 'hello #StoaUrls world', 'public');
    unlisted = await post('ann', 'quiet #StoaUrls note', 'unlisted');
    priv = await post('ann', 'friends only #StoaUrls', 'private');
  });
  after(async () => {
    await s?.stop();
    await peer?.stop();
  });

  it("a status's url is its page, or the Note itself by Accept (the same bytes as its id's), Vary: Accept", async () => {
    assert.equal(pub.url, `${s.url}/@ann/${pub.id}`);
    const byId = await get(pub.uri, AS2);
    assert.equal(byId.status, 200);
    const note = await byId.text();
    for (const accept of [AS2, LD]) {
      const r = await get(pub.url, accept);
      assert.equal(r.status, 200, accept);
      assert.match(r.headers.get('content-type') ?? '', /^application\/activity\+json/);
      assert.equal(r.headers.get('vary'), 'Accept');
      assert.equal(await r.text(), note, 'the very bytes of the Note at its id');
    }
    assert.equal(JSON.parse(note).id, pub.uri);
    assert.equal(JSON.parse(note).url, pub.url);

    const page = await get(pub.url, 'text/html,application/xhtml+xml');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('vary'), 'Accept');
    const markup = await page.text();
    assert.ok(markup.includes('hello #StoaUrls world'));
    assert.ok(markup.includes(`<link rel="alternate" type="application/activity+json" href="${pub.uri}">`));
    assert.ok(markup.includes(`<meta property="og:url" content="${pub.url}">`));
    assert.equal(page.headers.get('link'), `<${pub.uri}>; rel="alternate"; type="application/activity+json"`);
    assert.ok(markup.includes(`type="application/json+oembed" href="${s.url}/api/oembed?format=json&amp;url=${encodeURIComponent(pub.url)}"`));
  });

  it('followers-only and direct posts: no Note for anyone unsigned, no page for anonymous visitors', async () => {
    const direct = await post('ann', '@bob a secret', 'direct');
    for (const x of [priv, direct]) {
      assert.equal((await get(x.url, AS2)).status, 404);
      assert.equal((await get(x.uri, AS2)).status, 404);
      const page = await get(x.url);
      assert.equal(page.status, 404);
      assert.ok(!(await page.text()).includes('secret'));
    }
    // Unlisted is shown to anyone, as public is.
    assert.equal((await get(unlisted.url)).status, 200);
    assert.equal((await get(unlisted.url, AS2)).status, 200);
  });

  it('only our own posts under their own author: anything else is a 404, and /@name/load_older keeps its route', async () => {
    for (const path of [`/@bob/${pub.id}`, `/@ann@${new URL(s.url).host}/${pub.id}`, '/@ann/123456789', '/@ann/not-an-id', '/@ann/load_older', '/@nobody/1']) {
      assert.equal((await get(s.url + path)).status, 404, path);
      assert.equal((await get(s.url + path, AS2)).status, 404, `${path} as AS2`);
    }
    // The remote profile's form still reaches its route: an anonymous visitor is sent to sign in.
    const form = await fetch(`${s.url}/@someone@example.test/load_older`, { method: 'POST', redirect: 'manual', body: new URLSearchParams() });
    assert.equal(form.status, 302);
    assert.match(form.headers.get('location') ?? '', /\/auth\/sign_in/);
    // A boost's URL opens the boosted post.
    const boost = await call(m.token['bob'], 'POST', `/api/v1/statuses/${pub.id}/reblog`);
    assert.equal(boost.status, 200, boost.text);
    const r = await get(`${s.url}/@bob/${boost.body.id}`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), `/@ann/${pub.id}`);
  });

  it('a Fedify server resolves the status URL to its Note', async () => {
    const found = await peer.lookupNote(pub.url);
    assert.ok(found, 'Fedify found a Note');
    assert.equal(found.id, pub.uri);
    assert.equal(found.attributedTo, `${s.url}/users/ann`);
    assert.match(found.content ?? '', /hello/);
    assert.equal(await peer.lookupNote(priv.url), null);
  });

  it("a tag's url is an OrderedCollection of our public posts with it by Accept, and a page otherwise", async () => {
    const tag = (await call(m.token['ann'], 'GET', `/api/v1/statuses/${pub.id}`)).body.tags[0];
    assert.equal(tag.url, `${s.url}/tags/StoaUrls`);
    const r = await get(tag.url, AS2);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('vary'), 'Accept');
    const doc = (await r.json()) as Json;
    assert.equal(doc.type, 'OrderedCollection');
    assert.equal(doc.id, tag.url);
    assert.deepEqual(doc.orderedItems, [pub.uri], 'public posts only: not the unlisted or followers-only ones');
    assert.equal(doc.totalItems, 1);
    // Older ones by max_id.
    const older = (await (await get(`${tag.url}?max_id=${pub.id}`, AS2)).json()) as Json;
    assert.deepEqual(older.orderedItems, []);
    // A tag nobody used, or no tag at all: empty, never an error.
    for (const name of ['neverused', '%E2%80%AEbad', 'a'.repeat(150)]) {
      const c = (await (await get(`${s.url}/tags/${name}`, AS2)).json()) as Json;
      assert.equal(c.totalItems, 0, name);
      assert.deepEqual(c.orderedItems, []);
      const page = await get(`${s.url}/tags/${name}`);
      assert.equal(page.status, 200, name);
      assert.match(await page.text(), /No public posts with this tag/);
    }
    const page = await (await get(tag.url)).text();
    assert.ok(page.includes(`id="post-${pub.id}"`));
    assert.ok(page.includes(`<a class="permalink" href="/@ann/${pub.id}">`));
    assert.ok(!page.includes(`id="post-${unlisted.id}"`));
    assert.ok(page.includes('<meta property="og:title" content="#StoaUrls">'));
    // Any case names the same tag.
    assert.deepEqual(((await (await get(`${s.url}/tags/stoaurls`, AS2)).json()) as Json).orderedItems, [pub.uri]);
  });

  it("oEmbed: Mastodon's shape for a public or unlisted post, 404 for anything else", async () => {
    const r = await call(undefined, 'GET', `/api/oembed?url=${encodeURIComponent(pub.url)}`);
    assert.equal(r.status, 200, r.text);
    assert.match(r.type ?? '', /^application\/json/);
    const host = new URL(s.url).host;
    assert.deepEqual(
      { ...r.body, html: undefined },
      {
        type: 'rich',
        version: '1.0',
        title: 'New status by ann',
        author_name: 'ann',
        author_url: `${s.url}/@ann`,
        provider_name: host,
        provider_url: `${s.url}/`,
        cache_age: 86400,
        html: undefined,
        width: 400,
        height: null,
      },
    );
    assert.ok((r.body.html as string).startsWith('<blockquote class="mastodon-embed"'));
    assert.ok((r.body.html as string).includes(`href="${pub.url}"`));
    assert.ok((r.body.html as string).includes(`Post by @ann@${host}`));
    // By its id too, with the asked size; unlisted is embeddable (Mastodon refuses only hidden posts).
    const sized = await call(undefined, 'GET', `/api/oembed?url=${encodeURIComponent(pub.uri)}&maxwidth=250&maxheight=300`);
    assert.equal(sized.status, 200, sized.text);
    assert.equal(sized.body.width, 250);
    assert.equal(sized.body.height, 300);
    assert.equal((await call(undefined, 'GET', `/api/oembed?url=${encodeURIComponent(unlisted.url)}`)).status, 200);
    for (const url of [priv.url, `${s.url}/@bob/${pub.id}`, 'https://example.com/@ann/1', `${s.url}/tags/x`]) {
      const no = await call(m.token['ann'], 'GET', `/api/oembed?url=${encodeURIComponent(url)}`);
      assert.equal(no.status, 404, url);
      assert.deepEqual(no.body, { error: 'Record not found' });
    }
    assert.equal((await call(undefined, 'GET', '/api/oembed')).status, 404);
    assert.equal((await call(undefined, 'GET', '/api/oembed?url[]=x')).status, 404);
  });

  it('oEmbed takes any url without a 500 (property)', async () => {
    const near = fc
      .tuple(fc.constantFrom(pub.url, pub.uri, s.url, 'http://127.0.0.1', ''), fc.string({ maxLength: 40 }), fc.constantFrom('', '/', '?a=1', '#x', '%', '%ZZ'))
      .map(([a, b, c]) => a + b + c);
    const anything = fc.oneof(near, fc.string({ maxLength: 200 }), fc.webUrl(), fc.string({ unit: 'grapheme', maxLength: 60 }));
    await fc.assert(
      fc.asyncProperty(anything, async (url) => {
        const r = await call(undefined, 'GET', `/api/oembed?url=${encodeURIComponent(url)}`);
        assert.ok(r.status === 200 || r.status === 404, `${r.status} for ${JSON.stringify(url)}`);
        assert.equal(typeof r.body, 'object');
        if (r.status === 200) assert.equal(r.body.type, 'rich');
      }),
      { seed: 36, numRuns: 150 },
    );
  });
});
