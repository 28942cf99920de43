// Public and hashtag streams of WebSockets are uWS topics, published to once per event (api/streaming/topics.ts).
// What one publish reaches is still what each viewer's timeline shows: a viewer blocking the author, one the author
// blocks and one muting the author are left out while the others on the same topic get it (and all get what comes
// next); the author and a viewer who favourited get their own payload; unsubscribing leaves the topic. And the uWS
// rule the exclusion relies on: a socket left out of one publish keeps what an earlier publish queued for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { StreamClient } from '../../src/api/streaming/hub.js';
import { ANCHOR_TOPIC, StreamTopics, type TopicClient } from '../../src/api/streaming/topics.js';
import { uws } from '../../src/http/uws.js';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

describe('public streams published to uWS topics', () => {
  let s: TestServer;
  let m: LocalMembers;
  const sockets: Record<string, WsClient> = {};
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const post = (who: string, body: Json) => ok(who, 'POST', '/api/v1/statuses', body);
  const got = (who: string, id: string, stream = 'public') =>
    sockets[who]!.frames.some((f) => f.event === 'update' && f.payload.id === id && f.stream!.join(':') === stream);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['eve', 'ann', 'bea', 'cid', 'dan', 'bob']);
    await ok('ann', 'POST', `/api/v1/accounts/${m.id['eve']}/block`);
    await ok('eve', 'POST', `/api/v1/accounts/${m.id['bea']}/block`);
    await ok('cid', 'POST', `/api/v1/accounts/${m.id['eve']}/mute`);
    for (const who of ['eve', 'ann', 'bea', 'cid', 'dan']) {
      sockets[who] = await openWs(s.url, m.token[who], 'stream=public');
      sockets[who].send({ type: 'subscribe', stream: 'hashtag', tag: 'zoo' });
      await subscribed(s, m.id[who]!, 'hashtag');
    }
    sockets['dan2'] = await openWs(s.url, m.token['dan'], 'stream=public');
    await subscribed(s, m.id['dan']!, 'public', 2);
  });
  after(async () => {
    for (const c of Object.values(sockets)) c.ws.terminate();
    await s?.stop();
  });

  it('leaves out who blocks the author, whom the author blocks and who mutes them; the rest get it, and the next post reaches all', async () => {
    const p = await post('eve', { status: 'hello #zoo' });
    await eventually(() => {
      for (const who of ['eve', 'dan', 'dan2']) assert.ok(got(who, p.id), `${who} on public`);
      for (const who of ['eve', 'dan']) assert.ok(got(who, p.id, 'hashtag:zoo'), `${who} on the hashtag`);
    });
    const canary = await post('bob', { status: 'canary #zoo' });
    await eventually(() => {
      for (const who of ['eve', 'ann', 'bea', 'cid', 'dan', 'dan2']) assert.ok(got(who, canary.id), `${who} has the canary`);
      for (const who of ['eve', 'ann', 'bea', 'cid', 'dan']) assert.ok(got(who, canary.id, 'hashtag:zoo'), `${who} has the canary on the hashtag`);
    });
    for (const who of ['ann', 'bea', 'cid']) assert.ok(!sockets[who]!.frames.some((f) => f.payload?.id === p.id), `${who} was not shown eve's post`);
    // A public post's deletion goes to its public streams, after its update.
    await ok('bob', 'DELETE', `/api/v1/statuses/${canary.id}`);
    await eventually(() => {
      const events = sockets['ann']!.frames.filter((f) => f.payload === canary.id || f.payload?.id === canary.id).map(
        (f) => `${f.event} ${f.stream!.join(':')}`,
      );
      assert.deepEqual(events.sort(), ['delete hashtag:zoo', 'delete public', 'update hashtag:zoo', 'update public']);
    });
  });

  it('gives a viewer who favourited their own payload on every socket, the others the common one', async () => {
    const p = await post('bob', { status: 'to be edited' });
    await eventually(() => assert.ok(got('dan2', p.id)));
    await ok('dan', 'POST', `/api/v1/statuses/${p.id}/favourite`);
    await ok('bob', 'PUT', `/api/v1/statuses/${p.id}`, { status: 'edited' });
    const edit = (who: string) => framesOf(sockets[who]!.frames, 'status.update').find((f) => f.payload.id === p.id && f.stream!.join() === 'public');
    await eventually(() => {
      for (const who of ['dan', 'dan2', 'ann', 'cid']) assert.ok(edit(who), `${who} has the edit`);
    });
    assert.equal(edit('dan')!.payload.favourited, true);
    assert.equal(edit('dan2')!.payload.favourited, true, "both of dan's sockets");
    assert.equal(edit('ann')!.payload.favourited, false);
    assert.equal(edit('dan')!.payload.content, '<p>edited</p>');
  });

  it('stops sending a stream once unsubscribed, and keeps the others of the socket', async () => {
    sockets['dan']!.send({ type: 'unsubscribe', stream: 'public' });
    await eventually(() =>
      assert.ok(![...s.app.streaming.hub.clients].some((c) => c.accountId === m.id['dan'] && c.subs.has('public') && c.subs.has('hashtag\nzoo'))),
    );
    const p = await post('bob', { status: 'after the unsubscribe #zoo' });
    await eventually(() => assert.ok(got('dan', p.id, 'hashtag:zoo') && got('dan2', p.id)));
    const canary = await post('bob', { status: 'canary #zoo' });
    await eventually(() => assert.ok(got('dan', canary.id, 'hashtag:zoo')));
    assert.ok(!got('dan', p.id) && !got('dan', canary.id), 'nothing more on the public stream of that socket');
  });
});

describe('uWS topics: a socket left out of a publish keeps what was queued for it', () => {
  const app = uws.App();
  const topics = new StreamTopics();
  const clients: (TopicClient & StreamClient)[] = [];
  let listen: unknown;
  let port = 0;

  before(async () => {
    app.ws('/*', {
      open: (ws) => {
        ws.subscribe(ANCHOR_TOPIC);
        const c: TopicClient & StreamClient = {
          accountId: String(clients.length),
          userId: '',
          tokenId: '',
          appId: '',
          scopes: [],
          subs: new Map(),
          send: (_stream, _event, payload) => void ws.send(payload ?? '', false),
          close: () => ws.close(),
          joinTopic: (t) => void ws.subscribe(t),
          leaveTopic: (t) => void ws.unsubscribe(t),
        };
        clients.push(c);
      },
    });
    topics.attach((topic, message) => void app.publish(topic, message, false));
    port = await new Promise<number>((resolve) =>
      app.listen('127.0.0.1', 0, (ls) => {
        listen = ls;
        resolve(uws.us_socket_local_port(ls));
      }),
    );
  });
  after(() => {
    if (listen) uws.us_listen_socket_close(listen as never);
  });

  it('delivers an earlier publish to a socket excluded from the next one in the same turn, in order', async () => {
    const received: string[][] = [[], []];
    const peers: WebSocket[] = [];
    for (const r of received) {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
      ws.on('message', (d) => r.push(d.toString()));
      await new Promise((resolve) => ws.once('open', resolve));
      peers.push(ws);
    }
    await eventually(() => assert.equal(clients.length, 2));
    const sub = { channel: 'public', stream: ['public'], key: 'public' } as const;
    for (const c of clients) topics.join(c, sub);
    const t = [...topics.active][0]!;
    // Same synchronous turn: the first frame is still queued in uWS when socket 1 leaves for the second publish.
    topics.publish(t, 'first', []);
    topics.publish(t, 'second', ['1']);
    clients[1]!.send(['public'], 'update', 'own');
    await eventually(() => {
      assert.deepEqual(received[0], ['first', 'second']);
      assert.deepEqual(received[1], ['first', 'own']);
    });
    for (const p of peers) p.terminate();
  });
});
