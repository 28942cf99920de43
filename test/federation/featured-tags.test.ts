// A member's featured hashtags over ActivityPub, as Mastodon publishes them: the actor's `featuredTags` (a term of
// Mastodon's `toot:` namespace) names /users/<name>/collections/tags, an unordered Collection of Hashtag objects
// ({type, href: the member's posts with the tag, name: "#tag"}), the same shape as Mastodon's own actor documents
// (test/fixtures/actors/mastodon.json).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const AP = { Accept: 'application/activity+json' };

describe('featured hashtags over ActivityPub', () => {
  let s: TestServer;
  let m: LocalMembers;
  const get = async (path: string): Promise<{ status: number; body: Json; type: string | null }> => {
    const r = await fetch(`${s.url}${path}`, { headers: AP });
    return { status: r.status, body: r.status === 200 ? await r.json() : null, type: r.headers.get('content-type') };
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob']);
    assert.equal((await api(s.url, m.token['ann'], 'POST', '/api/v1/statuses', { status: 'in bloom #Garden' })).status, 200);
    for (const name of ['Garden', 'books']) assert.equal((await api(s.url, m.token['ann'], 'POST', '/api/v1/featured_tags', { name })).status, 200);
  });
  after(() => s.stop());

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
});
