// Lists over real HTTP: create, rename, delete; members must be followed; a list's timeline shows its members'
// posts with the replies its policy allows; exclusive lists keep their members out of home; lists are private to
// their owner; unfollowing takes an account off the owner's lists; adding and removing members answer {}.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('lists', () => {
  let s: TestServer;
  const id: Record<string, string> = {};
  const token: Record<string, string> = {};

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? token[who] : undefined, method, path, body);
  const post = async (who: string, fields: Record<string, unknown>) => (await call(who, 'POST', '/api/v1/statuses', fields)).body.id as string;
  const timeline = async (who: string, path: string) => (await call(who, 'GET', path)).body.map((x: Json) => x.id);

  before(async () => {
    s = await startTestServer();
    const members = await createMembers(s, ['ola', 'pia', 'quy', 'ray', 'sam', 'uma']);
    Object.assign(id, members.id);
    Object.assign(token, members.token);
    token['ola-read'] = await members.tokenFor('ola', ['read:lists']);
    for (const other of ['pia', 'quy']) await call('ola', 'POST', `/api/v1/accounts/${id[other]}/follow`);
  });
  after(() => s.stop());

  it('creates, lists, renames and deletes lists, private to their owner', async () => {
    const made = await call('ola', 'POST', '/api/v1/lists', { title: 'Friends' });
    assert.equal(made.status, 200);
    assert.deepEqual(Object.keys(made.body).sort(), ['exclusive', 'id', 'replies_policy', 'title']);
    assert.equal(made.body.replies_policy, 'list');
    const renamed = await call('ola', 'PUT', `/api/v1/lists/${made.body.id}`, { title: 'Close friends', replies_policy: 'none' });
    assert.deepEqual([renamed.body.title, renamed.body.replies_policy], ['Close friends', 'none']);
    assert.deepEqual(
      (await call('ola', 'GET', '/api/v1/lists')).body.map((l: Json) => l.title),
      ['Close friends'],
    );
    assert.equal((await call('pia', 'GET', `/api/v1/lists/${made.body.id}`)).status, 404);
    assert.equal((await call('pia', 'DELETE', `/api/v1/lists/${made.body.id}`)).status, 404);
    assert.equal((await call('ola', 'POST', '/api/v1/lists', { title: '  ' })).status, 422);
    assert.equal((await call('ola', 'POST', '/api/v1/lists', { title: 'x', replies_policy: 'all' })).status, 422);
    assert.equal((await call('ola-read', 'POST', '/api/v1/lists', { title: 'no scope' })).status, 403);
    const removed = await call('ola', 'DELETE', `/api/v1/lists/${made.body.id}`);
    assert.deepEqual([removed.status, removed.body], [200, {}]);
    assert.deepEqual((await call('ola', 'GET', '/api/v1/lists')).body, []);
  });

  it('holds only followed accounts, shows their posts, and follows the replies policy', async () => {
    const list = (await call('ola', 'POST', '/api/v1/lists', { title: 'Pia and Quy' })).body;
    const refused = await call('ola', 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [id['pia'], id['ray']] });
    assert.equal(refused.status, 422, 'ray is not followed');
    assert.deepEqual((await call('ola', 'GET', `/api/v1/lists/${list.id}/accounts`)).body, []);
    assert.equal((await call('ola', 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [id['pia'], id['quy']] })).status, 200);
    assert.deepEqual((await call('ola', 'GET', `/api/v1/lists/${list.id}/accounts`)).body.map((a: Json) => a.username).sort(), ['pia', 'quy']);
    assert.deepEqual(
      (await call('ola', 'GET', `/api/v1/accounts/${id['pia']}/lists`)).body.map((l: Json) => l.id),
      [list.id],
    );

    const rayPost = await post('ray', { status: 'ray is not in the list' });
    const piaPost = await post('pia', { status: 'pia posts' });
    const piaPrivate = await post('pia', { status: 'pia to followers', visibility: 'private' });
    const replyToQuy = await post('pia', { status: '@quy reply to a member', in_reply_to_id: await post('quy', { status: 'quy asks' }) });
    const replyToRay = await post('quy', { status: '@ray reply to an outsider', in_reply_to_id: rayPost });
    const listed = await timeline('ola', `/api/v1/timelines/list/${list.id}`);
    for (const x of [piaPost, piaPrivate, replyToQuy]) assert.ok(listed.includes(x));
    assert.ok(!listed.includes(rayPost));
    assert.ok(!listed.includes(replyToRay), "policy 'list': replies to non-members are left out");
    await call('ola', 'PUT', `/api/v1/lists/${list.id}`, { replies_policy: 'none' });
    assert.ok(!(await timeline('ola', `/api/v1/timelines/list/${list.id}`)).includes(replyToQuy));
    assert.equal((await call('pia', 'GET', `/api/v1/timelines/list/${list.id}`)).status, 404);

    // Exclusive: the members' posts leave home.
    assert.ok((await timeline('ola', '/api/v1/timelines/home')).includes(piaPost));
    await call('ola', 'PUT', `/api/v1/lists/${list.id}`, { exclusive: true });
    assert.ok(!(await timeline('ola', '/api/v1/timelines/home')).includes(piaPost));

    // Removing a member, and unfollowing one, take them off the list.
    await call('ola', 'DELETE', `/api/v1/lists/${list.id}/accounts`, { account_ids: [id['quy']] });
    await call('ola', 'POST', `/api/v1/accounts/${id['pia']}/unfollow`);
    assert.deepEqual((await call('ola', 'GET', `/api/v1/lists/${list.id}/accounts`)).body, []);
  });

  it("shows replies to anyone the owner follows under 'followed', and replies to the owner under every policy", async () => {
    // ola follows sam and uma; the list holds sam only; ray is not followed.
    for (const who of ['sam', 'uma']) await call('ola', 'POST', `/api/v1/accounts/${id[who]}/follow`);
    const list = (await call('ola', 'POST', '/api/v1/lists', { title: 'Sam', replies_policy: 'followed' })).body;
    assert.equal(list.replies_policy, 'followed');
    const added = await call('ola', 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [id['sam']] });
    assert.deepEqual([added.status, added.body], [200, {}]);
    const replies = {
      toFollowed: await post('sam', { status: '@uma ola follows you', in_reply_to_id: await post('uma', { status: 'uma asks' }) }),
      toStranger: await post('sam', { status: '@ray ola does not follow you', in_reply_to_id: await post('ray', { status: 'ray asks' }) }),
      toOwner: await post('sam', { status: '@ola answering the owner', in_reply_to_id: await post('ola', { status: 'ola asks' }) }),
      toSelf: await post('sam', { status: 'a thread', in_reply_to_id: await post('sam', { status: 'sam starts' }) }),
    };
    // As Mastodon's FeedManager: replies to the owner and self-threads always; the policy decides the rest.
    const expected: Record<string, string[]> = { followed: ['toFollowed', 'toOwner', 'toSelf'], list: ['toOwner', 'toSelf'], none: ['toOwner', 'toSelf'] };
    for (const [policy, kinds] of Object.entries(expected)) {
      assert.equal((await call('ola', 'PUT', `/api/v1/lists/${list.id}`, { replies_policy: policy })).body.replies_policy, policy);
      const shown = await timeline('ola', `/api/v1/timelines/list/${list.id}`);
      assert.deepEqual(
        Object.entries(replies)
          .filter(([, x]) => shown.includes(x))
          .map(([k]) => k),
        kinds,
        policy,
      );
    }

    // Removing answers {} too, with the ids in the body or (as some clients send them) in the query.
    const removed = await call('ola', 'DELETE', `/api/v1/lists/${list.id}/accounts`, { account_ids: [id['sam']] });
    assert.deepEqual([removed.status, removed.body], [200, {}]);
    await call('ola', 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [id['sam'], id['uma']] });
    const byQuery = await call('ola', 'DELETE', `/api/v1/lists/${list.id}/accounts?account_ids[]=${id['sam']}&account_ids[]=${id['uma']}`);
    assert.deepEqual([byQuery.status, byQuery.body], [200, {}]);
    assert.deepEqual((await call('ola', 'GET', `/api/v1/lists/${list.id}/accounts`)).body, []);
  });
});
