// Split domain: handles on LOCAL_DOMAIN, everything else on BASE_URL. The handle domain is a tiny node:http server
// that 301-redirects /.well-known/webfinger and /.well-known/host-meta to Stoa A's BASE_URL (what an operator
// configures on the handle domain's web server). Another Stoa (B) resolves and follows A's member by that handle,
// and a third (C) given only the actor URL finds the handle domain by WebFinger round trip.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AP = 'application/activity+json';

async function memberToken(s: TestServer): Promise<string> {
  const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
  const app = await registerApp(s.url, { scopes: 'read write follow' });
  return userToken(s.url, jar, app, 'read write follow');
}

/** The handle domain's web server: only the two discovery paths, redirected to the hosting domain. */
class HandleDomain {
  readonly seen: string[] = [];
  target = '';
  private readonly server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    this.seen.push(path);
    if (this.target && /^\/\.well-known\/(webfinger|host-meta)(\?|$)/.test(path)) {
      res.writeHead(301, { Location: this.target + path }).end();
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
    }
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('split domain (LOCAL_DOMAIN differs from the host of BASE_URL)', () => {
  const handle = new HandleDomain();
  let domain: string;
  let a: TestServer;
  let b: TestServer;
  let bToken: string;
  let aToken: string;
  let aOnB: string;

  before(async () => {
    domain = await handle.listen();
    [a, b] = await Promise.all([startTestServer({ ...FED_ENV, LOCAL_DOMAIN: domain }), startTestServer(FED_ENV)]);
    handle.target = a.url;
    assert.notEqual(new URL(a.url).host, domain);
    [aToken, bToken] = await Promise.all([memberToken(a), memberToken(b)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop(), handle.close()]);
  });

  it('answers WebFinger for acct:admin@<handle domain> with that subject and a self link on BASE_URL', async () => {
    const r = await fetch(`${a.url}/.well-known/webfinger?resource=${encodeURIComponent(`acct:admin@${domain}`)}`);
    assert.equal(r.status, 200);
    const jrd = (await r.json()) as Json;
    assert.equal(jrd.subject, `acct:admin@${domain}`);
    assert.deepEqual(
      jrd.links.find((l: Json) => l.rel === 'self'),
      { rel: 'self', type: AP, href: `${a.url}/users/admin` },
    );
    // The actor URL names the same subject: that is how other servers confirm the handle domain.
    const byUrl = await fetch(`${a.url}/.well-known/webfinger?resource=${encodeURIComponent(`${a.url}/users/admin`)}`);
    assert.equal(((await byUrl.json()) as Json).subject, `acct:admin@${domain}`);
  });

  it('answers WebFinger through the handle domain redirect', async () => {
    const resource = encodeURIComponent(`acct:admin@${domain}`);
    const hop = await fetch(`http://${domain}/.well-known/webfinger?resource=${resource}`, { redirect: 'manual' });
    assert.equal(hop.status, 301);
    assert.equal(hop.headers.get('location'), `${a.url}/.well-known/webfinger?resource=${resource}`);
    const r = await fetch(`http://${domain}/.well-known/webfinger?resource=${resource}`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/jrd\+json\b/);
    assert.equal(((await r.json()) as Json).subject, `acct:admin@${domain}`);
  });

  it('serves host-meta through the handle domain redirect, with the lrdd template on BASE_URL', async () => {
    const r = await fetch(`http://${domain}/.well-known/host-meta`);
    assert.equal(r.status, 200);
    assert.equal(r.url, `${a.url}/.well-known/host-meta`);
    assert.ok((await r.text()).includes(`<Link rel="lrdd" template="${a.url}/.well-known/webfinger?resource={uri}"/>`));
  });

  it('answers WebFinger for the instance actor as acct:<handle domain>@<handle domain>', async () => {
    const r = await fetch(`${a.url}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${domain}@${domain}`)}`);
    assert.equal(r.status, 200);
    const jrd = (await r.json()) as Json;
    assert.equal(jrd.subject, `acct:${domain}@${domain}`);
    assert.equal(jrd.links.find((l: Json) => l.rel === 'self').href, `${a.url}/actor`);
  });

  it('lets another server resolve admin@<handle domain> to the actor on BASE_URL', async () => {
    const seenBefore = handle.seen.length;
    const r = await api(b.url, bToken, 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`admin@${domain}`)}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.acct, `admin@${domain}`);
    assert.equal(r.body.username, 'admin');
    assert.equal(r.body.uri, `${a.url}/users/admin`);
    assert.equal(r.body.url, `${a.url}/@admin`);
    assert.ok(
      handle.seen.slice(seenBefore).some((p) => p.startsWith('/.well-known/webfinger?')),
      'B asked the handle domain',
    );
    aOnB = r.body.id as string;
  });

  it('lets that server follow the member; the Accept completes the follow on both sides', async () => {
    const follow = await api(b.url, bToken, 'POST', `/api/v1/accounts/${aOnB}/follow`);
    assert.equal(follow.status, 200);
    await eventually(async () => {
      const rel = await api(b.url, bToken, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB}`);
      assert.equal(rel.body[0].following, true);
      assert.equal(rel.body[0].requested, false);
    });
    const me = await api(a.url, aToken, 'GET', '/api/v1/accounts/verify_credentials');
    const followers = await api(a.url, aToken, 'GET', `/api/v1/accounts/${me.body.id}/followers`);
    assert.deepEqual(
      followers.body.map((x: Json) => x.acct),
      [`admin@${new URL(b.url).host}`],
    );
  });

  it('a server given only the actor URL confirms the handle domain by WebFinger round trip', async () => {
    const c = await startTestServer(FED_ENV);
    try {
      const account = await c.app.federation.remote.byUri(`${a.url}/users/admin`);
      assert.equal(account.domain, domain);
      assert.equal(account.username, 'admin');
      assert.equal(account.uri, `${a.url}/users/admin`);
      const token = await memberToken(c);
      const r = await api(c.url, token, 'GET', `/api/v1/accounts/${account.id}`);
      assert.equal(r.body.acct, `admin@${domain}`);
    } finally {
      await c.stop();
    }
  });
});
