// Filtered notifications and streaming across two nodes: a notification the member's policy filters is not streamed
// (one it lets through is), and accepting the request on node A tells the member's socket on node B
// `notifications_merged` (Mastodon's UnfilterNotificationsWorker event, payload "1") once the merge is committed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, type WsClient, stopNodes } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

describe('notification requests and streaming across two nodes', () => {
  let a: TestServer;
  let b: ServerProcess;
  let m: LocalMembers;
  const sockets: WsClient[] = [];
  const call = (who: string, method: string, path: string, body?: unknown) => api(a.url, m.token[who], method, path, body);

  before(async () => {
    a = await startTestServer();
    b = await startServerProcess({ databaseUrl: a.databaseUrl, port: await freePort() });
    m = await createMembers(a, ['alice', 'bob', 'carol']);
    assert.equal((await call('alice', 'POST', `/api/v1/accounts/${m.id['carol']}/follow`)).status, 200);
    assert.equal((await call('alice', 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' })).status, 200);
  });
  after(() => stopNodes(sockets, a, b));

  it('streams what passes, not what is filtered, and tells node B when accepted notifications are merged', async () => {
    const c = await openWs(b.url, m.token['alice']!, 'stream=user');
    sockets.push(c);
    // B acknowledges no subscription: carol (followed) posts on A until one reaches the socket on B.
    await eventually(async () => {
      const p = await call('carol', 'POST', '/api/v1/statuses', { status: 'are you there' });
      await eventually(() => assert.ok(c.frames.some((f) => f.payload?.id === p.body.id)), 300);
    }, 15_000);

    const filtered = await call('bob', 'POST', '/api/v1/statuses', { status: '@alice from a stranger' });
    assert.equal(filtered.status, 200);
    const passes = await call('carol', 'POST', '/api/v1/statuses', { status: '@alice from a friend' });
    await eventually(() => assert.ok(framesOf(c.frames, 'notification').some((f) => f.payload?.status?.id === passes.body.id)));
    // Events are handled in the order committed: bob's, had it been streamed, would have come first.
    assert.deepEqual(
      framesOf(c.frames, 'notification').map((f) => f.payload?.account?.username),
      ['carol'],
    );

    const [req] = (await call('alice', 'GET', '/api/v1/notifications/requests')).body;
    assert.equal(req.account.username, 'bob');
    assert.equal(framesOf(c.frames, 'notifications_merged').length, 0);
    assert.equal((await call('alice', 'POST', `/api/v1/notifications/requests/${req.id}/accept`)).status, 200);
    await eventually(() => assert.equal(framesOf(c.frames, 'notifications_merged').length, 1));
    const merged = framesOf(c.frames, 'notifications_merged')[0]!;
    assert.deepEqual(merged.stream, ['user']);
    assert.equal(merged.payload, '1');
    // The merged notification is in the list, where a client re-fetching on the event finds it.
    const list = (await call('alice', 'GET', '/api/v1/notifications')).body;
    assert.ok(list.some((n: { status?: { id: string } }) => n.status?.id === filtered.body.id));
  });
});
