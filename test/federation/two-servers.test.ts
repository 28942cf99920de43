// Two Stoa servers on loopback (two ports, two databases) federating through real HTTP with real signatures:
// resolving each other's members, following (Accept), locked accounts (requests, authorize, reject), unfollowing,
// and a profile Update seen by the other side.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV } from '../support/api.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

interface Member {
  readonly server: TestServer;
  readonly token: string;
  readonly accountId: string;
  readonly host: string;
}

async function member(server: TestServer): Promise<Member> {
  const jar = await signIn(server.url, 'admin', server.app.firstAdmin!.password);
  const app = await registerApp(server.url, { scopes: 'read write follow' });
  const token = await userToken(server.url, jar, app, 'read write follow');
  const me = await api(server.url, token, 'GET', '/api/v1/accounts/verify_credentials');
  return { server, token, accountId: me.body['id'] as string, host: new URL(server.url).host };
}

describe('two Stoa servers federating', () => {
  let a: Member;
  let b: Member;
  /** A's admin as B knows it, and the reverse. */
  let aOnB: string;
  let bOnA: string;

  before(async () => {
    const [sa, sb] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [a, b] = await Promise.all([member(sa), member(sb)]);
  });
  after(async () => {
    await Promise.all([a?.server.stop(), b?.server.stop()]);
  });

  it('resolves a member of the other server by handle through WebFinger', async () => {
    const r = await api(b.server.url, b.token, 'GET', `/api/v1/accounts/lookup?acct=admin@${a.host}`);
    assert.equal(r.status, 200);
    assert.equal(r.body['acct'], `admin@${a.host}`);
    assert.equal(r.body['username'], 'admin');
    assert.equal(r.body['uri'], `${a.server.url}/users/admin`);
    assert.equal(r.body['url'], `${a.server.url}/@admin`);
    aOnB = r.body['id'] as string;
    const again = await api(b.server.url, b.token, 'GET', `/api/v1/accounts/${aOnB}`);
    assert.equal(again.body['acct'], `admin@${a.host}`);
  });

  it('an anonymous lookup of an unknown remote handle does not fetch it', async () => {
    const r = await api(a.server.url, undefined, 'GET', `/api/v1/accounts/lookup?acct=admin@${b.host}`);
    assert.equal(r.status, 404);
  });

  it('follows: the Follow is accepted by the other server and both sides see the relationship', async () => {
    const follow = await api(b.server.url, b.token, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    assert.equal(follow.status, 200);
    assert.equal(follow.body['id'], aOnB);
    assert.ok(follow.body['requested'] === true || follow.body['following'] === true);
    await eventually(async () => {
      const rel = await api(b.server.url, b.token, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`);
      assert.equal(rel.body[0]!['following'], true);
      assert.equal(rel.body[0]!['requested'], false);
    });
    const followers = await api(a.server.url, a.token, 'GET', `/api/v1/accounts/${a.accountId}/followers`);
    assert.equal(followers.status, 200);
    assert.equal(followers.body.length, 1);
    assert.equal(followers.body[0]!['acct'], `admin@${b.host}`);
    bOnA = followers.body[0]!['id'] as string;
    const rel = await api(a.server.url, a.token, 'GET', `/api/v1/accounts/relationships?id[]=${bOnA}`);
    assert.equal(rel.body[0]!['followed_by'], true);
    const following = await api(b.server.url, b.token, 'GET', `/api/v1/accounts/${b.accountId}/following`);
    assert.deepEqual(
      following.body.map((x: { acct: string }) => x.acct),
      [`admin@${a.host}`],
    );
    // The ActivityPub collection on A lists B's actor.
    const page = await fetch(`${a.server.url}/users/admin/followers?page=1`, { headers: { Accept: 'application/activity+json' } });
    const doc = (await page.json()) as { totalItems: number; orderedItems: string[] };
    assert.equal(doc.totalItems, 1);
    assert.deepEqual(doc.orderedItems, [`${b.server.url}/users/admin`]);
  });

  it('a profile update is delivered to the other server as an actor Update', async () => {
    const r = await api(a.server.url, a.token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Alice of A', note: 'Hello <b>there</b>' });
    assert.equal(r.status, 200);
    assert.equal(r.body['display_name'], 'Alice of A');
    await eventually(async () => {
      const seen = await api(b.server.url, b.token, 'GET', `/api/v1/accounts/${aOnB}`);
      assert.equal(seen.body['display_name'], 'Alice of A');
      assert.equal(seen.body['note'], '<p>Hello &#60;b&#62;there&#60;/b&#62;</p>');
    });
  });

  it('unfollows: the Undo removes the follower on the other server', async () => {
    const r = await api(b.server.url, b.token, 'POST', `/api/v1/accounts/${aOnB}/unfollow`);
    assert.equal(r.status, 200);
    assert.equal(r.body['following'], false);
    await eventually(async () => {
      const followers = await api(a.server.url, a.token, 'GET', `/api/v1/accounts/${a.accountId}/followers`);
      assert.equal(followers.body.length, 0);
    });
  });

  it('a locked account gets a follow request; authorizing it completes the follow on both sides', async () => {
    // No longer connected after the unfollow, so B is not sent this Update; A decides from its own record.
    await api(a.server.url, a.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: true });
    const follow = await api(b.server.url, b.token, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    assert.equal(follow.body['requested'], true);
    await eventually(async () => {
      const reqs = await api(a.server.url, a.token, 'GET', '/api/v1/follow_requests');
      assert.deepEqual(
        reqs.body.map((x: { acct: string }) => x.acct),
        [`admin@${b.host}`],
      );
    });
    const ok = await api(a.server.url, a.token, 'POST', `/api/v1/follow_requests/${bOnA}/authorize`);
    assert.equal(ok.status, 200);
    assert.equal(ok.body['followed_by'], true);
    assert.equal(ok.body['requested_by'], false);
    await eventually(async () => {
      const rel = await api(b.server.url, b.token, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`);
      assert.equal(rel.body[0]!['following'], true);
    });
  });

  it('rejecting a follow request tells the other server, which drops its pending request', async () => {
    await api(b.server.url, b.token, 'POST', `/api/v1/accounts/${aOnB}/unfollow`);
    await eventually(async () => {
      const followers = await api(a.server.url, a.token, 'GET', `/api/v1/accounts/${a.accountId}/followers`);
      assert.equal(followers.body.length, 0);
    });
    await api(b.server.url, b.token, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    await eventually(async () => {
      const reqs = await api(a.server.url, a.token, 'GET', '/api/v1/follow_requests');
      assert.equal(reqs.body.length, 1);
    });
    const no = await api(a.server.url, a.token, 'POST', `/api/v1/follow_requests/${bOnA}/reject`);
    assert.equal(no.status, 200);
    assert.equal(no.body['requested_by'], false);
    await eventually(async () => {
      const rel = await api(b.server.url, b.token, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`);
      assert.equal(rel.body[0]!['requested'], false);
      assert.equal(rel.body[0]!['following'], false);
    });
  });
});
