// Real Mastodon client libraries against the streaming API, found through the instance documents as they find it:
// masto.js 7 (v2 instance `configuration.urls.streaming`, the token in Sec-WebSocket-Protocol) and megalodon 10
// (v1 instance `urls.streaming_api`, the token in the query). Each receives update, notification, status.update
// and delete in order; and the SSE endpoints give the same events, with heartbeats.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStreamingAPIClient } from 'masto';
import megalodonModule from 'megalodon';
import WebSocket from 'ws';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSse, subscribed } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

// megalodon is CommonJS: imported from ESM, its default export is the module object, whose `default` is generator().
const generator = megalodonModule.default;

describe('streaming with Mastodon client libraries and SSE', () => {
  let s: TestServer;
  let m: LocalMembers;

  /**
   * bob mentions alice, edits, deletes: what alice's user stream must show, in this order. Each step waits until
   * the previous events arrived (`received` counts them), as a person would: a post deleted before any node read it
   * is streamed as its deletion alone.
   */
  const story = async (received: () => number): Promise<string> => {
    const p = await api(s.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'hello @alice' });
    assert.equal(p.status, 200);
    await eventually(() => assert.equal(received(), 2));
    assert.equal((await api(s.url, m.token['bob'], 'PUT', `/api/v1/statuses/${p.body.id}`, { status: 'hello there @alice' })).status, 200);
    await eventually(() => assert.equal(received(), 3));
    assert.equal((await api(s.url, m.token['bob'], 'DELETE', `/api/v1/statuses/${p.body.id}`)).status, 200);
    return p.body.id;
  };

  before(async () => {
    s = await startTestServer({ STREAMING_HEARTBEAT_MS: '200' });
    m = await createMembers(s, ['alice', 'bob']);
    assert.equal((await api(s.url, m.token['alice'], 'POST', `/api/v1/accounts/${m.id['bob']}/follow`)).status, 200);
  });
  after(() => s?.stop());

  it('advertises the streaming base in both instance documents', async () => {
    const ws = s.url.replace(/^http/, 'ws');
    assert.equal((await api(s.url, undefined, 'GET', '/api/v1/instance')).body.urls.streaming_api, ws);
    assert.equal((await api(s.url, undefined, 'GET', '/api/v2/instance')).body.configuration.urls.streaming, ws);
  });

  it('masto.js receives each event kind in order', async () => {
    const instance = (await api(s.url, undefined, 'GET', '/api/v2/instance')).body;
    const client = createStreamingAPIClient({
      streamingApiUrl: instance.configuration.urls.streaming,
      accessToken: m.token['alice'],
      implementation: WebSocket,
      retry: false,
    });
    const sub = client.user.subscribe();
    const got: Json[] = [];
    const reading = (async () => {
      for await (const e of sub) {
        got.push(e);
        if (e.event === 'delete') break;
      }
    })();
    await subscribed(s, m.id['alice']!, 'user');
    const id = await story(() => got.length);
    await reading;
    client.close();
    assert.deepEqual(
      got.map((e) => e.event),
      ['update', 'notification', 'status.update', 'delete'],
    );
    assert.equal(got[0].payload.id, id);
    assert.equal(got[1].payload.type, 'mention');
    assert.match(got[2].payload.content, /hello there/);
    assert.equal(got[3].payload, id);
  });

  it('megalodon receives each event kind in order', async () => {
    const client = generator('mastodon', s.url, m.token['alice']);
    const stream = await client.userStreaming();
    const got: [string, Json][] = [];
    for (const name of ['update', 'notification', 'status_update', 'delete']) stream.on(name, (x: Json) => got.push([name, x]));
    await new Promise<void>((resolve) => stream.once('connect', () => resolve()));
    await subscribed(s, m.id['alice']!, 'user');
    const id = await story(() => got.length);
    await eventually(() => assert.equal(got.length, 4));
    stream.stop();
    assert.deepEqual(
      got.map(([k]) => k),
      ['update', 'notification', 'status_update', 'delete'],
    );
    assert.equal(got[0]![1].id, id);
    assert.equal(got[1]![1].type, 'mention');
    assert.equal(got[3]![1], id);
  });

  it('an SSE client gets the same events, and heartbeats', async () => {
    const c = await openSse(s.url, '/api/v1/streaming/user', m.token['alice']);
    assert.equal(c.status, 200);
    assert.match(String(c.headers['content-type']), /^text\/event-stream/);
    await subscribed(s, m.id['alice']!, 'user');
    const id = await story(() => c.events.length);
    await eventually(() => assert.equal(c.events.length, 4));
    assert.deepEqual(
      c.events.map((e) => e.event),
      ['update', 'notification', 'status.update', 'delete'],
    );
    assert.equal(c.events[0]!.data.id, id);
    assert.equal(c.events[3]!.data, id);
    await eventually(() => assert.ok(c.comments.filter((x) => x === ':thump').length >= 2));
    assert.equal(c.comments[0], ':)');
    c.close();
    await eventually(() => assert.equal([...s.app.streaming.hub.clients].length, 0));
  });

  it('SSE: the token from the query, a bad token, a missing tag, health', async () => {
    const q = await openSse(s.url, `/api/v1/streaming/public/local?access_token=${m.token['bob']}`, undefined);
    assert.equal(q.status, 200);
    await subscribed(s, m.id['bob']!, 'public:local');
    q.close();
    const bad = await openSse(s.url, '/api/v1/streaming/user', 'nope');
    await bad.ended;
    assert.equal(bad.status, 401);
    assert.deepEqual(JSON.parse(bad.body), { error: 'Invalid access token' });
    const tagless = await openSse(s.url, '/api/v1/streaming/hashtag', m.token['bob']);
    await tagless.ended;
    assert.equal(tagless.status, 400);
    assert.deepEqual(JSON.parse(tagless.body), { error: 'Missing tag name parameter' });
    const health = await fetch(`${s.url}/api/v1/streaming/health`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'OK');
    assert.match(String(health.headers.get('content-type')), /^text\/plain/);
  });
});
