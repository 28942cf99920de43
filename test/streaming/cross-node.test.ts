// Two server processes on one database: a subscriber connected to node B sees what happens on node A (the event
// raised at commit on A, heard and rendered by B); a token revoked through A closes its socket on B at once; and B
// stops cleanly with sockets open.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { registerApp } from '../support/oauth.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';
import { openSse, openWs, type WsClient, stopNodes } from '../support/streaming.js';
import { eventually, within } from '../support/wait.js';
import { AnnouncementStore } from '../../src/store/announcements.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';

describe('streaming across two nodes', () => {
  let a: TestServer;
  let b: ServerProcess;
  let m: LocalMembers;
  const sockets: WsClient[] = [];

  /**
   * B's subscription is not acknowledged (Mastodon's protocol has no acknowledgement), so posts are made on A until
   * one reaches the socket on B: from then on it is subscribed.
   */
  const untilListening = async (c: WsClient) => {
    await eventually(async () => {
      const p = await api(a.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'are you there' });
      await eventually(() => assert.ok(c.frames.some((f) => f.payload?.id === p.body.id)), 300);
    }, 15_000);
  };

  before(async () => {
    a = await startTestServer();
    b = await startServerProcess({ databaseUrl: a.databaseUrl, port: await freePort() });
    m = await createMembers(a, ['alice', 'bob']);
    assert.equal((await api(a.url, m.token['alice'], 'POST', `/api/v1/accounts/${m.id['bob']}/follow`)).status, 200);
  });
  after(() => stopNodes(sockets, a, b));

  it('a subscriber on node B sees a post, its edit, its deletion and a notification made on node A, in order', async () => {
    const c = await openWs(b.url, m.token['alice'], 'stream=user');
    sockets.push(c);
    await untilListening(c);
    // Only what concerns this post: a late answer to the probing posts may still come.
    let id = '';
    const mine = () => c.frames.filter((f) => f.payload === id || f.payload?.id === id || f.payload?.status?.id === id);
    const p = await api(a.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'from A @alice' });
    id = p.body.id;
    await eventually(() => assert.equal(mine().length, 2));
    assert.equal((await api(a.url, m.token['bob'], 'PUT', `/api/v1/statuses/${p.body.id}`, { status: 'edited on A @alice' })).status, 200);
    await eventually(() => assert.equal(mine().length, 3));
    assert.equal((await api(a.url, m.token['bob'], 'DELETE', `/api/v1/statuses/${p.body.id}`)).status, 200);
    await eventually(() => assert.equal(mine().length, 4));
    assert.deepEqual(
      mine().map((f) => f.event),
      ['update', 'notification', 'status.update', 'delete'],
    );
    const health = await fetch(`${b.url}/api/v1/streaming/health`);
    assert.equal(await health.text(), 'OK');
  });

  it('a subscriber on node B sees an announcement published on node A, its reactions and its unpublishing', async () => {
    const c = await openWs(b.url, m.token['alice'], 'stream=user');
    sockets.push(c);
    await untilListening(c);
    const store = new AnnouncementStore(a.app.db);
    const ann = await store.create({ text: 'from A', allDay: false, startsAt: null, endsAt: null }, true);
    const mine = () => c.frames.filter((f) => f.event?.startsWith('announcement'));
    await eventually(() => assert.equal(mine().length, 1));
    assert.equal(mine()[0]!.payload.id, ann.id);
    assert.equal(mine()[0]!.payload.content, '<p>from A</p>');
    const thumbs = encodeURIComponent('👍');
    assert.equal((await api(a.url, m.token['bob'], 'PUT', `/api/v1/announcements/${ann.id}/reactions/${thumbs}`)).status, 200);
    await eventually(() => assert.equal(mine().length, 2));
    assert.deepEqual(mine()[1]!.payload, { name: '👍', count: 1, announcement_id: ann.id });
    await store.setPublished(ann.id, false);
    await eventually(() => assert.equal(mine().length, 3));
    assert.deepEqual(
      mine().map((f) => [f.event, f.event === 'announcement.delete' ? f.payload : undefined]),
      [
        ['announcement', undefined],
        ['announcement.reaction', undefined],
        ['announcement.delete', ann.id],
      ],
    );
  });

  it('an SSE subscriber on node B too', async () => {
    const sse = await openSse(b.url, '/api/v1/streaming/public/local', m.token['alice']);
    assert.equal(sse.status, 200);
    await eventually(async () => {
      const p = await api(a.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'public on A' });
      await eventually(() => assert.ok(sse.events.some((e) => e.event === 'update' && e.data.id === p.body.id)), 300);
    }, 15_000);
    sse.close();
  });

  it('a token revoked through node A closes its socket on node B', async () => {
    const app = await registerApp(a.url, { scopes: 'read' });
    const alice = (await new UserStore(a.app.db).byAccountId(m.id['alice']!))!;
    const token = (await new TokenStore(a.app.db).issue(app.id, alice.userId, ['read'])).token;
    const c = await openWs(b.url, token, 'stream=user');
    sockets.push(c);
    await untilListening(c);
    const r = await fetch(`${a.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: app.client_id, client_secret: app.client_secret, token }),
    });
    assert.equal(r.status, 200);
    // The revocation answers once every node has applied it: B's socket is closed by then.
    await within(c.closed, 5_000, "node B closes the revoked token's socket");
  });
});
