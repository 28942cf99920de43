// The hashtag timeline's any[], all[] and none[] parameters, as Mastodon defines them: statuses with the tag or any
// of any[], carrying every tag of all[] and none of none[].
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, type Json } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('hashtag timeline filters', () => {
  let s: TestServer;
  let token: string;
  const ids: Record<string, string> = {};

  before(async () => {
    s = await startTestServer();
    token = await adminToken(s);
    const posts: [string, string][] = [
      ['cat', '#cats'],
      ['dog', '#dogs'],
      ['both', '#cats #dogs'],
      ['catbird', '#cats #birds'],
      ['bird', '#birds'],
    ];
    for (const [name, text] of posts) ids[name] = (await api(s.url, token, 'POST', '/api/v1/statuses', { status: text })).body.id;
  });
  after(() => s.stop());

  const names = async (query: string) => {
    const list: Json[] = (await api(s.url, undefined, 'GET', `/api/v1/timelines/tag/cats${query}`)).body;
    return list.map((x) => Object.keys(ids).find((k) => ids[k] === x.id)).sort();
  };

  it('combines any[], all[] and none[]', async () => {
    assert.deepEqual(await names(''), ['both', 'cat', 'catbird']);
    assert.deepEqual(await names('?any[]=dogs'), ['both', 'cat', 'catbird', 'dog']);
    assert.deepEqual(await names('?all[]=dogs'), ['both']);
    assert.deepEqual(await names('?none[]=birds'), ['both', 'cat']);
    assert.deepEqual(await names('?any[]=birds&none[]=dogs'), ['bird', 'cat', 'catbird']);
    assert.deepEqual(await names('?all[]=not-a-tag!'), ['both', 'cat', 'catbird'], 'malformed names are ignored');
  });

  // One tag is read from the tag's own index (TimelineStore.tagged): its cursors page it as they page the others.
  it('pages a single tag with max_id, since_id and min_id', async () => {
    const page = async (query: string) =>
      ((await api(s.url, undefined, 'GET', `/api/v1/timelines/tag/cats${query}`)).body as Json[]).map((x) => Object.keys(ids).find((k) => ids[k] === x.id));
    assert.deepEqual(await page(''), ['catbird', 'both', 'cat'], 'newest first');
    assert.deepEqual(await page('?limit=1'), ['catbird']);
    assert.deepEqual(await page(`?limit=1&max_id=${ids['catbird']}`), ['both']);
    assert.deepEqual(await page(`?max_id=${ids['both']}`), ['cat']);
    assert.deepEqual(await page(`?since_id=${ids['cat']}`), ['catbird', 'both']);
    assert.deepEqual(await page(`?limit=1&min_id=${ids['cat']}`), ['both'], 'min_id: the page just newer');
    assert.deepEqual(await page(`?local=true&limit=2`), ['catbird', 'both']);
    assert.deepEqual(await page(`?remote=true`), []);
  });
});
