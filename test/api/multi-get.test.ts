// Several statuses or accounts in one request (Mastodon 4.3's GET /api/v1/statuses?id[]= and /api/v1/accounts?id[]=):
// what the viewer may read, in the order asked, each once; ids of nothing are left out, and too many ids is a 422.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('statuses and accounts by id[]', () => {
  let s: TestServer;
  let token: Record<string, string>;
  let id: Record<string, string>;
  const ids = (list: Json[]) => list.map((x: Json) => x.id);
  const query = (list: readonly string[]) => list.map((x) => `id[]=${encodeURIComponent(x)}`).join('&');

  before(async () => {
    s = await startTestServer();
    ({ token, id } = await createMembers(s, ['ann', 'ben', 'cal']));
    assert.equal((await api(s.url, token['ben'], 'POST', `/api/v1/accounts/${id['ann']}/follow`)).status, 200);
  });
  after(() => s?.stop());

  it('answers the statuses the viewer may read, in the order asked, each once', async () => {
    const post = async (status: string, visibility: string) =>
      (await api(s.url, token['ann'], 'POST', '/api/v1/statuses', { status, visibility })).body.id as string;
    const pub = await post('public', 'public');
    const unl = await post('unlisted', 'unlisted');
    const priv = await post('followers', 'private');
    const gone = await post('deleted', 'public');
    await api(s.url, token['ann'], 'DELETE', `/api/v1/statuses/${gone}`);
    const asked = query([priv, unl, 'not-an-id', '99999999', gone, pub, unl]);
    const follower = await api(s.url, token['ben'], 'GET', `/api/v1/statuses?${asked}`);
    assert.equal(follower.status, 200, follower.text);
    assert.deepEqual(ids(follower.body), [priv, unl, pub]);
    assert.equal(follower.body[0].content, '<p>followers</p>');
    assert.deepEqual(ids((await api(s.url, token['cal'], 'GET', `/api/v1/statuses?${asked}`)).body), [unl, pub], 'not a follower');
    assert.deepEqual(ids((await api(s.url, undefined, 'GET', `/api/v1/statuses?${asked}`)).body), [unl, pub], 'anonymous');
    assert.deepEqual((await api(s.url, token['ben'], 'GET', '/api/v1/statuses')).body, []);
    const many = await api(s.url, token['ben'], 'GET', `/api/v1/statuses?${query(Array.from({ length: 21 }, (_, i) => String(1000 + i)))}`);
    assert.equal(many.status, 422);
    assert.match(many.body.error, /At most 20/);
  });

  it('answers the accounts that exist, in the order asked, each once', async () => {
    const asked = query([id['cal']!, 'x', id['ann']!, '99999999', id['cal']!]);
    const r = await api(s.url, token['ben'], 'GET', `/api/v1/accounts?${asked}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.map((a: Json) => a.username),
      ['cal', 'ann'],
    );
    assert.deepEqual(
      (await api(s.url, undefined, 'GET', `/api/v1/accounts?id=${id['ann']}`)).body.map((a: Json) => a.acct),
      ['ann'],
    );
    assert.equal((await api(s.url, token['ben'], 'GET', `/api/v1/accounts?${query(Array.from({ length: 41 }, (_, i) => String(1000 + i)))}`)).status, 422);
    const statusesOnly = await createMembers(s, ['dee']).then((m) => m.tokenFor('dee', ['read:statuses']));
    assert.equal((await api(s.url, statusesOnly, 'GET', `/api/v1/accounts?${asked}`)).status, 403, 'read:accounts is needed');
  });
});
