// Blocking a remote account tells its server (Block), unblocking takes it back (Undo with the same Block inside);
// muting stays on this server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { deliveriesDone } from '../support/federation-wait.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('blocking a remote account', () => {
  let s: TestServer;
  let peer: FakePeer;
  let token: string;

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
    token = await userToken(s.url, jar, await registerApp(s.url, { scopes: 'read write follow' }), 'read write follow');
    await peer.addActor('zed');
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  const call = (method: string, path: string) => api(s.url, token, method, path);

  it('sends Block, then Undo of that Block; a mute sends nothing', async () => {
    const zed = (await call('GET', `/api/v1/accounts/lookup?acct=zed@${peer.host}`)).body;
    assert.equal((await call('POST', `/api/v1/accounts/${zed.id}/block`)).body.blocking, true);
    const block = await peer.waitForPost((p) => p.path === '/users/zed/inbox' && p.body?.['type'] === 'Block');
    assert.equal(block.body!['object'], peer.actor('zed').id);
    assert.equal(block.body!['actor'], `${s.url}/users/admin`);
    assert.equal((await call('POST', `/api/v1/accounts/${zed.id}/unblock`)).body.blocking, false);
    const undo = await peer.waitForPost((p) => p.path === '/users/zed/inbox' && p.body?.['type'] === 'Undo');
    const inner = undo.body!['object'] as Json;
    assert.equal(inner['id'], block.body!['id']);
    assert.equal(inner['type'], 'Block');
    const before = peer.posts().length;
    assert.equal((await call('POST', `/api/v1/accounts/${zed.id}/mute`)).body.muting, true);
    // A Block sent after the mute is the marker: once it has arrived and nothing is left queued for the peer, anything
    // the mute had queued (before it, so claimed no later) has arrived too.
    assert.equal((await call('POST', `/api/v1/accounts/${zed.id}/block`)).body.blocking, true);
    const marker = await peer.waitForPost((p) => p.body?.['type'] === 'Block' && p.body['id'] !== block.body!['id']);
    await deliveriesDone(s, peer.host);
    assert.deepEqual(
      peer
        .posts()
        .slice(before)
        .map((p) => p.body?.['id']),
      [marker.body!['id']],
      'the mute sent nothing',
    );
  });
});
