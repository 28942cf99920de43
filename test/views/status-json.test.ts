// Pages write their statuses as text from kept parts (views/status-json.ts), single statuses by JSON.stringify of the
// entity. The two must agree byte for byte, key order included: each status of the home timeline, a thread, the v1
// and v2 notifications and a list, as each page wrote it, is compared with GET /api/v1/statuses/:id's text for the
// same reader at the same moment. The statuses carry what the text writes per page: a boost, a poll with a vote,
// the reader's own pinned post, favourites, a bookmark, a reaction, a muted thread, a quote, a reply, a filter match.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('status JSON written from kept parts', () => {
  let s: TestServer;
  let m: LocalMembers;
  let rootId: string;
  let listId: string;

  const call = async (who: string, method: string, path: string, body?: unknown) => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body as Json;
  };
  const post = async (who: string, fields: Record<string, unknown>): Promise<string> => (await call(who, 'POST', '/api/v1/statuses', fields)).id;
  /** The response's text exactly as sent. */
  const text = async (who: string, path: string): Promise<string> => {
    const r = await fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${m.token[who]}` } });
    assert.equal(r.status, 200, path);
    return r.text();
  };
  /** Each status of a page (and each it boosts or quotes) equals, as text, the status read on its own. */
  const sameAsAlone = async (who: string, statuses: Json[]) => {
    assert.ok(statuses.length > 0, 'an empty page proves nothing');
    for (const status of statuses) {
      const alone = await text(who, `/api/v1/statuses/${status.id}`);
      // JSON.parse keeps the keys' order: the page's text of this status, as it was written, is JSON.stringify(status).
      assert.equal(JSON.stringify(status), alone, `status ${status.id}`);
    }
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cid']);
    await call('ann', 'POST', `/api/v1/accounts/${m.id['bob']}/follow`);
    await call('ann', 'POST', `/api/v1/accounts/${m.id['cid']}/follow`);
    rootId = await post('bob', { status: 'A thread with "quotes" & <b>marks</b> for @ann', visibility: 'public', spoiler_text: 'cw ✓' });
    const reply = await post('cid', { status: '@bob a reply', in_reply_to_id: rootId, visibility: 'public' });
    await post('bob', { status: '@cid a reply to the reply', in_reply_to_id: reply, visibility: 'unlisted' });
    const poll = await call('cid', 'POST', '/api/v1/statuses', { status: 'A poll', poll: { options: ['yes', 'no'], expires_in: 3600 } });
    await call('ann', 'POST', `/api/v1/polls/${poll.poll.id}/votes`, { choices: [1] });
    await post('bob', { status: 'Quoting', quoted_status_id: reply, visibility: 'public' });
    await call('cid', 'POST', `/api/v1/statuses/${rootId}/reblog`);
    for (const action of ['favourite', 'bookmark', 'mute']) await call('ann', 'POST', `/api/v1/statuses/${rootId}/${action}`);
    await call('cid', 'PUT', `/api/v1/pleroma/statuses/${rootId}/reactions/👍`);
    const mine = await post('ann', { status: 'my own pinned post', visibility: 'public' });
    await call('ann', 'POST', `/api/v1/statuses/${mine}/pin`);
    for (const who of ['bob', 'cid']) await call(who, 'POST', `/api/v1/statuses/${mine}/favourite`);
    await call('bob', 'POST', `/api/v1/statuses/${mine}/reblog`);
    // A warning filter: the matching status is copied with `filtered` set (filter-apply.ts), and written as it is.
    await call('ann', 'POST', '/api/v2/filters', {
      title: 'polls',
      context: ['home', 'thread', 'notifications'],
      filter_action: 'warn',
      keywords_attributes: [{ keyword: 'poll' }],
    });
    listId = (await call('ann', 'POST', '/api/v1/lists', { title: 'friends' })).id;
    await call('ann', 'POST', `/api/v1/lists/${listId}/accounts`, { account_ids: [m.id['bob'], m.id['cid']] });
  });
  after(() => s?.stop());

  it('writes the home timeline as each status alone, twice (rendered, then held)', async () => {
    for (let round = 0; round < 2; round++) {
      const home = JSON.parse(await text('ann', '/api/v1/timelines/home')) as Json[];
      assert.ok(home.some((x) => x.reblog) && home.some((x) => x.poll) && home.some((x) => x.pinned === true), 'the page shows what it should');
      assert.ok(home.some((x) => x.quote?.quoted_status) && home.some((x) => x.filtered?.length), 'a quote and a filtered status');
      // A boost's page entry matches the boost read alone (which embeds the boosted status).
      await sameAsAlone('ann', home);
    }
  });

  it('writes threads, lists and notifications as each status alone', async () => {
    const context = JSON.parse(await text('ann', `/api/v1/statuses/${rootId}/context`)) as { ancestors: Json[]; descendants: Json[] };
    assert.deepEqual(Object.keys(context), ['ancestors', 'descendants']);
    await sameAsAlone('ann', context.descendants);
    await sameAsAlone('ann', JSON.parse(await text('ann', `/api/v1/timelines/list/${listId}`)) as Json[]);
    await sameAsAlone('bob', JSON.parse(await text('bob', `/api/v1/accounts/${m.id['ann']}/statuses`)) as Json[]);
    const v1 = JSON.parse(await text('ann', '/api/v1/notifications')) as Json[];
    await sameAsAlone(
      'ann',
      v1.flatMap((n) => (n.status ? [n.status] : [])),
    );
    const v2 = JSON.parse(await text('bob', '/api/v2/notifications')) as { statuses: Json[] };
    await sameAsAlone('bob', v2.statuses);
  });
});
