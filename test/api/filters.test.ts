// Mastodon's filters API over real HTTP as clients call it: masto.js's v2 filters (filters, keywords, statuses;
// keywords_attributes with _destroy), Rails-style form bodies, Mastodon.py 1.8's v1 filters (one keyword each), the
// scopes, another member's filters as 404 and bad input as 422 JSON.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createRestAPIClient } from 'masto';
import { api, form, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);

describe('filters API', () => {
  let s: TestServer;
  let m: LocalMembers;
  const call = (who: string, method: string, path: string, body?: unknown) => api(s.url, m.token[who], method, path, body);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob']);
  });
  after(() => s?.stop());

  it('round-trips v2 filters with masto.js: create, list, update with keywords_attributes, keywords, statuses, remove', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['ann']! });
    const created = await client.v2.filters.create({
      title: 'Spoilers',
      context: ['home', 'public'],
      filterAction: 'hide',
      expiresIn: 3600,
      keywordsAttributes: [{ keyword: 'finale', wholeWord: true }, { keyword: 'ending' }],
    });
    assert.equal(created.title, 'Spoilers');
    assert.deepEqual(created.context, ['home', 'public']);
    assert.equal(created.filterAction, 'hide');
    const expires = Date.parse(created.expiresAt!);
    assert.ok(expires > Date.now() + 3500_000 && expires <= Date.now() + 3600_000, created.expiresAt!);
    assert.deepEqual(
      created.keywords.map((k) => [k.keyword, k.wholeWord]),
      [
        ['finale', true],
        ['ending', true],
      ],
    );
    assert.deepEqual(created.statuses, []);

    const listed = await client.v2.filters.list();
    assert.deepEqual(
      listed.map((f) => f.id),
      [created.id],
    );
    assert.equal((await client.v2.filters.$select(created.id).fetch()).title, 'Spoilers');

    const [finale, ending] = created.keywords;
    const updated = await client.v2.filters.$select(created.id).update({
      title: 'TV',
      filterAction: 'warn',
      expiresIn: null,
      keywordsAttributes: [{ id: finale!.id, keyword: 'season finale', wholeWord: false }, { id: ending!.id, _destroy: true }, { keyword: 'plot twist' }],
    });
    assert.equal(updated.title, 'TV');
    assert.equal(updated.filterAction, 'warn');
    assert.equal(updated.expiresAt, null);
    assert.deepEqual(updated.context, ['home', 'public'], 'what is not sent stays');
    assert.deepEqual(
      updated.keywords.map((k) => [k.keyword, k.wholeWord]),
      [
        ['season finale', false],
        ['plot twist', true],
      ],
    );

    // Keywords one by one.
    const added = await client.v2.filters.$select(created.id).keywords.create({ keyword: 'cliffhanger', wholeWord: false });
    assert.equal(added.keyword, 'cliffhanger');
    assert.equal((await client.v2.filters.keywords.$select(added.id).fetch()).wholeWord, false);
    const changed = await client.v2.filters.keywords.$select(added.id).update({ keyword: 'cliff', wholeWord: true });
    assert.deepEqual([changed.keyword, changed.wholeWord], ['cliff', true]);
    assert.deepEqual(
      (await client.v2.filters.$select(created.id).keywords.list()).map((k) => k.keyword),
      ['season finale', 'plot twist', 'cliff'],
    );
    await client.v2.filters.keywords.$select(added.id).remove();
    assert.equal((await call('ann', 'GET', `/api/v2/filters/keywords/${added.id}`)).status, 404);

    // Statuses.
    const post = (await call('bob', 'POST', '/api/v1/statuses', { status: 'a post to filter' })).body;
    const fs = await client.v2.filters.$select(created.id).statuses.create({ statusId: post.id });
    assert.equal(fs.statusId, post.id);
    assert.equal((await client.v2.filters.statuses.$select(fs.id).fetch()).statusId, post.id);
    assert.deepEqual(
      (await client.v2.filters.$select(created.id).statuses.list()).map((x) => x.statusId),
      [post.id],
    );
    assert.deepEqual((await client.v2.filters.$select(created.id).fetch()).statuses, [{ id: fs.id, statusId: post.id }]);
    const again = await call('ann', 'POST', `/api/v2/filters/${created.id}/statuses`, { status_id: post.id });
    assert.equal(again.status, 422, 'a status is named once');
    await client.v2.filters.statuses.$select(fs.id).remove();
    assert.equal((await call('ann', 'GET', `/api/v2/filters/statuses/${fs.id}`)).status, 404);

    await client.v2.filters.$select(created.id).remove();
    assert.deepEqual(await client.v2.filters.list(), []);
    assert.equal((await call('ann', 'GET', `/api/v2/filters/${created.id}`)).status, 404);
  });

  it('takes Rails-style form bodies: context[] and keywords_attributes[][…]', async () => {
    const r = await call(
      'ann',
      'POST',
      '/api/v2/filters',
      form(
        'title=Forms&context[]=notifications&context[]=thread&filter_action=blur&keywords_attributes[][keyword]=one&keywords_attributes[][whole_word]=false&keywords_attributes[][keyword]=two',
      ),
    );
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.context, ['notifications', 'thread']);
    assert.equal(r.body.filter_action, 'blur');
    assert.deepEqual(
      r.body.keywords.map((k: Json) => [k.keyword, k.whole_word]),
      [
        ['one', false],
        ['two', true],
      ],
    );
    assert.equal(r.body.expires_at, null);
    await call('ann', 'DELETE', `/api/v2/filters/${r.body.id}`);
  });

  it("answers 404 for another member's filter, keyword or status, and changes nothing", async () => {
    const post = (await call('ann', 'POST', '/api/v1/statuses', { status: 'mine' })).body;
    const f = (await call('ann', 'POST', '/api/v2/filters', { title: 'Private', context: ['home'], keywords_attributes: [{ keyword: 'secret' }] })).body;
    const fs = (await call('ann', 'POST', `/api/v2/filters/${f.id}/statuses`, { status_id: post.id })).body;
    const kw = f.keywords[0].id;
    const tries: [string, string, unknown?][] = [
      ['GET', `/api/v2/filters/${f.id}`],
      ['PUT', `/api/v2/filters/${f.id}`, { title: 'Mine now' }],
      ['DELETE', `/api/v2/filters/${f.id}`],
      ['GET', `/api/v2/filters/${f.id}/keywords`],
      ['POST', `/api/v2/filters/${f.id}/keywords`, { keyword: 'x' }],
      ['GET', `/api/v2/filters/keywords/${kw}`],
      ['PUT', `/api/v2/filters/keywords/${kw}`, { keyword: 'x' }],
      ['DELETE', `/api/v2/filters/keywords/${kw}`],
      ['GET', `/api/v2/filters/${f.id}/statuses`],
      ['POST', `/api/v2/filters/${f.id}/statuses`, { status_id: post.id }],
      ['GET', `/api/v2/filters/statuses/${fs.id}`],
      ['DELETE', `/api/v2/filters/statuses/${fs.id}`],
      ['GET', `/api/v1/filters/${kw}`],
      ['PUT', `/api/v1/filters/${kw}`, { phrase: 'x', context: ['home'] }],
      ['DELETE', `/api/v1/filters/${kw}`],
      ['GET', '/api/v2/filters/123456789'],
      ['GET', '/api/v2/filters/not-an-id'],
    ];
    for (const [method, path, body] of tries) {
      const r = await call('bob', method, path, body);
      assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
      assert.equal(r.body.error, 'Record not found');
    }
    // Keywords of another filter are not reachable through one's own.
    const bobs = (await call('bob', 'POST', '/api/v2/filters', { title: 'Bob', context: ['home'] })).body;
    const steal = await call('bob', 'PUT', `/api/v2/filters/${bobs.id}`, { keywords_attributes: [{ id: kw, keyword: 'stolen' }] });
    assert.equal(steal.status, 404);
    assert.deepEqual((await call('bob', 'GET', `/api/v2/filters/${bobs.id}`)).body.keywords, []);
    const still = (await call('ann', 'GET', `/api/v2/filters/${f.id}`)).body;
    assert.equal(still.title, 'Private');
    assert.deepEqual(
      still.keywords.map((k: Json) => k.keyword),
      ['secret'],
    );
    assert.equal(still.statuses.length, 1);
  });

  it('refuses invalid input with 422 JSON, all or nothing', async () => {
    const bad: [string, string, unknown][] = [
      ['POST', '/api/v2/filters', { context: ['home'] }],
      ['POST', '/api/v2/filters', { title: ' ', context: ['home'] }],
      ['POST', '/api/v2/filters', { title: 'x', context: [] }],
      ['POST', '/api/v2/filters', { title: 'x', context: ['everywhere'] }],
      ['POST', '/api/v2/filters', { title: 'x', context: ['home'], filter_action: 'delete' }],
      ['POST', '/api/v2/filters', { title: 'x', context: ['home'], expires_in: -5 }],
      ['POST', '/api/v2/filters', { title: 'x', context: ['home'], keywords_attributes: [{ keyword: '' }] }],
      ['POST', '/api/v2/filters', { title: 'x', context: ['home'], keywords_attributes: [{ whole_word: true }] }],
      ['POST', '/api/v1/filters', { context: ['home'] }],
    ];
    for (const [method, path, body] of bad) {
      const r = await call('ann', method, path, body);
      assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(typeof r.body.error, 'string');
    }
    const f = (await call('ann', 'POST', '/api/v2/filters', { title: 'Keep', context: ['home'], keywords_attributes: [{ keyword: 'kept' }] })).body;
    const r = await call('ann', 'PUT', `/api/v2/filters/${f.id}`, {
      title: 'Changed',
      keywords_attributes: [{ keyword: 'new' }, { id: '1', keyword: 'nope' }],
    });
    assert.equal(r.status, 404);
    const after = (await call('ann', 'GET', `/api/v2/filters/${f.id}`)).body;
    assert.equal(after.title, 'Keep', 'nothing of a refused update is kept');
    assert.deepEqual(
      after.keywords.map((k: Json) => k.keyword),
      ['kept'],
    );
    assert.equal((await call('ann', 'POST', `/api/v2/filters/${f.id}/keywords`, { keyword: '' })).status, 422);
    assert.equal((await call('ann', 'POST', `/api/v2/filters/${f.id}/statuses`, { status_id: 'x' })).status, 422);
    assert.equal((await call('ann', 'POST', `/api/v2/filters/${f.id}/statuses`, { status_id: '123456789' })).status, 422);
    await call('ann', 'DELETE', `/api/v2/filters/${f.id}`);
  });

  it('needs read:filters to read and write:filters to change', async () => {
    const reader = await m.tokenFor('ann', ['read:filters']);
    const writer = await m.tokenFor('ann', ['write:filters']);
    const other = await m.tokenFor('ann', ['read:statuses']);
    assert.equal((await api(s.url, reader, 'GET', '/api/v2/filters')).status, 200);
    assert.equal((await api(s.url, reader, 'GET', '/api/v1/filters')).status, 200);
    assert.equal((await api(s.url, other, 'GET', '/api/v2/filters')).status, 403);
    assert.equal((await api(s.url, reader, 'POST', '/api/v2/filters', { title: 'x', context: ['home'] })).status, 403);
    const made = await api(s.url, writer, 'POST', '/api/v2/filters', { title: 'x', context: ['home'] });
    assert.equal(made.status, 200);
    assert.equal((await api(s.url, writer, 'DELETE', `/api/v2/filters/${made.body.id}`)).status, 200);
    assert.equal((await api(s.url, undefined, 'GET', '/api/v2/filters')).status, 401);
  });

  it('serves Mastodon.py 1.8: filter_create, filters, filter, filter_update, filter_delete (v1, one keyword each)', async () => {
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
out = {}
f = m.filter_create('Spoiler', ['home', 'public'], irreversible=True, whole_word=False, expires_in=600)
out['created'] = [f['phrase'], sorted(f['context']), f['irreversible'], f['whole_word'], f['expires_at'] is not None]
out['listed'] = [x['phrase'] for x in m.filters()]
out['fetched'] = m.filter(f['id'])['phrase']
u = m.filter_update(f['id'], phrase='Spoilers', irreversible=False, whole_word=True)
out['updated'] = [u['phrase'], u['irreversible'], u['whole_word'], sorted(u['context'])]
out['same_id'] = u['id'] == f['id']
m.filter_delete(f['id'])
out['after'] = len(m.filters())
print(json.dumps(out))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['bob']! } });
    assert.deepEqual(JSON.parse(stdout), {
      created: ['Spoiler', ['home', 'public'], true, false, true],
      listed: ['Spoiler'],
      fetched: 'Spoiler',
      updated: ['Spoilers', false, true, ['home', 'public']],
      same_id: true,
      after: 0,
    });
    // Through v2 the v1 filter is a filter titled by its phrase, hiding, with that one keyword.
    const v1 = (await call('bob', 'POST', '/api/v1/filters', { phrase: 'word', context: ['thread'], irreversible: true })).body;
    const v2 = (await call('bob', 'GET', '/api/v2/filters')).body.find((f: Json) => f.title === 'word');
    assert.equal(v2.filter_action, 'hide');
    assert.deepEqual(
      v2.keywords.map((k: Json) => k.id),
      [v1.id],
    );
  });

  it('refuses through v1 a change to a filter with several keywords, as Mastodon does', async () => {
    const f = (await call('ann', 'POST', '/api/v2/filters', { title: 'Two', context: ['home'], keywords_attributes: [{ keyword: 'a' }, { keyword: 'b' }] }))
      .body;
    const kw = f.keywords[0].id;
    const listed = (await call('ann', 'GET', '/api/v1/filters')).body as Json[];
    assert.deepEqual(
      listed.filter((x) => x.id === kw || x.id === f.keywords[1].id).map((x) => x.phrase),
      ['a', 'b'],
    );
    assert.equal((await call('ann', 'PUT', `/api/v1/filters/${kw}`, { context: ['public'] })).status, 422);
    const r = await call('ann', 'PUT', `/api/v1/filters/${kw}`, { phrase: 'aa' });
    assert.equal(r.status, 200, 'the keyword alone may change');
    assert.equal(r.body.phrase, 'aa');
    await call('ann', 'DELETE', `/api/v2/filters/${f.id}`);
  });
});
