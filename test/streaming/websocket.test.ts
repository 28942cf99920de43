// The WebSocket endpoint over real sockets: each event kind arrives on the user stream in order (update,
// notification, status.update, delete) with Mastodon's frame shape; several streams on one socket, subscribe and
// unsubscribe messages and their errors; the token from the protocol (echoed back), the query or the header; 401
// at the upgrade for a missing or bad token; scopes as Mastodon checks them; a revoked token's socket and a
// disabled member's socket closed at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { registerApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually, within } from '../support/wait.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';

describe('streaming over WebSocket', () => {
  let s: TestServer;
  let m: LocalMembers;
  const open: WsClient[] = [];
  const ws = async (token: string | undefined, query = '', via: 'protocol' | 'query' | 'header' = 'protocol') => {
    const c = await openWs(s.url, token, query, via);
    open.push(c);
    return c;
  };
  const post = async (who: string, body: Json): Promise<Json> => {
    const r = await api(s.url, m.token[who], 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['alice', 'bob', 'carol', 'dave']);
    assert.equal((await api(s.url, m.token['alice'], 'POST', `/api/v1/accounts/${m.id['bob']}/follow`)).status, 200);
  });
  after(async () => {
    for (const c of open) c.ws.terminate();
    await s?.stop();
  });

  it('streams update, notification, status.update and delete on the user stream, in order, as Mastodon frames them', async () => {
    const c = await ws(m.token['alice'], 'stream=user');
    await subscribed(s, m.id['alice']!, 'user');
    // Each step after the previous events arrived: a post deleted before any node read it is streamed as its
    // deletion alone.
    const p = await post('bob', { status: `hello @alice` });
    await eventually(() => assert.equal(c.frames.length, 2));
    assert.equal((await api(s.url, m.token['bob'], 'PUT', `/api/v1/statuses/${p.id}`, { status: 'hello again @alice' })).status, 200);
    await eventually(() => assert.equal(c.frames.length, 3));
    assert.equal((await api(s.url, m.token['bob'], 'DELETE', `/api/v1/statuses/${p.id}`)).status, 200);
    await eventually(() => assert.ok(framesOf(c.frames, 'delete').length >= 1));
    const kinds = c.frames.map((f) => f.event);
    assert.deepEqual(kinds, ['update', 'notification', 'status.update', 'delete']);
    for (const f of c.frames) assert.deepEqual(f.stream, ['user']);
    const [update, notification, edit, del] = c.frames;
    assert.equal(update!.payload.id, p.id);
    assert.equal(update!.payload.account.id, m.id['bob']);
    assert.equal(notification!.payload.type, 'mention');
    assert.equal(notification!.payload.status.id, p.id);
    assert.match(edit!.payload.content, /hello again/);
    assert.ok(edit!.payload.edited_at);
    assert.equal(del!.payload, p.id);
  });

  it('sends the payload as a JSON string inside the frame (delete: the bare id)', async () => {
    const c = await ws(m.token['bob'], 'stream=user');
    await subscribed(s, m.id['bob']!, 'user');
    const raw: string[] = [];
    c.ws.on('message', (d) => raw.push(d.toString()));
    const p = await post('bob', { status: 'mine' });
    await eventually(() => assert.equal(raw.length, 1));
    const frame = JSON.parse(raw[0]!);
    assert.equal(typeof frame.payload, 'string');
    assert.equal(JSON.parse(frame.payload).id, p.id);
    assert.equal(JSON.parse(frame.payload).pinned, false, "the author's own rendering");
  });

  it('takes several streams on one socket, and unsubscribes', async () => {
    const c = await ws(m.token['carol']);
    c.send({ type: 'subscribe', stream: 'public:local' });
    c.send({ type: 'subscribe', stream: 'hashtag', tag: 'Cats' });
    await subscribed(s, m.id['carol']!, 'hashtag');
    await subscribed(s, m.id['carol']!, 'public:local');
    const p = await post('dave', { status: 'I like #cats' });
    await eventually(() => assert.equal(framesOf(c.frames, 'update').length, 2));
    assert.deepEqual(c.frames.map((f) => f.stream).sort(), [['hashtag', 'Cats'], ['public:local']]);
    assert.ok(c.frames.every((f) => f.payload.id === p.id));
    c.send({ type: 'unsubscribe', stream: 'public:local' });
    await eventually(() => {
      const mine = [...s.app.streaming.hub.clients].find((x) => x.accountId === m.id['carol']);
      assert.deepEqual(
        [...mine!.subs.values()].map((x) => x.channel),
        ['hashtag'],
      );
    });
    await post('dave', { status: 'more #cats' });
    await eventually(() => assert.equal(framesOf(c.frames, 'update').length, 3));
    assert.deepEqual(c.frames.at(-1)!.stream, ['hashtag', 'Cats']);
  });

  it('holds at most 100 streams on one socket, and says so past that', async () => {
    const c = await ws(m.token['alice']);
    for (let i = 0; i < 101; i++) c.send({ type: 'subscribe', stream: 'hashtag', tag: `many${i}` });
    await eventually(() => assert.ok(c.frames.some((f) => f.error?.includes('At most 100'))));
    const sizes = [...s.app.streaming.hub.clients].filter((x) => x.accountId === m.id['alice']).map((x) => x.subs.size);
    assert.equal(Math.max(...sizes), 100, 'the socket holds 100 streams');
  });

  it("answers a bad subscription with Mastodon's error messages", async () => {
    const c = await ws(m.token['carol']);
    c.send({ type: 'subscribe', stream: 'nonsense' });
    c.send({ type: 'subscribe', stream: 'hashtag' });
    c.send({ type: 'subscribe', stream: 'list' });
    c.send({ type: 'subscribe', stream: 'list', list: '12345' });
    await eventually(() => assert.equal(c.frames.length, 4));
    assert.deepEqual(c.frames.map((f) => [f.status, f.error]).sort(), [
      [400, 'Missing list name parameter'],
      [400, 'Missing tag name parameter'],
      [400, 'Unknown stream type'],
      [401, 'Not authorized to stream this list'],
    ]);
  });

  it('takes the token from the protocol (echoed back), the query or the Authorization header', async () => {
    const a = await ws(m.token['dave'], 'stream=user', 'protocol');
    assert.equal(a.ws.protocol, m.token['dave']);
    await ws(m.token['dave'], 'stream=user', 'query');
    await ws(m.token['dave'], 'stream=user', 'header');
    await subscribed(s, m.id['dave']!, 'user', 3);
  });

  it('refuses the upgrade with 401 without a valid member token', async () => {
    const refused = async (token: string | undefined) => {
      const e = await openWs(s.url, token, 'stream=public').then(
        () => assert.fail('upgraded'),
        (err: { status?: number; headers?: Record<string, string> }) => err,
      );
      assert.equal(e.status, 401);
      return e.headers!['x-error-message'];
    };
    assert.equal(await refused(undefined), 'Missing access token');
    assert.equal(await refused('not-a-token'), 'Invalid access token');
    const app = await registerApp(s.url, { scopes: 'read' });
    const appToken = (await new TokenStore(s.app.db).issue(app.id, null, ['read'])).token;
    assert.equal(await refused(appToken), 'Invalid access token');
  });

  it('checks scopes as Mastodon does: public streams any token, user read:statuses, notifications read:notifications', async () => {
    const onlyFollow = await m.tokenFor('dave', ['follow']);
    const c = await ws(onlyFollow, 'stream=user');
    c.send({ type: 'subscribe', stream: 'public' });
    c.send({ type: 'subscribe', stream: 'user:notification' });
    await eventually(() => assert.equal(c.frames.length, 2));
    assert.deepEqual(
      c.frames.map((f) => f.error),
      ['Access token does not have the required scopes', 'Access token does not have the required scopes'],
    );
    await subscribed(s, m.id['dave']!, 'public');
    // read:statuses opens the user stream, but its notifications need read:notifications.
    const statusesOnly = await m.tokenFor('carol', ['read:statuses']);
    const u = await ws(statusesOnly, 'stream=user');
    await subscribed(s, m.id['carol']!, 'user');
    assert.equal((await api(s.url, m.token['carol'], 'POST', `/api/v1/accounts/${m.id['dave']}/follow`)).status, 200);
    await post('dave', { status: 'hi @carol' });
    await eventually(() => assert.equal(framesOf(u.frames, 'update').length, 1));
    const n = await ws(await m.tokenFor('carol', ['read:notifications']), 'stream=user:notification');
    await subscribed(s, m.id['carol']!, 'user:notification');
    await post('dave', { status: 'again @carol' });
    await eventually(() => assert.equal(framesOf(n.frames, 'notification').length, 1));
    await eventually(() => assert.equal(framesOf(u.frames, 'update').length, 2));
    assert.equal(framesOf(u.frames, 'notification').length, 0);
  });

  it('closes the socket of a revoked token at once, and of a disabled member', async () => {
    const app = await registerApp(s.url, { scopes: 'read' });
    const users = new UserStore(s.app.db);
    const bob = (await users.byAccountId(m.id['bob']!))!;
    const token = (await new TokenStore(s.app.db).issue(app.id, bob.userId, ['read'])).token;
    const c = await ws(token, 'stream=user');
    const r = await fetch(`${s.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: app.client_id, client_secret: app.client_secret, token }),
    });
    assert.equal(r.status, 200);
    await within(c.closed, 5_000, 'the socket of the revoked token closes');
    await assert.rejects(openWs(s.url, token, 'stream=user'), (e: { status?: number }) => e.status === 401);

    const d = await ws(m.token['bob'], 'stream=user');
    await s.app.authEvents.publish(
      (nonce) => users.setDisabled(bob.userId, true, nonce),
      (changed) => changed,
    );
    await within(d.closed, 5_000, "the disabled member's socket closes");
  });

  it("closes a member's sockets when a moderator suspends them, and refuses new ones", async () => {
    const staff = await createMembers(s, ['warden'], { warden: 'admin' });
    const warden = await staff.tokenFor('warden', ['admin:write:accounts']);
    const c = await ws(m.token['dave'], 'stream=user');
    const r = await api(s.url, warden, 'POST', `/api/v1/admin/accounts/${m.id['dave']}/action`, { type: 'suspend' });
    assert.equal(r.status, 200, r.text);
    await within(c.closed, 5_000, "the suspended member's socket closes");
    await assert.rejects(openWs(s.url, m.token['dave'], 'stream=user'), (e: { status?: number }) => e.status === 401);
  });
});
