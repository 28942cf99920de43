// Featured hashtags as Mastodon 4.5 serves them: the member's list, featuring by name (stripped of '#', Mastodon's
// validation errors, the limit of 10), removing, suggestions (the member's most used tags not yet featured), any
// account's list in public; shown on the profile page. Through masto.js and Mastodon.py 1.8 too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createRestAPIClient } from 'masto';
import { api, form, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);

describe('featured hashtags', () => {
  let s: TestServer;
  let m: LocalMembers;

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who && m.token[who], method, path, body);
  const ok = async (who: string | undefined, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const post = (who: string, status: string, visibility = 'public') => ok(who, 'POST', '/api/v1/statuses', { status, visibility });
  const today = () => new Date().toISOString().slice(0, 10);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cat', 'root'], { root: 'admin' });
    await post('ann', 'one #Garden');
    await post('ann', 'two #garden', 'unlisted');
    await post('ann', 'three #garden', 'private');
    await post('ann', 'four #garden #books');
    await post('ann', 'five #books #music');
    await post('ann', 'six #music');
    await post('ann', 'seven #music');
    await post('bob', 'not ann #garden');
  });
  after(() => s.stop());

  it("features a tag: Mastodon's FeaturedTag, statuses_count a string of public and unlisted posts, last_status_at a date", async () => {
    const f = await ok('ann', 'POST', '/api/v1/featured_tags', { name: '#Garden ' });
    assert.deepEqual(Object.keys(f).sort(), ['id', 'last_status_at', 'name', 'statuses_count', 'url']);
    assert.match(f.id, /^\d+$/);
    assert.equal(f.name, 'Garden', "stripped of spaces and the '#'");
    assert.equal(f.url, `${s.url}/@ann/tagged/Garden`);
    assert.equal(f.statuses_count, '3', 'public and unlisted, not private; not bob’s');
    assert.equal(f.last_status_at, today());
    const again = await ok('ann', 'POST', '/api/v1/featured_tags', { name: 'Garden' });
    assert.equal(again.id, f.id, 'featuring it again answers the same row');
    const unused = await ok('ann', 'POST', '/api/v1/featured_tags', form({ name: 'neverposted' }));
    assert.equal(unused.statuses_count, '0');
    assert.equal(unused.last_status_at, null);
    assert.deepEqual(
      (await ok('ann', 'GET', '/api/v1/featured_tags')).map((x: Json) => [x.name, x.statuses_count]),
      [
        ['Garden', '3'],
        ['neverposted', '0'],
      ],
      'most used first',
    );
  });

  it("refuses what Mastodon's validations refuse, with its words", async () => {
    const refused = async (body: unknown, error: string) => {
      const r = await call('bob', 'POST', '/api/v1/featured_tags', body);
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.deepEqual(r.body, { error });
    };
    await refused({}, "Validation failed: Name can't be blank, Name is invalid");
    await refused({ name: '  ' }, "Validation failed: Name can't be blank, Name is invalid");
    await refused({ name: 'with-dash' }, 'Validation failed: Name is invalid');
    await refused({ name: '1234' }, 'Validation failed: Name is invalid');
    await refused({ name: ['a'] }, "Validation failed: Name can't be blank, Name is invalid");
    for (let i = 0; i < 10; i++) await ok('bob', 'POST', '/api/v1/featured_tags', { name: `limit${i}x` });
    await refused({ name: 'eleventh' }, 'Validation failed: You have already featured the maximum number of hashtags');
    assert.equal((await ok('bob', 'POST', '/api/v1/featured_tags', { name: 'limit3x' })).name, 'limit3x', 'one already featured is still answered');
    assert.equal((await call('bob', 'POST', '/api/v1/tags/eleventh/feature')).status, 422, 'the limit holds for tags/:id/feature too');
  });

  it('removes a featured tag by id: 404 for an unknown id or another member’s', async () => {
    const f = await ok('cat', 'POST', '/api/v1/featured_tags', { name: 'doomed' });
    assert.equal((await call('bob', 'DELETE', `/api/v1/featured_tags/${f.id}`)).status, 404, "another member's");
    const r = await call('cat', 'DELETE', `/api/v1/featured_tags/${f.id}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {});
    assert.deepEqual(await ok('cat', 'GET', '/api/v1/featured_tags'), []);
    for (const id of [f.id, 'abc', '99999999999999999999999']) {
      const gone = await call('cat', 'DELETE', `/api/v1/featured_tags/${id}`);
      assert.equal(gone.status, 404, id);
      assert.deepEqual(gone.body, { error: 'Record not found' });
    }
  });

  it("suggests the member's most used tags not yet featured, as Tag entities", async () => {
    const suggested = await ok('ann', 'GET', '/api/v1/featured_tags/suggestions');
    assert.deepEqual(
      suggested.map((t: Json) => t.name),
      ['music', 'books'],
      'Garden is featured already; music is used three times, books twice',
    );
    assert.equal(suggested[0].url, `${s.url}/tags/music`);
    assert.equal(suggested[0].following, false);
    assert.equal(suggested[0].featuring, false);
    assert.equal(suggested[0].history.length, 7);
  });

  it("shows any account's featured tags in public; none for a suspended account; 404 for an unknown one", async () => {
    const anon = await ok(undefined, 'GET', `/api/v1/accounts/${m.id['ann']}/featured_tags`);
    assert.deepEqual(
      anon.map((x: Json) => x.name),
      ['Garden', 'neverposted'],
    );
    assert.equal((await call(undefined, 'GET', '/api/v1/accounts/12345/featured_tags')).status, 404);
    assert.equal((await call(undefined, 'GET', '/api/v1/accounts/x/featured_tags')).status, 404);
    await ok('cat', 'POST', '/api/v1/featured_tags', { name: 'shown' });
    assert.equal((await ok(undefined, 'GET', `/api/v1/accounts/${m.id['cat']}/featured_tags`)).length, 1);
    const suspended = await api(s.url, await m.tokenFor('root', ['admin:write']), 'POST', `/api/v1/admin/accounts/${m.id['cat']}/action`, { type: 'suspend' });
    assert.equal(suspended.status, 200, suspended.text);
    assert.deepEqual(await ok(undefined, 'GET', `/api/v1/accounts/${m.id['cat']}/featured_tags`), []);
  });

  it("lists them on the member's profile page", async () => {
    const page = await (await fetch(`${s.url}/@ann`, { headers: { Accept: 'text/html' } })).text();
    assert.match(page, /Featured hashtags/);
    assert.match(page, new RegExp(`<a href="${s.url}/@ann/tagged/Garden" rel="tag">#Garden</a> <span class="count">3 posts</span>`));
    assert.doesNotMatch(await (await fetch(`${s.url}/@root`, { headers: { Accept: 'text/html' } })).text(), /Featured hashtags/);
  });

  it('asks for read:accounts and write:accounts', async () => {
    const follows = await m.tokenFor('ann', ['read:follows', 'write:follows']);
    for (const [method, path] of [
      ['GET', '/api/v1/featured_tags'],
      ['POST', '/api/v1/featured_tags'],
      ['GET', '/api/v1/featured_tags/suggestions'],
      ['DELETE', '/api/v1/featured_tags/1'],
    ] as const)
      assert.equal((await api(s.url, follows, method, path, method === 'POST' ? { name: 'x' } : undefined)).status, 403, path);
    assert.equal((await api(s.url, await m.tokenFor('ann', ['read:accounts']), 'GET', '/api/v1/featured_tags')).status, 200);
    assert.equal((await call(undefined, 'GET', '/api/v1/featured_tags')).status, 401);
  });

  it('serves masto.js: featuredTags.create, list, suggestions.list, $select(id).remove; accounts.$select(id).featuredTags.list', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['bob']! });
    for (const f of await client.v1.featuredTags.list()) await client.v1.featuredTags.$select(f.id).remove();
    const made = await client.v1.featuredTags.create({ name: 'viaMasto' });
    assert.equal(made.name, 'viaMasto');
    assert.deepEqual(
      (await client.v1.featuredTags.list()).map((f) => f.id),
      [made.id],
    );
    assert.ok(Array.isArray(await client.v1.featuredTags.suggestions.list()));
    assert.deepEqual(
      (await client.v1.accounts.$select(m.id['bob']!).featuredTags.list()).map((f) => f.name),
      ['viaMasto'],
    );
    await client.v1.featuredTags.$select(made.id).remove();
    assert.deepEqual(await client.v1.featuredTags.list(), []);
  });

  it('serves Mastodon.py 1.8: featured_tag_create, featured_tags, featured_tag_suggestions, account_featured_tags, featured_tag_delete', async () => {
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
out = {}
made = m.featured_tag_create('python')
out['made'] = [made['name'], made['statuses_count'], str(made['last_status_at'])]
out['mine'] = sorted(t['name'] for t in m.featured_tags())
out['suggested'] = [t['name'] for t in m.featured_tag_suggestions()]
out['public'] = sorted(t['name'] for t in m.account_featured_tags(os.environ['ME']))
m.featured_tag_delete(made['id'])
out['after'] = sorted(t['name'] for t in m.featured_tags())
print(json.dumps(out))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['ann']!, ME: m.id['ann']! } });
    assert.deepEqual(JSON.parse(stdout), {
      made: ['python', '0', 'None'],
      mine: ['Garden', 'neverposted', 'python'],
      suggested: ['music', 'books'],
      public: ['Garden', 'neverposted', 'python'],
      after: ['Garden', 'neverposted'],
    });
  });
});
