// Streams filter each event as the REST timelines do: a blocked author's post, a muted account's, a private post
// to a non-follower, a direct post to a third party and a remote history import never arrive (each checked by a
// canary posted after it: once the canary is in, whatever was filtered would have been too); a history post's
// promotion is an update; a list stream keeps its replies policy; a direct post is a conversation on the direct
// stream.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';
import { StatusStore } from '../../src/store/statuses.js';

describe('streaming filters as the timelines do', () => {
  let s: TestServer;
  let m: LocalMembers;
  let alice: WsClient;
  let canaries = 0;
  const sockets: WsClient[] = [];
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const post = (who: string, body: Json) => ok(who, 'POST', '/api/v1/statuses', body);
  /** Posts a public canary by bob and waits for it on every named stream of the socket: what came before is in. */
  const canary = async (c: WsClient, streams: string[][]) => {
    const p = await post('bob', { status: `canary ${++canaries} #zoo` });
    await eventually(() => {
      for (const st of streams)
        assert.ok(
          c.frames.some((f) => f.event === 'update' && f.payload.id === p.id && f.stream!.join() === st.join()),
          `canary on ${st}`,
        );
    });
    return p.id as string;
  };
  const updates = (c: WsClient) => framesOf(c.frames, 'update').map((f) => `${f.stream!.join(':')} ${f.payload.content.replace(/<[^>]+>/g, '')}`);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['alice', 'bob', 'carol', 'eve', 'frank', 'dave']);
    for (const x of ['bob', 'eve', 'frank']) await ok('alice', 'POST', `/api/v1/accounts/${m.id[x]}/follow`);
    alice = await openWs(s.url, m.token['alice'], 'stream=user');
    sockets.push(alice);
    alice.send({ type: 'subscribe', stream: 'public' });
    alice.send({ type: 'subscribe', stream: 'hashtag', tag: 'zoo' });
    await subscribed(s, m.id['alice']!, 'hashtag');
    await subscribed(s, m.id['alice']!, 'public');
  });
  after(async () => {
    for (const c of sockets) c.ws.terminate();
    await s?.stop();
  });

  it('leaves out a blocked author, a muted account, a private post to a non-follower and a direct post to someone else', async () => {
    await ok('alice', 'POST', `/api/v1/accounts/${m.id['eve']}/block`);
    await ok('alice', 'POST', `/api/v1/accounts/${m.id['frank']}/mute`);
    await post('eve', { status: 'blocked #zoo' });
    await post('frank', { status: 'muted #zoo' });
    await post('carol', { status: 'private to followers', visibility: 'private' });
    await post('dave', { status: `@carol just us`, visibility: 'direct' });
    await canary(alice, [['user'], ['public'], ['hashtag', 'zoo']]);
    assert.deepEqual(updates(alice).sort(), ['hashtag:zoo canary 1 #zoo', 'public canary 1 #zoo', 'user canary 1 #zoo']);
  });

  it('the private post reaches a follower, and the direct post its addressee as update and conversation', async () => {
    const carolSocket = await openWs(s.url, m.token['carol'], 'stream=user');
    sockets.push(carolSocket);
    carolSocket.send({ type: 'subscribe', stream: 'direct' });
    const daveSocket = await openWs(s.url, m.token['dave'], 'stream=user');
    sockets.push(daveSocket);
    await subscribed(s, m.id['carol']!, 'direct');
    await subscribed(s, m.id['dave']!, 'user');
    await ok('dave', 'POST', `/api/v1/accounts/${m.id['carol']}/follow`);
    const priv = await post('carol', { status: 'for followers', visibility: 'private' });
    const dm = await post('dave', { status: '@carol between us', visibility: 'direct' });
    await eventually(() => assert.ok(framesOf(daveSocket.frames, 'update').some((f) => f.payload.id === priv.id)));
    await eventually(() => assert.ok(framesOf(carolSocket.frames, 'conversation').length === 1));
    const conv = framesOf(carolSocket.frames, 'conversation')[0]!;
    assert.deepEqual(conv.stream, ['direct']);
    assert.equal(conv.payload.last_status.id, dm.id);
    assert.deepEqual(
      conv.payload.accounts.map((a: Json) => a.id),
      [m.id['dave']],
    );
    await eventually(() => assert.ok(framesOf(carolSocket.frames, 'update').some((f) => f.payload.id === dm.id)));
    await canary(alice, [['user']]);
    assert.ok(!alice.frames.some((f) => f.payload?.id === priv.id || f.payload?.id === dm.id));
  });

  it('never streams a remote history import; its promotion by delivery is an update', async () => {
    const statuses = new StatusStore(s.app.db);
    const { status } = await statuses.create({
      accountId: m.id['bob']!,
      uri: `${s.url}/history/1`,
      url: null,
      text: 'from the archive',
      content: '<p>from the archive #zoo</p>',
      spoilerText: '',
      visibility: 'public',
      sensitive: false,
      language: null,
      inReplyToId: null,
      inReplyToAccountId: null,
      inReplyToUri: null,
      local: false,
      mentionIds: [],
      tags: ['zoo'],
      history: true,
    });
    await canary(alice, [['user'], ['public'], ['hashtag', 'zoo']]);
    assert.ok(!alice.frames.some((f) => f.payload?.id === status.id));
    assert.equal(await statuses.promote(status.id), true);
    await eventually(() => assert.ok(alice.frames.some((f) => f.event === 'update' && f.payload.id === status.id && f.stream!.join() === 'user')));
  });

  it("a deleted post's boost is deleted from the feeds that showed it, under the boost's id", async () => {
    // alice follows bob, not dave: dave's post reaches her home only as bob's boost.
    const original = await post('dave', { status: 'boosted, then deleted' });
    const boost = await ok('bob', 'POST', `/api/v1/statuses/${original.id}/reblog`);
    await eventually(() => assert.ok(alice.frames.some((f) => f.event === 'update' && f.stream!.join() === 'user' && f.payload.id === boost.id)));
    await ok('dave', 'DELETE', `/api/v1/statuses/${original.id}`);
    await eventually(() =>
      assert.ok(
        alice.frames.some((f) => f.event === 'delete' && f.stream!.join() === 'user' && f.payload === boost.id),
        'delete of the boost on the user stream',
      ),
    );
  });

  it('a list stream keeps its replies policy', async () => {
    const list = await ok('alice', 'POST', '/api/v1/lists', { title: 'bobs', replies_policy: 'none' });
    await ok('alice', 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [m.id['bob']] });
    const c = await openWs(s.url, m.token['alice'], `stream=list&list=${list.id}`);
    sockets.push(c);
    await subscribed(s, m.id['alice']!, 'list');
    const top = await post('carol', { status: 'a thread' });
    const reply = await post('bob', { status: '@carol a reply', in_reply_to_id: top.id });
    const own = await post('bob', { status: 'top-level' });
    await eventually(() => assert.ok(framesOf(c.frames, 'update').some((f) => f.payload.id === own.id)));
    assert.ok(!c.frames.some((f) => f.payload?.id === reply.id), 'a reply to someone outside the list, policy none');
    assert.deepEqual(framesOf(c.frames, 'update')[0]!.stream, ['list', list.id]);
    // The same reply under the `followed` policy (alice does not follow carol) stays out too; under `list` with
    // carol in the list it comes in.
    await ok('alice', 'PUT', `/api/v1/lists/${list.id}`, { title: 'bobs', replies_policy: 'list' });
    await ok('alice', 'POST', `/api/v1/accounts/${m.id['carol']}/follow`);
    await ok('alice', 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [m.id['carol']] });
    const reply2 = await post('bob', { status: '@carol another reply', in_reply_to_id: top.id });
    await eventually(() => assert.ok(framesOf(c.frames, 'update').some((f) => f.payload.id === reply2.id)));
  });
});
