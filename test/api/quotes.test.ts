// The quotes of a status (Mastodon 4.5) over real HTTP: its author lists the statuses quoting it that they may read
// (newest first, paged with Link headers; anyone else gets Mastodon's 403), and revokes one: the quote is detached,
// the quoted status's quotes_count drops and the list no longer has it. PUT /api/v1/statuses/:id/interaction_policy
// sets who may quote: every status's quote_approval says so, with current_user for the viewer, and quoting follows it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

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
    assert.deepEqual(r.body.quote, { state: 'revoked', quoted_status: null }, 'the quoting status no longer shows the quoted one');
    assert.deepEqual((await call('lea', 'GET', `/api/v1/statuses/${a.id}`)).body.quote, { state: 'revoked', quoted_status: null });
    const leaHome = await call('lea', 'GET', `/api/v1/accounts/${m.id['lea']}/statuses`);
    assert.deepEqual(leaHome.body.find((x: Json) => x.id === a.id)?.quote, { state: 'revoked', quoted_status: null }, 'in a page too');
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

  it('sets who may quote a status: quote_approval follows, for each viewer, and so does quoting', async () => {
    assert.equal((await call('max', 'POST', `/api/v1/accounts/${m.id['kai']}/follow`)).status, 200);
    const s1 = await post('kai', { status: 'policy' });
    const approval = async (who: string | undefined) =>
      (await api(s.url, who === undefined ? undefined : m.token[who], 'GET', `/api/v1/statuses/${s1.id}`)).body.quote_approval;
    assert.deepEqual(await approval('lea'), { automatic: ['public'], manual: [], current_user: 'automatic' });
    assert.deepEqual(await approval(undefined), { automatic: ['public'], manual: [], current_user: 'denied' }, 'no one signed in');

    const byOther = await call('lea', 'PUT', `/api/v1/statuses/${s1.id}/interaction_policy`, { quote_approval_policy: 'nobody' });
    assert.deepEqual([byOther.status, byOther.body], [403, { error: 'This action is not allowed' }]);
    const bad = await call('kai', 'PUT', `/api/v1/statuses/${s1.id}/interaction_policy`, { quote_approval_policy: 'friends' });
    assert.deepEqual([bad.status, bad.body], [422, { error: 'Record invalid' }]);

    const followers = await call('kai', 'PUT', `/api/v1/statuses/${s1.id}/interaction_policy`, { quote_approval_policy: 'followers' });
    assert.equal(followers.status, 200, followers.text);
    assert.deepEqual(followers.body.quote_approval, { automatic: ['followers'], manual: [], current_user: 'automatic' }, 'the author may always');
    assert.deepEqual((await approval('max')).current_user, 'automatic', 'a follower');
    assert.deepEqual((await approval('lea')).current_user, 'denied', 'not a follower');
    // In a page too (the home feed of a follower, the public timeline of another).
    const home = (await call('max', 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.id === s1.id);
    assert.equal(home?.quote_approval.current_user, 'automatic');
    const pub = (await call('lea', 'GET', '/api/v1/timelines/public')).body.find((x: Json) => x.id === s1.id);
    assert.equal(pub?.quote_approval.current_user, 'denied');
    const refused = await call('lea', 'POST', '/api/v1/statuses', { status: 'may I', quoted_status_id: s1.id });
    assert.deepEqual([refused.status, refused.body], [403, { error: 'This status cannot be quoted' }]);
    assert.equal((await call('max', 'POST', '/api/v1/statuses', { status: 'a follower may', quoted_status_id: s1.id })).status, 200);

    const nobody = await call('kai', 'PATCH', `/api/v1/statuses/${s1.id}/interaction_policy`, { quote_approval_policy: 'nobody' });
    assert.deepEqual(nobody.body.quote_approval, { automatic: [], manual: [], current_user: 'automatic' });
    assert.equal((await approval('max')).current_user, 'denied');
    assert.equal((await call('max', 'POST', '/api/v1/statuses', { status: 'not any more', quoted_status_id: s1.id })).status, 403);
    assert.equal((await call('kai', 'POST', '/api/v1/statuses', { status: 'myself', quoted_status_id: s1.id })).status, 200, 'its author may');

    const atPosting = await post('kai', { status: 'nobody from the start', quote_approval_policy: 'nobody' });
    assert.deepEqual(atPosting.quote_approval, { automatic: [], manual: [], current_user: 'automatic' });
    const boost = await call('lea', 'POST', `/api/v1/statuses/${atPosting.id}/reblog`);
    assert.deepEqual(boost.body.quote_approval, { automatic: [], manual: [], current_user: 'denied' }, 'a boost shows the boosted policy');
    const secret = await post('kai', { status: 'followers only', visibility: 'private' });
    assert.deepEqual(secret.quote_approval, { automatic: [], manual: [], current_user: 'automatic' }, 'only public and unlisted are quotable');
  });

  it('streams quote_approval as each viewer’s: a follower may quote a followers-only policy, another may not', async () => {
    const nia = await m.tokenFor('nia', ['read']);
    const lea = await m.tokenFor('lea', ['read']);
    assert.equal((await call('nia', 'POST', `/api/v1/accounts/${m.id['kai']}/follow`)).status, 200);
    const [follower, stranger] = await Promise.all([openWs(s.url, nia, 'stream=public'), openWs(s.url, lea, 'stream=public')]);
    try {
      await subscribed(s, m.id['nia']!, 'public');
      await subscribed(s, m.id['lea']!, 'public');
      await post('kai', { status: 'streamed with a policy', quote_approval_policy: 'followers' });
      const seen = (frames: typeof follower.frames) =>
        framesOf(frames, 'update').find((f) => f.payload?.content === '<p>streamed with a policy</p>')?.payload?.quote_approval;
      await eventually(() => {
        assert.deepEqual(seen(follower.frames), { automatic: ['followers'], manual: [], current_user: 'automatic' });
        assert.deepEqual(seen(stranger.frames), { automatic: ['followers'], manual: [], current_user: 'denied' });
      });
      await post('kai', { status: 'streamed for anyone' });
      const open = (frames: typeof follower.frames) =>
        framesOf(frames, 'update').find((f) => f.payload?.content === '<p>streamed for anyone</p>')?.payload?.quote_approval?.current_user;
      await eventually(() => assert.deepEqual([open(follower.frames), open(stranger.frames)], ['automatic', 'automatic']));
    } finally {
      follower.close();
      stranger.close();
    }
  });
});
