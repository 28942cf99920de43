// Edges of the status API found in review: direct messages are not counted in public account figures; a blocking
// author's replies stay out of the blocked member's thread view; deleting one's own boost unboosts; pinned and
// exclude_reblogs filters; a notification goes with a status the member can no longer read; replying to a boost
// replies to the boosted status; ids beyond the bigint range are 404.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('status API edges', () => {
  let s: TestServer;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? token[who] : undefined, method, path, body);
  const post = async (who: string, fields: Record<string, unknown>) => (await call(who, 'POST', '/api/v1/statuses', fields)).body;

  before(async () => {
    s = await startTestServer();
    const members = await createMembers(s, ['gus', 'hal', 'ivy']);
    Object.assign(id, members.id);
    Object.assign(token, members.token);
  });
  after(() => s.stop());

  it('does not count direct messages in the public statuses_count and last_status_at', async () => {
    await post('gus', { status: 'public one' });
    const before = (await call(undefined, 'GET', `/api/v1/accounts/${id['gus']}`)).body;
    await post('gus', { status: '@hal secret', visibility: 'direct' });
    const after = (await call(undefined, 'GET', `/api/v1/accounts/${id['gus']}`)).body;
    assert.equal(after.statuses_count, before.statuses_count);
    assert.equal(before.statuses_count, 1);
  });

  it('cuts a thread at a reply the viewer may not read or has muted: its replies go, and the ancestors stop there', async () => {
    const top = await post('gus', { status: 'top' });
    await call('gus', 'POST', `/api/v1/accounts/${id['ivy']}/follow`);
    const secret = await post('ivy', { status: 'followers only', visibility: 'private', in_reply_to_id: top.id });
    const under = await post('gus', { status: 'under the secret', in_reply_to_id: secret.id });
    const open = await post('ivy', { status: 'open reply', in_reply_to_id: top.id });
    const loud = await post('gus', { status: 'reply to be muted', in_reply_to_id: top.id });
    const muted = await post('ivy', { status: 'under the muted', in_reply_to_id: loud.id });
    const ids = (xs: Json[]) => xs.map((x) => x.id);
    // gus follows ivy and replies under her followers-only reply; hal follows nobody: it and all beneath it are not
    // his to see.
    const fromTop = (await call('hal', 'GET', `/api/v1/statuses/${top.id}/context`)).body;
    // As Mastodon orders them: gus's answer to his own post first (a self-reply), then the rest depth-first.
    assert.deepEqual(ids(fromTop.descendants), [loud.id, open.id, muted.id]);
    const fromUnder = (await call('hal', 'GET', `/api/v1/statuses/${under.id}/context`)).body;
    assert.deepEqual(fromUnder.ancestors, [], 'no ancestor above the one he may not read');
    // ivy sees her own reply, and what is under it.
    assert.deepEqual(ids((await call('ivy', 'GET', `/api/v1/statuses/${under.id}/context`)).body.ancestors), [top.id, secret.id]);
    // Muting gus takes his reply and its whole branch out of hal's view of the thread.
    await call('hal', 'POST', `/api/v1/accounts/${id['gus']}/mute`);
    assert.deepEqual(ids((await call('hal', 'GET', `/api/v1/statuses/${top.id}/context`)).body.descendants), [open.id]);
    await call('hal', 'POST', `/api/v1/accounts/${id['gus']}/unmute`);
  });

  it("keeps a blocking author's replies and posts out of the blocked member's view", async () => {
    const root = await post('hal', { status: 'root' });
    const reply = await post('ivy', { status: 'reply from ivy', in_reply_to_id: root.id });
    assert.ok((await call('hal', 'GET', `/api/v1/statuses/${root.id}/context`)).body.descendants.some((x: Json) => x.id === reply.id));
    await call('ivy', 'POST', `/api/v1/accounts/${id['hal']}/block`);
    assert.ok(!(await call('hal', 'GET', `/api/v1/statuses/${root.id}/context`)).body.descendants.some((x: Json) => x.id === reply.id));
    assert.deepEqual((await call('hal', 'GET', `/api/v1/accounts/${id['ivy']}/statuses`)).body, []);
    await call('ivy', 'POST', `/api/v1/accounts/${id['hal']}/unblock`);
  });

  it('unboosts when a member deletes their own boost, and replies to a boost go to the boosted status', async () => {
    const original = await post('gus', { status: 'boost this' });
    const boost = (await call('hal', 'POST', `/api/v1/statuses/${original.id}/reblog`)).body;
    const reply = await post('ivy', { status: 'replying via the boost', in_reply_to_id: boost.id });
    assert.equal(reply.in_reply_to_id, original.id);
    const deleted = await call('hal', 'DELETE', `/api/v1/statuses/${boost.id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.id, original.id);
    assert.equal(deleted.body.reblogged, false);
    assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${original.id}`)).body.reblogs_count, 0);
    assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${original.id}/reblogged_by`)).body.length, 0);
  });

  it('lists pinned statuses and leaves boosts out with exclude_reblogs', async () => {
    const a = await post('ivy', { status: 'pin me first' });
    const b = await post('ivy', { status: 'pin me second' });
    await post('ivy', { status: 'not pinned' });
    await call('ivy', 'POST', `/api/v1/statuses/${a.id}/pin`);
    await call('ivy', 'POST', `/api/v1/statuses/${b.id}/pin`);
    assert.deepEqual(
      (await call(undefined, 'GET', `/api/v1/accounts/${id['ivy']}/statuses?pinned=true`)).body.map((x: Json) => x.id),
      [b.id, a.id],
    );
    const boostable = await post('gus', { status: 'for ivy to boost' });
    await call('ivy', 'POST', `/api/v1/statuses/${boostable.id}/reblog`);
    const all = (await call(undefined, 'GET', `/api/v1/accounts/${id['ivy']}/statuses`)).body;
    assert.ok(all.some((x: Json) => x.reblog?.id === boostable.id));
    const noBoosts = (await call(undefined, 'GET', `/api/v1/accounts/${id['ivy']}/statuses?exclude_reblogs=true`)).body;
    assert.ok(!noBoosts.some((x: Json) => x.reblog));
  });

  it('drops a notification whose status the member can no longer read', async () => {
    // A private mention from someone ivy does not follow is filtered by default (notification-policy.test.ts).
    assert.equal((await call('ivy', 'PATCH', '/api/v2/notifications/policy', { for_private_mentions: 'accept' })).status, 200);
    const dm = await post('gus', { status: '@ivy just for you', visibility: 'direct' });
    const note = (await call('ivy', 'GET', '/api/v1/notifications?types[]=mention')).body.find((n: Json) => n.status.id === dm.id);
    assert.ok(note);
    await call('gus', 'PUT', `/api/v1/statuses/${dm.id}`, { status: 'nobody mentioned now' });
    assert.equal((await call('ivy', 'GET', `/api/v1/notifications/${note.id}`)).status, 404);
    assert.ok(!(await call('ivy', 'GET', '/api/v1/notifications')).body.some((n: Json) => n.status?.id === dm.id));
  });

  it('answers 404 for ids beyond the bigint range', async () => {
    for (const path of ['/api/v1/statuses/99999999999999999999', '/api/v1/statuses/9999999999999999999', '/api/v1/accounts/9999999999999999999/statuses']) {
      assert.equal((await call('gus', 'GET', path)).status, 404, path);
    }
    assert.equal((await call('gus', 'POST', '/api/v1/statuses', { status: 'x', in_reply_to_id: '9999999999999999999' })).status, 422);
  });
});
