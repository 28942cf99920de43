// A member's featured hashtags over ActivityPub, as Mastodon publishes them: the actor's `featuredTags` (a term of
// Mastodon's `toot:` namespace) names /users/<name>/collections/tags, an unordered Collection of Hashtag objects
// ({type, href: the member's posts with the tag, name: "#tag"}), the same shape as Mastodon's own actor documents
// (test/fixtures/actors/mastodon.json). Featuring and unfeaturing is sent to the member's followers as Mastodon's Add
// and Remove of the Hashtag to that collection.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AP = { Accept: 'application/activity+json' };

describe('featured hashtags over ActivityPub', () => {
  let s: TestServer;
  let m: LocalMembers;
  let peer: FakePeer;
  const get = async (path: string): Promise<{ status: number; body: Json; type: string | null }> => {
    const r = await fetch(`${s.url}${path}`, { headers: AP });
    return { status: r.status, body: r.status === 200 ? await r.json() : null, type: r.headers.get('content-type') };
  };

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    m = await createMembers(s, ['ann', 'bob']);
    assert.equal((await api(s.url, m.token['ann'], 'POST', '/api/v1/statuses', { status: 'in bloom #Garden' })).status, 200);
    for (const name of ['Garden', 'books']) assert.equal((await api(s.url, m.token['ann'], 'POST', '/api/v1/featured_tags', { name })).status, 200);
  });
  after(() => Promise.all([s?.stop(), peer?.stop()]));

  it("names the collection in the actor document, with Mastodon's context term", async () => {
    const actor = (await get('/users/ann')).body;
    assert.equal(actor.featuredTags, `${s.url}/users/ann/collections/tags`);
    const terms = actor['@context'].find((c: Json) => typeof c === 'object');
    assert.deepEqual(terms.featuredTags, { '@id': 'toot:featuredTags', '@type': '@id' });
    assert.equal(terms.toot, 'http://joinmastodon.org/ns#');
    // Mastodon's own actor documents carry the same term and property.
    const mastodon = JSON.parse(await readFile(new URL('../../../test/fixtures/actors/mastodon.json', import.meta.url), 'utf8'));
    const theirs = mastodon['@context'].find((c: Json) => typeof c === 'object');
    assert.deepEqual(theirs.featuredTags, terms.featuredTags);
    assert.match(mastodon.featuredTags, /\/collections\/tags$/);
  });

  it('serves the featured hashtags as a Collection of Hashtags', async () => {
    const r = await get('/users/ann/collections/tags');
    assert.equal(r.status, 200);
    assert.match(r.type ?? '', /^application\/activity\+json/);
    assert.equal(r.body.id, `${s.url}/users/ann/collections/tags`);
    assert.equal(r.body.type, 'Collection');
    assert.equal(r.body.totalItems, 2);
    assert.deepEqual(r.body['@context'], ['https://www.w3.org/ns/activitystreams', { Hashtag: 'as:Hashtag' }]);
    assert.deepEqual(r.body.items, [
      { type: 'Hashtag', href: `${s.url}/@ann/tagged/Garden`, name: '#Garden' },
      { type: 'Hashtag', href: `${s.url}/@ann/tagged/books`, name: '#books' },
    ]);
    const empty = (await get('/users/bob/collections/tags')).body;
    assert.deepEqual([empty.totalItems, empty.items], [0, []]);
    assert.equal((await get('/users/nobody/collections/tags')).status, 404);
  });
  it("sends an Add to the member's followers when a tag is featured, and a Remove when it no longer is", async () => {
    const AS = 'https://www.w3.org/ns/activitystreams';
    const carl = await peer.addActor('carl');
    const follow = { '@context': AS, id: peer.newId('follows'), type: 'Follow', actor: carl.id, object: `${s.url}/users/bob` };
    assert.equal((await peer.signedPost(`${s.url}/users/bob/inbox`, follow, { actor: 'carl' })).status, 202);
    await peer.waitForPost((p) => p.path === '/users/carl/inbox' && p.body?.['type'] === 'Accept');
    // To the follower's server, at its shared inbox.
    const sent = (type: string) => peer.posts().filter((p) => p.path === '/inbox' && p.body?.['type'] === type);

    const featured = (await api(s.url, m.token['bob'], 'POST', '/api/v1/featured_tags', { name: 'Harbour' })).body;
    await eventually(() => assert.equal(sent('Add').length, 1));
    const add = sent('Add')[0]!.body as Json;
    assert.equal(add.actor, `${s.url}/users/bob`);
    assert.equal(add.target, `${s.url}/users/bob/collections/tags`);
    assert.deepEqual(add.object, { type: 'Hashtag', href: `${s.url}/@bob/tagged/Harbour`, name: '#Harbour' });
    // Featuring it again changes nothing and sends nothing.
    assert.equal((await api(s.url, m.token['bob'], 'POST', '/api/v1/featured_tags', { name: 'Harbour' })).body.id, featured.id);

    assert.equal((await api(s.url, m.token['bob'], 'DELETE', `/api/v1/featured_tags/${featured.id}`)).status, 200);
    await eventually(() => assert.equal(sent('Remove').length, 1));
    const remove = sent('Remove')[0]!.body as Json;
    assert.equal(remove.target, add.target);
    assert.deepEqual(remove.object, add.object);
    assert.notEqual(remove.id, add.id);

    // The same by the tag's name (4.4).
    assert.equal((await api(s.url, m.token['bob'], 'POST', '/api/v1/tags/harbour/feature')).status, 200);
    assert.equal((await api(s.url, m.token['bob'], 'POST', '/api/v1/tags/harbour/unfeature')).status, 200);
    await eventually(() => assert.deepEqual([sent('Add').length, sent('Remove').length], [2, 2]));
    assert.equal(sent('Add').length, 2, 'the repeated create sent no second Add');
  });
});
