// Content filters on the streams: a subscriber whose `hide` filter matches a post in that stream's context (user and
// lists: home; public and hashtags: public) is not sent it, a `warn` filter's subscriber gets it with `filtered`, and
// everyone else the one shared payload. Any change to a member's filters, keywords or filtered statuses sends
// `filters_changed` (no payload, as Mastodon) on their user streams, on every node: with two server processes on one
// database, a filter made through node A is heard, and applied, by a subscriber on node B.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openSse, openWs, subscribed, type WsClient, stopNodes } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

describe('streaming with content filters', () => {
  let a: TestServer;
  let b: ServerProcess;
  let m: LocalMembers;
  const sockets: WsClient[] = [];

  const call = async (server: string, who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(server, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const post = (who: string, status: string) => call(a.url, who, 'POST', '/api/v1/statuses', { status, visibility: 'public' });
  const open = async (server: string, who: string, query: string) => {
    const c = await openWs(server, m.token[who], query);
    sockets.push(c);
    return c;
  };
  /** The updates a socket got for one status, by stream. */
  const updates = (c: WsClient, id: string) => framesOf(c.frames, 'update').filter((f) => f.payload?.id === id);
  const clearFilters = async (who: string) => {
    for (const f of await call(a.url, who, 'GET', '/api/v2/filters')) await call(a.url, who, 'DELETE', `/api/v2/filters/${f.id}`);
  };

  before(async () => {
    a = await startTestServer();
    b = await startServerProcess({ databaseUrl: a.databaseUrl, port: await freePort() });
    m = await createMembers(a, ['ann', 'bob', 'cid']);
    for (const who of ['ann', 'cid']) await call(a.url, who, 'POST', `/api/v1/accounts/${m.id['bob']}/follow`);
  });
  after(() => stopNodes(sockets, a, b));

  it('hides from and warns the subscriber whose filters match, in each stream’s context; others share the plain payload', async () => {
    await clearFilters('ann');
    const warn = await call(a.url, 'ann', 'POST', '/api/v2/filters', {
      title: 'TV',
      context: ['home', 'public'],
      filter_action: 'warn',
      keywords_attributes: [{ keyword: 'finale' }],
    });
    await call(a.url, 'ann', 'POST', '/api/v2/filters', {
      title: 'Whodunit',
      context: ['home'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'butler' }],
    });
    const ann = await open(a.url, 'ann', 'stream=user');
    ann.send({ type: 'subscribe', stream: 'public:local' });
    const cid = await open(a.url, 'cid', 'stream=user');
    await subscribed(a, m.id['ann']!, 'public:local');
    await subscribed(a, m.id['cid']!, 'user');

    const hidden = await post('bob', 'the butler did it');
    const warned = await post('bob', 'the finale tonight');
    // Events go out in order: once the later post is in, the earlier one would have been too.
    await eventually(() => assert.equal(updates(ann, warned.id).length, 2));
    await eventually(() => assert.equal(updates(cid, warned.id).length, 1));
    assert.deepEqual(
      updates(ann, hidden.id).map((f) => f.stream),
      [['public:local']],
      'hidden in home only: the hide filter is not of the public context',
    );
    assert.equal(updates(cid, hidden.id).length, 1, 'cid has no filters');
    for (const f of updates(ann, warned.id)) {
      assert.deepEqual(f.payload.filtered, [
        {
          filter: { id: warn.id, title: 'TV', context: ['home', 'public'], expires_at: null, filter_action: 'warn' },
          keyword_matches: ['finale'],
          status_matches: null,
        },
      ]);
    }
    assert.deepEqual(updates(cid, warned.id)[0]!.payload.filtered, []);
    // Notifications: a hide filter of that context keeps the notification from the stream, as from the list.
    await call(a.url, 'ann', 'POST', '/api/v2/filters', {
      title: 'Pings',
      context: ['notifications'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'ping' }],
    });
    const pinged = await post('bob', '@ann ping');
    const hello = await post('bob', '@ann hello');
    const notified = () => framesOf(ann.frames, 'notification').map((f) => f.payload.status?.id);
    await eventually(() => assert.ok(notified().includes(hello.id)));
    assert.equal(notified().includes(pinged.id), false);
    // Nothing is filtered for its author.
    const own = await open(a.url, 'bob', 'stream=user');
    await subscribed(a, m.id['bob']!, 'user');
    await call(a.url, 'bob', 'POST', '/api/v2/filters', {
      title: 'Self',
      context: ['home'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'mine' }],
    });
    const mine = await post('bob', 'mine, all mine');
    await eventually(() => assert.equal(updates(own, mine.id).length, 1));
    assert.deepEqual(updates(own, mine.id)[0]!.payload.filtered, []);
  });

  it('sends filters_changed, without a payload, for every change of a filter, keyword or filtered status', async () => {
    await clearFilters('cid');
    const others = sockets[0]!; // ann's, from the test above
    const othersBefore = framesOf(others.frames, 'filters_changed').length;
    const c = await open(a.url, 'cid', 'stream=user');
    const raw: string[] = [];
    c.ws.on('message', (d) => raw.push(d.toString()));
    const sse = await openSse(a.url, '/api/v1/streaming/user', m.token['cid']);
    await subscribed(a, m.id['cid']!, 'user', 2);
    const changed = () => framesOf(c.frames, 'filters_changed').length;
    let n = 0;
    const expectOne = async (what: string, act: () => Promise<unknown>) => {
      await act();
      n++;
      await eventually(() => assert.equal(changed(), n, what));
    };
    const target = await post('bob', 'something');
    let f: Json;
    await expectOne('create', async () => (f = await call(a.url, 'cid', 'POST', '/api/v2/filters', { title: 'x', context: ['home'] })));
    await expectOne('update', () => call(a.url, 'cid', 'PUT', `/api/v2/filters/${f.id}`, { title: 'y' }));
    let kw: Json;
    await expectOne('keyword added', async () => (kw = await call(a.url, 'cid', 'POST', `/api/v2/filters/${f.id}/keywords`, { keyword: 'k' })));
    await expectOne('keyword changed', () => call(a.url, 'cid', 'PUT', `/api/v2/filters/keywords/${kw.id}`, { keyword: 'kk' }));
    await expectOne('keyword removed', () => call(a.url, 'cid', 'DELETE', `/api/v2/filters/keywords/${kw.id}`));
    let st: Json;
    await expectOne('status added', async () => (st = await call(a.url, 'cid', 'POST', `/api/v2/filters/${f.id}/statuses`, { status_id: target.id })));
    await expectOne('status removed', () => call(a.url, 'cid', 'DELETE', `/api/v2/filters/statuses/${st.id}`));
    await expectOne('v1 filter', () => call(a.url, 'cid', 'POST', '/api/v1/filters', { phrase: 'p', context: ['home'] }));
    await expectOne('deleted', () => call(a.url, 'cid', 'DELETE', `/api/v2/filters/${f.id}`));
    const frames = raw.map((t) => JSON.parse(t)).filter((x) => x.event === 'filters_changed');
    assert.equal(frames.length, n);
    for (const x of frames) assert.deepEqual(x, { stream: ['user'], event: 'filters_changed' });
    // Server-sent events write it as Mastodon's streaming server does.
    await eventually(() => assert.equal(sse.events.filter((e) => e.event === 'filters_changed').length, n));
    assert.equal(sse.events.find((e) => e.event === 'filters_changed')!.data, 'undefined');
    sse.close();
    // Nobody else is told.
    assert.equal(framesOf(others.frames, 'filters_changed').length, othersBefore);
  });

  it('a filter made through node A is told to, and applied by, a subscriber on node B', async () => {
    await clearFilters('ann');
    const c = await open(b.url, 'ann', 'stream=user');
    // B acknowledges no subscription: posts are made on A until one reaches the socket on B.
    await eventually(async () => {
      const p = await post('bob', 'are you there');
      await eventually(() => assert.ok(updates(c, p.id).length > 0), 300);
    }, 15_000);
    const f = await call(a.url, 'ann', 'POST', '/api/v2/filters', {
      title: 'Gone',
      context: ['home'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'butler' }],
    });
    await eventually(() => assert.equal(framesOf(c.frames, 'filters_changed').length, 1));
    const hidden = await post('bob', 'the butler again');
    const plain = await post('bob', 'nothing to hide');
    await eventually(() => assert.equal(updates(c, plain.id).length, 1));
    assert.equal(updates(c, hidden.id).length, 0, 'B applied the filter made through A');
    // Changed to warn through A: B drops what it cached.
    await call(a.url, 'ann', 'PUT', `/api/v2/filters/${f.id}`, { filter_action: 'warn' });
    await eventually(() => assert.equal(framesOf(c.frames, 'filters_changed').length, 2));
    const warned = await post('bob', 'the butler, warned');
    await eventually(() => assert.equal(updates(c, warned.id).length, 1));
    assert.deepEqual(
      updates(c, warned.id)[0]!.payload.filtered.map((r: Json) => [r.filter.filter_action, r.keyword_matches]),
      [['warn', ['butler']]],
    );
  });
});
