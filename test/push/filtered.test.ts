// A notification the member's policy filters (Mastodon 4.3+) is never pushed: a stranger's mention stays in its
// request, while a followed account's arrives at the push service.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { newSubscriber, openPush, type PushService, startPushService } from '../support/push-service.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('push and filtered notifications', () => {
  let s: TestServer;
  let svc: PushService;
  let m: LocalMembers;

  const call = (who: string, method: string, path: string, body?: unknown) => api(s.url, m.token[who], method, path, body);

  before(async () => {
    s = await startTestServer({ ...FED_ENV, CONTACT_EMAIL: 'admin@stoa.test' });
    svc = await startPushService();
    m = await createMembers(s, ['alice', 'bob', 'carol']);
  });
  after(async () => {
    await svc.close();
    await s.stop();
  });

  it('pushes what the policy lets through and never what it filters', async () => {
    const serverKey = (await api(s.url, undefined, 'GET', '/api/v2/instance')).body.configuration.vapid.public_key;
    assert.equal((await call('alice', 'POST', `/api/v1/accounts/${m.id['carol']}/follow`)).status, 200);
    assert.equal((await call('alice', 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' })).status, 200);
    const token = await m.tokenFor('alice', ['read', 'push']);
    const sub = newSubscriber(svc, 'alice');
    const r = await api(s.url, token, 'POST', '/api/v1/push/subscription', {
      subscription: { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth }, standard: true },
      data: { alerts: { mention: true } },
    });
    assert.equal(r.status, 200, r.text);

    assert.equal((await call('bob', 'POST', '/api/v1/statuses', { status: '@alice from a stranger' })).status, 200);
    // Queued (or not) by the insert's own transaction: looked at once it answered, before any push could be sent.
    const queuedForBob = async () =>
      (
        await s.app.db.one<{ n: string }>(
          'SELECT count(*) AS n FROM push_deliveries d JOIN notifications n ON n.id = d.notification_id WHERE n.from_account_id = $1',
          [m.id['bob']],
        )
      )?.n;
    assert.equal(await queuedForBob(), '0');
    assert.equal((await call('carol', 'POST', '/api/v1/statuses', { status: '@alice from a friend' })).status, 200);
    await eventually(() => assert.ok(svc.received.length >= 1));
    // Both went to one push host, whose queue is worked in order: bob's, had it been queued, came first.
    const titles = svc.received.map((x) => openPush(x, sub, serverKey).payload.title);
    assert.deepEqual(titles, ['carol mentioned you']);
    const [req] = (await call('alice', 'GET', '/api/v1/notifications/requests')).body;
    assert.equal(req.account.username, 'bob');
  });
});
