// only_media over real HTTP: the public, hashtag and account timelines keep just the statuses with attachments
// (boosts carry none of their own), and their Link headers carry only_media (and a hashtag timeline's any[]) over.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

function nextLink(header: string | null): URL {
  const m = /<([^>]+)>;\s*rel="next"/.exec(header ?? '');
  assert.ok(m, `a next link in ${header}`);
  return new URL(m[1]!);
}

describe('only_media timelines', () => {
  let s: TestServer;
  let m: LocalMembers;
  const ids: Record<string, string> = {};

  async function get(path: string, token?: string): Promise<{ ids: string[]; link: string | null }> {
    const res = await fetch(s.url + path, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    assert.equal(res.status, 200, path);
    return { ids: ((await res.json()) as Json[]).map((x) => x.id as string), link: res.headers.get('link') };
  }

  async function post(name: string, body: Json): Promise<string> {
    const r = await api(s.url, m.token[name], 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, r.text);
    return r.body.id;
  }

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ivy', 'jon']);
    const media = async () => (await upload(s.url, m.token['ivy'], png(40, 30))).body.id as string;
    ids['plain'] = await post('ivy', { status: 'words only #garden' });
    ids['photo'] = await post('ivy', { status: 'a picture #garden', media_ids: [await media()] });
    ids['unlisted'] = await post('ivy', { status: 'a quiet picture #garden', media_ids: [await media()], visibility: 'unlisted' });
    ids['jonPhoto'] = await post('jon', { status: 'mine #pond', media_ids: [(await upload(s.url, m.token['jon'], png(8, 8))).body.id] });
    const boost = await api(s.url, m.token['ivy'], 'POST', `/api/v1/statuses/${ids['jonPhoto']}/reblog`);
    assert.equal(boost.status, 200);
    ids['boost'] = boost.body.id;
  });
  after(async () => s?.stop());

  it('keeps only public statuses with media on the public timeline, and carries only_media in its links', async () => {
    assert.deepEqual((await get('/api/v1/timelines/public')).ids, [ids['jonPhoto'], ids['photo'], ids['plain']]);
    const r = await get('/api/v1/timelines/public?only_media=true&limit=1');
    assert.deepEqual(r.ids, [ids['jonPhoto']]);
    const next = nextLink(r.link);
    assert.equal(next.searchParams.get('only_media'), 'true');
    assert.deepEqual((await get(next.pathname + next.search)).ids, [ids['photo']]);
    assert.deepEqual((await get('/api/v1/timelines/public?only_media=1&local=true', m.token['jon'])).ids, [ids['jonPhoto'], ids['photo']]);
    assert.deepEqual((await get('/api/v1/timelines/public?only_media=false')).ids.length, 3);
  });

  it('keeps only statuses with media on a hashtag timeline, carrying only_media and any[] over', async () => {
    assert.deepEqual((await get('/api/v1/timelines/tag/garden?only_media=true')).ids, [ids['photo']]);
    const r = await get('/api/v1/timelines/tag/garden?only_media=true&any[]=pond&limit=1');
    assert.deepEqual(r.ids, [ids['jonPhoto']]);
    const next = nextLink(r.link);
    assert.equal(next.searchParams.get('only_media'), 'true');
    assert.deepEqual(next.searchParams.getAll('any[]'), ['pond']);
    assert.deepEqual((await get(next.pathname + next.search)).ids, [ids['photo']]);
  });

  it("keeps an account's own statuses with media, boosts left out, on its account timeline", async () => {
    const all = await get(`/api/v1/accounts/${m.id['ivy']}/statuses`);
    assert.deepEqual(all.ids, [ids['boost'], ids['unlisted'], ids['photo'], ids['plain']]);
    const media = await get(`/api/v1/accounts/${m.id['ivy']}/statuses?only_media=true`);
    assert.deepEqual(media.ids, [ids['unlisted'], ids['photo']]);
    assert.equal(nextLink(media.link).searchParams.get('only_media'), 'true');
    assert.deepEqual((await get(`/api/v1/accounts/${m.id['jon']}/statuses?only_media=true`)).ids, [ids['jonPhoto']]);
  });
});
