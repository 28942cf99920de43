// Pushes as a browser's push service receives them, from a loopback push service: each notification a subscription
// asks for (alerts, policy) arrives VAPID-signed and encrypted for the subscriber (aes128gcm, or legacy aesgcm) with
// Mastodon's payload; what it does not ask for is never queued; a 4xx (410, 404, 400, 403, 413) removes the
// subscription; 429 waits for Retry-After; a 408 and a 5xx are retried.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { newSubscriber, openPush, type PushService, startPushService, type Subscriber } from '../support/push-service.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('push delivery', () => {
  let s: TestServer;
  let svc: PushService;
  let m: LocalMembers;
  let serverKey: string;

  const call = (who: string, method: string, path: string, body?: unknown) => api(s.url, m.token[who], method, path, body);
  /** Subscribers by name: their keys open what they were sent. */
  const subscribers = new Map<string, Subscriber>();
  const keysOf = (name: string) => subscribers.get(name)!;
  const queued = async () => Number((await s.app.db.one<{ n: string }>('SELECT count(*) AS n FROM push_deliveries'))!.n);

  /** A new push token of `who` subscribed with these alerts and policy; returns the token and the subscriber. */
  async function subscribe(who: string, name: string, data: Json, standard = true): Promise<{ token: string; sub: Subscriber }> {
    const token = await m.tokenFor(who, ['read', 'push']);
    const sub = newSubscriber(svc, name);
    subscribers.set(name, sub);
    const r = await api(s.url, token, 'POST', '/api/v1/push/subscription', {
      subscription: { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth }, standard },
      data,
    });
    assert.equal(r.status, 200, r.text);
    return { token, sub };
  }

  before(async () => {
    s = await startTestServer({ ...FED_ENV, CONTACT_EMAIL: 'admin@stoa.test' });
    svc = await startPushService();
    m = await createMembers(s, ['alice', 'bob', 'carol']);
    serverKey = (await api(s.url, undefined, 'GET', '/api/v2/instance')).body.configuration.vapid.public_key;
  });
  afterEach(async () => {
    await s.app.db.exec('DELETE FROM web_push_subscriptions');
    await s.app.db.exec('DELETE FROM follows');
    svc.received.length = 0;
    svc.answer = () => ({ status: 201 });
  });
  after(async () => {
    await svc.close();
    await s.stop();
  });

  it('pushes a mention, signed and encrypted (aes128gcm), with the payload Mastodon sends', async () => {
    const { token, sub } = await subscribe('alice', 'mention', { alerts: { mention: true } });
    await call('bob', 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Bob B.' });
    const text = `@alice ${'word '.repeat(40)}end`;
    const post = await call('bob', 'POST', '/api/v1/statuses', { status: text });
    assert.equal(post.status, 200, post.text);
    await eventually(() => assert.equal(svc.received.length, 1));
    const r = svc.received[0]!;
    assert.equal(r.path, '/push/mention');
    assert.equal(r.headers['content-encoding'], 'aes128gcm');
    assert.equal(r.headers['content-type'], 'application/octet-stream');
    assert.equal(r.headers.ttl, '172800');
    assert.equal(r.headers.urgency, 'normal');
    const opened = openPush(r, sub, serverKey);
    assert.equal(opened.claims.sub, 'mailto:admin@stoa.test');
    const [note] = (await api(s.url, token, 'GET', '/api/v1/notifications')).body as Json[];
    assert.equal(note.type, 'mention');
    assert.match(opened.text, new RegExp(`"notification_id":${note.id}[,}]`), 'notification_id is the id, as a JSON number');
    const p = opened.payload;
    assert.equal(p.access_token, token);
    assert.equal(p.preferred_locale, 'en');
    assert.equal(p.notification_type, 'mention');
    assert.equal(p.title, 'Bob B. mentioned you');
    assert.equal(p.icon, note.account.avatar_static);
    assert.ok(p.body.length <= 140 && p.body.endsWith('...'), p.body);
    assert.ok(p.body.startsWith('@alice word word'), p.body);
    // The token in the payload is the client's own: it reads the notification with it.
    assert.equal((await api(s.url, p.access_token, 'GET', `/api/v1/notifications/${note.id}`)).body.type, 'mention');
    await eventually(async () => assert.equal(await queued(), 0), 2_000);
  });

  it('sends the legacy aesgcm encoding when the subscription is not standard', async () => {
    const { sub } = await subscribe('alice', 'legacy', { alerts: { follow: true } }, false);
    assert.equal((await call('carol', 'POST', `/api/v1/accounts/${m.id['alice']}/follow`)).status, 200);
    await eventually(() => assert.equal(svc.received.length, 1));
    const r = svc.received[0]!;
    assert.equal(r.headers['content-encoding'], 'aesgcm');
    assert.match(String(r.headers.encryption), /^salt=[A-Za-z0-9_-]+$/);
    const { payload } = openPush(r, sub, serverKey);
    assert.equal(payload.notification_type, 'follow');
    assert.equal(payload.title, 'carol is now following you');
  });

  it('queues only the types the subscription alerts on', async () => {
    await subscribe('alice', 'alerts', { alerts: { favourite: false, reblog: true } });
    const post = (await call('alice', 'POST', '/api/v1/statuses', { status: 'a post to like' })).body;
    assert.equal((await call('bob', 'POST', `/api/v1/statuses/${post.id}/favourite`)).status, 200);
    assert.equal(await queued(), 0, 'a favourite is not pushed: nothing is queued in its transaction');
    assert.equal((await call('bob', 'POST', `/api/v1/statuses/${post.id}/reblog`)).status, 200);
    await eventually(() => assert.equal(svc.received.length, 1));
    assert.equal(openPush(svc.received[0]!, keysOf('alerts'), serverKey).payload.notification_type, 'reblog');
  });

  it('applies the policy: followed, follower and none', async () => {
    await subscribe('alice', 'followed', { alerts: { mention: true }, policy: 'followed' });
    await call('bob', 'POST', '/api/v1/statuses', { status: '@alice from someone alice does not follow' });
    assert.equal(await queued(), 0);
    assert.equal((await call('alice', 'POST', `/api/v1/accounts/${m.id['bob']}/follow`)).status, 200);
    await call('bob', 'POST', '/api/v1/statuses', { status: '@alice now alice follows me' });
    await eventually(() => assert.equal(svc.received.length, 1));
    assert.match(openPush(svc.received[0]!, keysOf('followed'), serverKey).payload.body, /now alice follows me/);

    await subscribe('alice', 'follower', { alerts: { mention: true }, policy: 'follower' });
    await s.app.db.exec('DELETE FROM web_push_subscriptions WHERE endpoint LIKE $1', ['%/followed']);
    await call('bob', 'POST', '/api/v1/statuses', { status: '@alice bob does not follow alice' });
    assert.equal(await queued(), 0);
    assert.equal((await call('carol', 'POST', `/api/v1/accounts/${m.id['alice']}/follow`)).status, 200);
    await call('carol', 'POST', '/api/v1/statuses', { status: '@alice carol follows alice' });
    await eventually(() => assert.equal(svc.received.length, 2));
    assert.match(openPush(svc.received[1]!, keysOf('follower'), serverKey).payload.body, /carol follows alice/);

    await s.app.db.exec('DELETE FROM web_push_subscriptions');
    await subscribe('alice', 'none', { alerts: { mention: true }, policy: 'none' });
    await call('carol', 'POST', '/api/v1/statuses', { status: '@alice policy none' });
    assert.equal(await queued(), 0);
  });

  it('does not push what the member would not see: a notification from someone whose notifications they mute', async () => {
    await subscribe('alice', 'muted', { alerts: { mention: true } });
    assert.equal((await call('alice', 'POST', `/api/v1/accounts/${m.id['bob']}/mute`, { notifications: true })).status, 200);
    await call('bob', 'POST', '/api/v1/statuses', { status: '@alice you muted me' });
    await call('carol', 'POST', '/api/v1/statuses', { status: '@alice from carol' });
    await eventually(async () => {
      assert.equal(await queued(), 0);
      assert.equal(svc.received.length, 1);
    });
    assert.match(openPush(svc.received[0]!, keysOf('muted'), serverKey).payload.body, /from carol/);
    await s.app.db.exec('DELETE FROM mutes');
  });

  // 410 is Mozilla's answer for an expired subscription, 404 FCM's; 400, 403 and 413 will not change either: each is
  // removed after one attempt (as Mastodon removes on any 4xx but 408 and 429), so nothing retries a dead endpoint.
  for (const status of [410, 404, 400, 403, 413]) {
    it(`removes the subscription when the push service answers ${status}, and sends it nothing more`, async () => {
      const { token } = await subscribe('alice', `gone-${status}`, { alerts: { mention: true } });
      svc.answer = () => ({ status });
      await call('bob', 'POST', '/api/v1/statuses', { status: '@alice are you there' });
      await eventually(async () => assert.equal((await api(s.url, token, 'GET', '/api/v1/push/subscription')).status, 404));
      assert.equal(svc.received.length, 1);
      assert.equal(await queued(), 0);
      await call('bob', 'POST', '/api/v1/statuses', { status: '@alice still there?' });
      assert.equal(await queued(), 0, 'nothing is queued for a removed subscription');
      assert.equal(svc.received.length, 1);
    });
  }

  it('retries a 408 (the push service timed out) and keeps the subscription', async () => {
    const { token } = await subscribe('alice', 'slow', { alerts: { mention: true } });
    const answers = [{ status: 408 }, { status: 201 }];
    svc.answer = () => answers.shift() ?? { status: 201 };
    await call('bob', 'POST', '/api/v1/statuses', { status: '@alice after a timeout' });
    await eventually(() => assert.equal(svc.received.length, 2), 10_000);
    assert.equal(openPush(svc.received[1]!, keysOf('slow'), serverKey).payload.notification_type, 'mention');
    assert.equal((await api(s.url, token, 'GET', '/api/v1/push/subscription')).status, 200);
  });

  it('waits for Retry-After on 429, and retries a 5xx', async () => {
    await subscribe('alice', 'busy', { alerts: { mention: true } });
    const answers = [{ status: 429, headers: { 'Retry-After': '1' } }, { status: 503 }, { status: 201 }];
    svc.answer = () => answers.shift() ?? { status: 201 };
    await call('bob', 'POST', '/api/v1/statuses', { status: '@alice once the service has room' });
    await eventually(() => assert.equal(svc.received.length, 3), 10_000);
    const [first, second, third] = svc.received;
    assert.ok(second!.at - first!.at >= 950, `the retry waited ${second!.at - first!.at} ms for Retry-After: 1`);
    assert.ok(third!.at > second!.at);
    assert.equal(openPush(third!, keysOf('busy'), serverKey).payload.notification_type, 'mention');
    await eventually(async () => assert.equal(await queued(), 0), 2_000);
  });
});
