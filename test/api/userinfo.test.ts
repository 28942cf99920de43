// GET and POST /oauth/userinfo as Mastodon 4.4 answers them (OAuth::UserinfoController, OAuthUserinfoSerializer):
// the `profile` scope and no other, a user behind the token, the six claims; advertised as the RFC 8414 metadata's
// userinfo_endpoint, and read through a real OpenID Connect client (oauth4webapi's userInfoRequest).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { api } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { appToken, registerApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe('/oauth/userinfo', () => {
  let s: TestServer;
  let m: LocalMembers;
  let profile: string;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann']);
    profile = await m.tokenFor('ann', ['profile']);
    assert.equal((await api(s.url, m.token['ann'], 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Ann A.' })).status, 200);
  });
  after(async () => {
    await s?.stop();
  });

  it('answers GET and POST with the claims of the token’s account', async () => {
    const account = (await api(s.url, m.token['ann'], 'GET', '/api/v1/accounts/verify_credentials')).body;
    for (const method of ['GET', 'POST']) {
      const r = await api(s.url, profile, method, '/oauth/userinfo');
      assert.equal(r.status, 200, r.text);
      assert.match(r.type ?? '', /^application\/json/);
      assert.deepEqual(r.body, {
        iss: `${s.url}/`,
        sub: `${s.url}/users/ann`,
        name: 'Ann A.',
        preferred_username: 'ann',
        profile: `${s.url}/@ann`,
        picture: account.avatar,
      });
      assert.equal(r.headers.get('access-control-allow-origin'), '*', 'callable from a browser app');
    }
  });

  it('takes only the profile scope, and a user’s token', async () => {
    assert.equal((await api(s.url, undefined, 'GET', '/oauth/userinfo')).status, 401);
    const read = await api(s.url, await m.tokenFor('ann', ['read']), 'GET', '/oauth/userinfo');
    assert.equal(read.status, 403, 'read does not cover profile');
    assert.deepEqual(read.body, { error: 'This action is outside the authorized scopes' });
    const app = await registerApp(s.url, { scopes: 'read profile' });
    const appOnly = await api(s.url, await appToken(s.url, app, 'profile'), 'GET', '/oauth/userinfo');
    assert.equal(appOnly.status, 422, 'an app’s own token has no user');
    assert.deepEqual(appOnly.body, { error: 'This method requires an authenticated user' });
  });

  it('is advertised as userinfo_endpoint and read by an OpenID Connect client', async () => {
    const issuer = new URL(`${s.url}/`);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    assert.equal(as.userinfo_endpoint, `${s.url}/oauth/userinfo`);
    const client = { client_id: 'unused' };
    const claims = await oauth.processUserInfoResponse(as, client, `${s.url}/users/ann`, await oauth.userInfoRequest(as, client, profile, insecure));
    assert.equal(claims.preferred_username, 'ann');
    assert.equal(claims.sub, `${s.url}/users/ann`);
  });
});
