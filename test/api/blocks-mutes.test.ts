// Blocks, mutes, markers and preferences over real HTTP between local members: a block ends follows both ways and
// hides the blocked from each other's timelines and notifications; a mute hides posts (and, by default,
// notifications), possibly only for a while; both are listed; relationships show them. Markers keep reading
// positions with a version; preferences and custom emojis answer what clients ask at start-up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('blocks, mutes, markers and preferences', () => {
  let s: TestServer;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? token[who] : undefined, method, path, body);
  const rel = async (who: string, other: string) => (await call(who, 'GET', `/api/v1/accounts/relationships?id[]=${id[other]}`)).body[0];
  const post = async (who: string, text: string) => (await call(who, 'POST', '/api/v1/statuses', { status: text })).body.id as string;
  const ids = (list: Json[]) => list.map((x: Json) => x.id);

  before(async () => {
    s = await startTestServer();
    const members = await createMembers(s, ['ana', 'ben', 'cid', 'dov']);
    Object.assign(id, members.id);
    Object.assign(token, members.token);
  });
  after(() => s.stop());

  it('a block ends follows both ways and hides the two from each other', async () => {
    await call('ana', 'POST', `/api/v1/accounts/${id['ben']}/follow`);
    await call('ben', 'POST', `/api/v1/accounts/${id['ana']}/follow`);
    const benPost = await post('ben', 'ben speaking @ana');
    assert.ok(ids((await call('ana', 'GET', '/api/v1/timelines/home')).body).includes(benPost));
    const blocked = await call('ana', 'POST', `/api/v1/accounts/${id['ben']}/block`);
    assert.equal(blocked.status, 200);
    assert.equal(blocked.body.blocking, true);
    assert.equal(blocked.body.following, false);
    assert.equal(blocked.body.followed_by, false);
    assert.equal((await rel('ben', 'ana')).blocked_by, true);
    assert.ok(!ids((await call('ana', 'GET', '/api/v1/timelines/home')).body).includes(benPost));
    assert.ok(!ids((await call('ana', 'GET', '/api/v1/timelines/public')).body).includes(benPost));
    assert.ok(!(await call('ana', 'GET', '/api/v1/notifications')).body.some((n: Json) => n.account.id === id['ben']));
    const anaPost = await post('ana', 'ana speaking');
    assert.equal((await call('ben', 'GET', `/api/v1/statuses/${anaPost}`)).status, 404, 'the blocker is invisible to the blocked');
    assert.equal((await call('ben', 'POST', `/api/v1/accounts/${id['ana']}/follow`)).status, 403);
    assert.deepEqual(ids((await call('ana', 'GET', '/api/v1/blocks')).body), [id['ben']]);
    const unblocked = await call('ana', 'POST', `/api/v1/accounts/${id['ben']}/unblock`);
    assert.equal(unblocked.body.blocking, false);
    assert.deepEqual((await call('ana', 'GET', '/api/v1/blocks')).body, []);
    assert.equal((await call('ben', 'GET', `/api/v1/statuses/${anaPost}`)).status, 200);
  });

  it('a mute hides posts and notifications, is listed, and ends with unmute or its duration', async () => {
    await call('cid', 'POST', `/api/v1/accounts/${id['dov']}/follow`);
    const before = await post('dov', 'dov talks to @cid');
    const muted = await call('cid', 'POST', `/api/v1/accounts/${id['dov']}/mute`);
    assert.equal(muted.body.muting, true);
    assert.equal(muted.body.muting_notifications, true);
    assert.equal(muted.body.following, true, 'a mute is not an unfollow');
    assert.ok(!ids((await call('cid', 'GET', '/api/v1/timelines/home')).body).includes(before));
    assert.ok(!(await call('cid', 'GET', '/api/v1/notifications')).body.some((n: Json) => n.account.id === id['dov']));
    const listed = (await call('cid', 'GET', '/api/v1/mutes')).body;
    assert.deepEqual(ids(listed), [id['dov']]);
    assert.equal(listed[0].mute_expires_at, null, 'an indefinite mute');
    // Muting posts only: notifications come back.
    const postsOnly = await call('cid', 'POST', `/api/v1/accounts/${id['dov']}/mute`, { notifications: false });
    assert.equal(postsOnly.body.muting_notifications, false);
    assert.ok((await call('cid', 'GET', '/api/v1/notifications')).body.some((n: Json) => n.account.id === id['dov']));
    await call('cid', 'POST', `/api/v1/accounts/${id['dov']}/unmute`);
    assert.ok(ids((await call('cid', 'GET', '/api/v1/timelines/home')).body).includes(before));
    // A mute with a duration shows its end, and is over once that time has passed.
    const timed = await call('cid', 'POST', `/api/v1/accounts/${id['dov']}/mute`, { duration: 3600 });
    assert.ok(Date.parse(timed.body.muting_expires_at) > Date.now() + 3_500_000);
    assert.equal((await call('cid', 'GET', '/api/v1/mutes')).body[0].mute_expires_at, timed.body.muting_expires_at);
    await s.app.db.pool.query("UPDATE mutes SET expires_at = now() - interval '1 second' WHERE account_id = $1", [id['cid']]);
    assert.equal((await rel('cid', 'dov')).muting, false);
    assert.deepEqual((await call('cid', 'GET', '/api/v1/mutes')).body, []);
    assert.equal((await call('cid', 'POST', `/api/v1/accounts/${id['dov']}/mute`, { duration: -5 })).status, 422);
    assert.equal((await call('cid', 'POST', `/api/v1/accounts/${id['cid']}/mute`)).status, 403);
    assert.equal((await call('cid', 'POST', '/api/v1/accounts/999999/mute')).status, 404);
  });

  it('keeps reading markers per timeline with a version', async () => {
    assert.deepEqual((await call('ana', 'GET', '/api/v1/markers?timeline[]=home')).body, {});
    const set = await call('ana', 'POST', '/api/v1/markers', { home: { last_read_id: '123' } });
    assert.equal(set.status, 200);
    assert.equal(set.body.home.last_read_id, '123');
    assert.equal(set.body.home.version, 1);
    await call('ana', 'POST', '/api/v1/markers', { home: { last_read_id: '456' }, notifications: { last_read_id: '7' } });
    const got = (await call('ana', 'GET', '/api/v1/markers?timeline[]=home&timeline[]=notifications')).body;
    assert.equal(got.home.last_read_id, '456');
    assert.equal(got.home.version, 2);
    assert.equal(got.notifications.last_read_id, '7');
    assert.match(got.home.updated_at, /Z$/);
    assert.deepEqual((await call('ben', 'GET', '/api/v1/markers?timeline[]=home')).body, {}, 'markers are per member');
    assert.equal((await call('ana', 'POST', '/api/v1/markers', {})).status, 422);
    assert.equal((await call('ana', 'POST', '/api/v1/markers', { home: { last_read_id: 'x' } })).status, 422);
  });

  it('answers preferences and custom emojis', async () => {
    const prefs = await call('ana', 'GET', '/api/v1/preferences');
    assert.equal(prefs.status, 200);
    assert.equal(prefs.body['posting:default:visibility'], 'public');
    assert.equal(prefs.body['reading:expand:spoilers'], false);
    assert.equal((await call(undefined, 'GET', '/api/v1/preferences')).status, 401);
    assert.deepEqual((await call(undefined, 'GET', '/api/v1/custom_emojis')).body, []);
  });
});
