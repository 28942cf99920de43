// A socket opened with `?stream=` is subscribed from the moment the client sees it open: the stream is resolved at
// the upgrade (a list's ownership read from the database before the 101), not after, so the very first post made
// right after 'open' reaches it. A refused `?stream=` still opens the socket and is told why, as Mastodon does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

describe('a WebSocket is subscribed when it opens', () => {
  let s: TestServer;
  let m: LocalMembers;
  const sockets: WsClient[] = [];
  const open = async (who: string, query: string) => {
    const c = await openWs(s.url, m.token[who], query);
    sockets.push(c);
    return c;
  };
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  /** The account's clients' subscriptions on this node, read at once (no waiting). */
  const subsNow = (who: string) => [...s.app.streaming.hub.clients].filter((c) => c.accountId === m.id[who]).flatMap((c) => [...c.subs.keys()]);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ada', 'ben', 'cy']);
    await ok('ada', 'POST', `/api/v1/accounts/${m.id['ben']}/follow`);
  });
  after(async () => {
    for (const c of sockets) c.ws.terminate();
    await s?.stop();
  });

  it('gets the very first public post made right after open', async () => {
    const c = await open('cy', 'stream=public');
    assert.deepEqual(subsNow('cy'), ['public'], 'subscribed when open');
    const p = await ok('ben', 'POST', '/api/v1/statuses', { status: 'first thing after open' });
    await eventually(() => assert.ok(framesOf(c.frames, 'update').some((f) => (f.payload as { id: string }).id === p.id)));
  });

  it('holds a list stream, checked against the database, before the client sees the socket open', async () => {
    const list = await ok('ada', 'POST', '/api/v1/lists', { title: 'friends' });
    const listId = (list as { id: string }).id;
    await ok('ada', 'POST', `/api/v1/lists/${listId}/accounts`, { account_ids: [m.id['ben']] });
    for (let i = 0; i < 5; i++) {
      const c = await open('ada', `stream=list&list=${listId}`);
      assert.ok(subsNow('ada').includes(`list\n${listId}`), `socket ${i} subscribed when open`);
      const p = await ok('ben', 'POST', '/api/v1/statuses', { status: `to the list ${i}` });
      await eventually(() => assert.ok(framesOf(c.frames, 'update').some((f) => (f.payload as { id: string }).id === p.id)));
      c.ws.terminate();
    }
  });

  it('opens a socket whose ?stream= is refused, and tells it why', async () => {
    const c = await open('cy', 'stream=list&list=12345');
    await eventually(() => assert.deepEqual(c.frames, [{ error: 'Not authorized to stream this list', status: 401, payload: undefined }]));
    const d = await open('cy', 'stream=nonsense');
    await eventually(() => assert.equal(d.frames[0]?.error, 'Unknown stream type'));
  });
});
