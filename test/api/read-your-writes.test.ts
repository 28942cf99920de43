// A member's own changes show in their next request on the same node, even before that node's listener has heard
// the change's NOTIFY: the node that made the change drops its cached verify_credentials as the change commits. The
// listener's socket is paused here, so only that local drop can make the counts right.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('read-your-writes on verify_credentials', () => {
  let s: TestServer;
  let m: LocalMembers;
  let listener: Socket;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['una', 'vic']);
    const client = (s.app.authEvents as unknown as { client: { connection: { stream: Socket } } | null }).client;
    assert.ok(client, 'the node listens');
    listener = client.connection.stream;
  });
  after(async () => {
    listener?.resume();
    await s?.stop();
  });

  const counts = async () => {
    const v = (await api(s.url, m.token['una'], 'GET', '/api/v1/accounts/verify_credentials')).body;
    return { statuses: v.statuses_count as number, following: v.following_count as number };
  };

  it('shows a post, a follow and a deletion at once, with the node deaf to NOTIFY', async () => {
    const before = await counts(); // cached from here on
    assert.deepEqual(await counts(), before);
    listener.pause();
    try {
      const post = await api(s.url, m.token['una'], 'POST', '/api/v1/statuses', { status: 'counted at once' });
      assert.equal(post.status, 200);
      assert.deepEqual(await counts(), { ...before, statuses: before.statuses + 1 });
      assert.equal((await api(s.url, m.token['una'], 'POST', `/api/v1/accounts/${m.id['vic']}/follow`)).status, 200);
      assert.deepEqual(await counts(), { statuses: before.statuses + 1, following: before.following + 1 });
      assert.equal((await api(s.url, m.token['una'], 'DELETE', `/api/v1/statuses/${post.body.id}`)).status, 200);
      assert.deepEqual(await counts(), { ...before, following: before.following + 1 });
    } finally {
      listener.resume();
    }
  });
});
