// Many viewers on the same public and hashtag streams, each shown what their own timeline would show: a viewer
// blocking the author, one the author blocks and one muting the author are left out while the others get the post
// (and all get what comes next); a viewer who favourited gets their own payload on each of their sockets, the others
// the common one; a public post's delete follows its update on both streams; unsubscribing stops one stream only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

describe('public streams with many viewers', () => {
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
