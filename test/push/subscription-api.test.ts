// /api/v1/push/subscription as Mastodon clients use it: masto.js's create/fetch/update/remove round trip, form bodies,
// one subscription per access token (a new POST replaces it), the WebPushSubscription entity and its server_key
// (the app's vapid_key and v2 instance's configuration.vapid.public_key), 404 without one, the push scope, bad
// input as 400/422 JSON, and a revoked token taking its subscription with it.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createRestAPIClient } from 'masto';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';
import { api, FED_ENV, form } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { registerApp } from '../support/oauth.js';
import { newSubscriber, type PushService, startPushService } from '../support/push-service.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PUSH_SCOPES = ['read', 'write', 'follow', 'push'];

describe('push subscription API', () => {
  let s: TestServer;
  let svc: PushService;
  let m: LocalMembers;
  let serverKey: string;

  before(async () => {
    s = await startTestServer(FED_ENV);
    svc = await startPushService();
    m = await createMembers(s, ['alice', 'bob']);
    serverKey = (await api(s.url, undefined, 'GET', '/api/v2/instance')).body.configuration.vapid.public_key;
  });
  afterEach(() => s.app.db.exec('DELETE FROM web_push_subscriptions'));
  after(async () => {
    await svc.close();
    await s.stop();
  });

  it('shows one VAPID key: v2 instance, the registered app and apps/verify_credentials', async () => {
    assert.match(serverKey, /^[A-Za-z0-9_-]{87}$/, 'base64url of a 65-byte P-256 point');
    assert.equal(Buffer.from(serverKey, 'base64url')[0], 4);
    const app = await registerApp(s.url);
    assert.equal((app as unknown as { vapid_key: string }).vapid_key, serverKey);
    const token = await m.tokenFor('alice', ['read']);
    assert.equal((await api(s.url, token, 'GET', '/api/v1/apps/verify_credentials')).body.vapid_key, serverKey);
  });

  it('round-trips with masto.js: create, fetch, update, remove', async () => {
    const token = await m.tokenFor('alice', PUSH_SCOPES);
    const client = createRestAPIClient({ url: s.url, accessToken: token });
    const sub = newSubscriber(svc, 'masto');
    const created = await client.v1.push.subscription.create({
      subscription: { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
      data: { alerts: { mention: true, follow: true, favourite: false } },
      policy: 'followed',
    });
    assert.equal(created.endpoint, sub.endpoint);
    assert.equal(created.serverKey, serverKey);
    assert.equal(created.policy, 'followed');
    assert.equal(created.alerts.mention, true);
    assert.equal(created.alerts.follow, true);
    assert.equal(created.alerts.favourite, false);
    assert.equal(created.alerts.reblog, false);
    const fetched = await client.v1.push.subscription.fetch();
    assert.equal(String(fetched.id), String(created.id));
    const updated = await client.v1.push.subscription.update({ data: { alerts: { reblog: true } } });
    assert.equal(updated.alerts.reblog, true);
    assert.equal(updated.alerts.mention, false, 'as Mastodon: the data given replaces the alerts');
    assert.equal(updated.policy, 'all');
    await client.v1.push.subscription.remove();
    const gone = await api(s.url, token, 'GET', '/api/v1/push/subscription');
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body, { error: 'Record not found' });
  });

  it('takes form bodies, shows the whole entity with a numeric id, and replaces the subscription on a new POST', async () => {
    const token = await m.tokenFor('alice', ['push']);
    const sub = newSubscriber(svc, 'form');
    const fields = {
      'subscription[endpoint]': sub.endpoint,
      'subscription[keys][p256dh]': sub.p256dh,
      'subscription[keys][auth]': sub.auth,
      'subscription[standard]': 'true',
      'data[alerts][mention]': 'true',
      'data[alerts][admin.sign_up]': '1',
      'data[alerts][unknown_kind]': 'true',
      'data[policy]': 'follower',
    };
    const first = await api(s.url, token, 'POST', '/api/v1/push/subscription', form(fields));
    assert.equal(first.status, 200, first.text);
    assert.match(first.text, /^\{"id":\d+,/, 'the id is a JSON number, as Mastodon sends it');
    const idDigits = /^\{"id":(\d+),/.exec(first.text)![1];
    assert.deepEqual(
      { ...first.body, id: undefined },
      {
        id: undefined,
        endpoint: sub.endpoint,
        standard: true,
        alerts: {
          mention: true,
          status: false,
          reblog: false,
          follow: false,
          follow_request: false,
          favourite: false,
          poll: false,
          update: false,
          quote: false,
          quoted_update: false,
          'admin.sign_up': true,
          'admin.report': false,
        },
        policy: 'follower',
        server_key: serverKey,
      },
    );
    const other = newSubscriber(svc, 'form-2');
    const second = await api(s.url, token, 'POST', '/api/v1/push/subscription', {
      subscription: { endpoint: other.endpoint, keys: { p256dh: other.p256dh, auth: other.auth } },
    });
    assert.equal(second.status, 200, second.text);
    assert.notEqual(/^\{"id":(\d+),/.exec(second.text)![1], idDigits, 'a new subscription');
    assert.equal(second.body.standard, false);
    assert.equal(second.body.policy, 'all');
    const rows = await s.app.db.rows<{ endpoint: string }>('SELECT endpoint FROM web_push_subscriptions');
    assert.deepEqual(
      rows.map((r) => r.endpoint),
      [other.endpoint],
      'one subscription per token',
    );
    // Another token of the same member has a subscription of its own.
    const token2 = await m.tokenFor('alice', ['push']);
    assert.equal((await api(s.url, token2, 'GET', '/api/v1/push/subscription')).status, 404);
    // PUT takes a bare policy too (Mastodon's documentation names it so).
    const put = await api(s.url, token, 'PUT', '/api/v1/push/subscription', form({ 'data[alerts][poll]': 'true', policy: 'none' }));
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.policy, 'none');
    assert.equal(put.body.alerts.poll, true);
    assert.deepEqual((await api(s.url, token, 'DELETE', '/api/v1/push/subscription')).body, {});
    assert.equal((await api(s.url, token, 'DELETE', '/api/v1/push/subscription')).status, 200, 'DELETE without one is still {}');
    assert.equal((await api(s.url, token, 'PUT', '/api/v1/push/subscription', { data: { policy: 'all' } })).status, 404);
  });

  it('needs a member token with the push scope', async () => {
    const sub = newSubscriber(svc, 'scope');
    const body = { subscription: { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } } };
    const readOnly = await m.tokenFor('alice', ['read', 'write']);
    assert.equal((await api(s.url, readOnly, 'POST', '/api/v1/push/subscription', body)).status, 403);
    assert.equal((await api(s.url, undefined, 'GET', '/api/v1/push/subscription')).status, 401);
  });

  it('refuses bad input with 400 or 422 and a JSON error', async () => {
    const token = await m.tokenFor('alice', ['push']);
    const sub = newSubscriber(svc, 'bad');
    const keys = { p256dh: sub.p256dh, auth: sub.auth };
    const post = (body: unknown) => api(s.url, token, 'POST', '/api/v1/push/subscription', body);
    const cases: [unknown, number, RegExp][] = [
      [{}, 400, /subscription/],
      [{ subscription: { keys } }, 422, /[Ee]ndpoint/],
      [{ subscription: { endpoint: 'not a url', keys } }, 422, /Endpoint/],
      [{ subscription: { endpoint: 'http://push.example/x', keys } }, 422, /https/],
      [{ subscription: { endpoint: 'ftp://push.example/x', keys } }, 422, /https/],
      [{ subscription: { endpoint: 'https://push.example/x' } }, 422, /[Kk]eys/],
      [{ subscription: { endpoint: 'https://push.example/x', keys: { ...keys, p256dh: 'abc' } } }, 422, /p256dh/],
      [{ subscription: { endpoint: 'https://push.example/x', keys: { ...keys, p256dh: Buffer.alloc(65, 4).toString('base64url') } } }, 422, /p256dh/],
      [{ subscription: { endpoint: 'https://push.example/x', keys: { ...keys, auth: 'short' } } }, 422, /auth/],
      [{ subscription: { endpoint: 'https://push.example/x', keys, standard: 'maybe' } }, 422, /standard/],
      [{ subscription: { endpoint: 'https://push.example/x', keys }, data: { policy: 'everyone' } }, 422, /[Pp]olicy/],
      [{ subscription: { endpoint: 'https://push.example/x', keys }, data: { alerts: { mention: 'loud' } } }, 422, /mention/],
      [{ subscription: 'x' }, 422, /subscription/],
    ];
    for (const [body, status, message] of cases) {
      const r = await post(body);
      assert.equal(r.status, status, `${JSON.stringify(body)} → ${r.text}`);
      assert.match(r.body.error, message, JSON.stringify(body));
    }
    const bad = await api(s.url, token, 'POST', '/api/v1/push/subscription', form('subscription=[[['));
    assert.ok(bad.status === 400 || bad.status === 422, bad.text);
    assert.equal(typeof bad.body.error, 'string');
    assert.equal(await s.app.db.one('SELECT 1 FROM web_push_subscriptions'), undefined, 'nothing stored');
  });

  it('removes the subscription when its token is revoked', async () => {
    const app = await registerApp(s.url, { scopes: 'read push' });
    const user = await new UserStore(s.app.db).byLogin('bob');
    const token = (await new TokenStore(s.app.db).issue(app.id, user!.userId, ['push'])).token;
    const sub = newSubscriber(svc, 'revoked');
    const created = await api(s.url, token, 'POST', '/api/v1/push/subscription', {
      subscription: { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
    });
    assert.equal(created.status, 200, created.text);
    const r = await fetch(`${s.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.client_id, client_secret: app.client_secret, token }).toString(),
    });
    assert.equal(r.status, 200);
    assert.equal(await s.app.db.one('SELECT 1 FROM web_push_subscriptions'), undefined);
  });
});
