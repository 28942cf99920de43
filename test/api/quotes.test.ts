// The quotes of a status (Mastodon 4.5) over real HTTP: its author lists the statuses quoting it that they may read
// (newest first, paged with Link headers; anyone else gets Mastodon's 403), and revokes one: the quote is detached,
// the quoted status's quotes_count drops and the list no longer has it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('quotes of a status', () => {
  let s: TestServer;
  let m: LocalMembers;
  const call = (who: string, method: string, path: string, body?: unknown) => api(s.url, m.token[who], method, path, body);
  const post = async (who: string, body: Record<string, unknown>) => {
    const r = await call(who, 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, r.text);
    return r.body as Json;
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['kai', 'lea', 'max', 'nia']);
  });
  after(() => s.stop());

  it('lists the quotes its author may read, newest first and paged; others are refused', async () => {
    const quoted = await post('kai', { status: 'quote me' });
    const a = await post('lea', { status: 'first quote', quoted_status_id: quoted.id });
    const b = await post('max', { status: 'second quote', quoted_status_id: quoted.id, visibility: 'unlisted' });
    const hidden = await post('nia', { status: 'followers only quote', quoted_status_id: quoted.id, visibility: 'private' });
    const gone = await post('nia', { status: 'deleted quote', quoted_status_id: quoted.id });
    assert.equal((await call('nia', 'DELETE', `/api/v1/statuses/${gone.id}`)).status, 200);

    const all = await call('kai', 'GET', `/api/v1/statuses/${quoted.id}/quotes`);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.map((x: Json) => x.id),
      [b.id, a.id],
      'not the followers-only quote kai may not read, not the deleted one',
    );
    assert.equal(all.body[0].quote.state, 'accepted');
    assert.equal(all.body[0].quote.quoted_status.id, quoted.id);
    assert.ok(!all.body.some((x: Json) => x.id === hidden.id));

    const first = await call('kai', 'GET', `/api/v1/statuses/${quoted.id}/quotes?limit=1`);
    assert.deepEqual(
      first.body.map((x: Json) => x.id),
      [b.id],
    );
    assert.match(first.link ?? '', new RegExp(`max_id=${b.id}>; rel="next"`));
    const next = await call('kai', 'GET', `/api/v1/statuses/${quoted.id}/quotes?limit=1&max_id=${b.id}`);
    assert.deepEqual(
      next.body.map((x: Json) => x.id),
      [a.id],
    );

    const other = await call('lea', 'GET', `/api/v1/statuses/${quoted.id}/quotes`);
    assert.deepEqual([other.status, other.body], [403, { error: 'This action is not allowed' }]);
    const secret = await post('kai', { status: 'for followers', visibility: 'private' });
    assert.equal((await call('lea', 'GET', `/api/v1/statuses/${secret.id}/quotes`)).status, 404, 'a status lea may not read');
    assert.equal((await call('kai', 'GET', '/api/v1/statuses/nope/quotes')).status, 404);
    const none = await call('kai', 'GET', `/api/v1/statuses/${secret.id}/quotes`);
    assert.deepEqual([none.status, none.body, none.link], [200, [], null]);
  });

  it('lets the quoted author revoke a quote: detached, counted out, listed no more', async () => {
    const quoted = await post('kai', { status: 'revocable' });
    const a = await post('lea', { status: 'quoting it', quoted_status_id: quoted.id });
    const b = await post('max', { status: 'quoting it too', quoted_status_id: quoted.id });
    assert.equal((await call('kai', 'GET', `/api/v1/statuses/${quoted.id}`)).body.quotes_count, 2);

    assert.equal((await call('lea', 'POST', `/api/v1/statuses/${quoted.id}/quotes/${a.id}/revoke`)).status, 403, 'only the quoted author');
    const r = await call('kai', 'POST', `/api/v1/statuses/${quoted.id}/quotes/${a.id}/revoke`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.id, a.id);
    assert.equal(r.body.quote, null, 'the quoting status no longer shows the quoted one');
    assert.equal((await call('lea', 'GET', `/api/v1/statuses/${a.id}`)).body.quote, null);
    assert.equal((await call('kai', 'GET', `/api/v1/statuses/${quoted.id}`)).body.quotes_count, 1);
    assert.deepEqual(
      (await call('kai', 'GET', `/api/v1/statuses/${quoted.id}/quotes`)).body.map((x: Json) => x.id),
      [b.id],
    );
    assert.equal((await call('kai', 'POST', `/api/v1/statuses/${quoted.id}/quotes/${a.id}/revoke`)).status, 404, 'no longer a quote of it');
    assert.equal((await call('kai', 'POST', `/api/v1/statuses/${quoted.id}/quotes/nope/revoke`)).status, 404);
    const readOnly = await m.tokenFor('kai', ['read']);
    assert.equal((await api(s.url, readOnly, 'POST', `/api/v1/statuses/${quoted.id}/quotes/${b.id}/revoke`)).status, 403);
  });
});
