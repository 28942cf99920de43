// What real clients (Mastodon.py, toot, megalodon) send and expect, over real HTTP: one trailing slash on any path,
// numeric JSON ids (19 digits kept exactly), and a boost answered as reblogged by its viewer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, raw } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { registerApp, signIn } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('what real clients send', () => {
  let s: TestServer;
  let token: Record<string, string>;
  let id: Record<string, string>;

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? token[who] : undefined, method, path, body);

  before(async () => {
    s = await startTestServer();
    const members = await createMembers(s, ['kim', 'lou']);
    token = members.token;
    id = members.id;
  });
  after(() => s?.stop());

  describe('a trailing slash (Rails ignores one)', () => {
    it('reaches an API route: Mastodon.py reads the version from /api/v1/instance/', async () => {
      const r = await call(undefined, 'GET', '/api/v1/instance/');
      assert.equal(r.status, 200);
      assert.match(r.body.version, /^4\.3\.0 /);
    });

    it('reaches a parametric route, with its query string', async () => {
      const r = await call('kim', 'GET', `/api/v1/accounts/${id['lou']}/`);
      assert.equal(r.status, 200);
      assert.equal(r.body.username, 'lou');
      const rel = await call('kim', 'GET', `/api/v1/accounts/relationships/?id[]=${id['lou']}`);
      assert.equal(rel.status, 200);
      assert.equal(rel.body[0].id, id['lou']);
    });

    it("reaches a page: toot's /oauth/authorize/?… login link shows the consent flow", async () => {
      const app = await registerApp(s.url);
      const qs = new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: app.redirect_uris[0]!, scope: 'read' });
      const jar = await signIn(s.url, 'admin', s.app.firstAdmin!.password);
      const page = await fetch(`${s.url}/oauth/authorize/?${qs}`, { headers: { cookie: jar.header() }, redirect: 'manual' });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Test client/);
    });

    it('is one slash only: two, or an empty segment, name nothing', async () => {
      assert.equal((await call(undefined, 'GET', '/api/v1/instance//')).status, 404);
      assert.equal((await call('kim', 'GET', `/api/v1/accounts//${id['lou']}`)).status, 404);
      assert.equal((await fetch(`${s.url}//`)).status, 404); // a page path: the answer is an HTML 404
    });
  });

  describe('numeric JSON ids', () => {
    it('a marker given as a 19-digit number round-trips digit for digit', async () => {
      const big = '9223372036854775807'; // the largest bigint: a double would read 9223372036854775808
      const r = await call('kim', 'POST', '/api/v1/markers', raw(`{"home":{"last_read_id": ${big}},"notifications":{"last_read_id":1234}}`));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.home.last_read_id, big);
      assert.equal(r.body.notifications.last_read_id, '1234');
      const got = await call('kim', 'GET', '/api/v1/markers?timeline[]=home');
      assert.equal(got.body.home.last_read_id, big);
    });

    it('a reply given in_reply_to_id as a number is threaded under that post', async () => {
      const parent = (await call('lou', 'POST', '/api/v1/statuses', { status: 'first' })).body.id as string;
      assert.ok(parent.length > 15, 'ids are larger than a double holds exactly');
      const r = await call('kim', 'POST', '/api/v1/statuses', raw(`{"status":"@lou a reply","in_reply_to_id":${parent}}`));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.in_reply_to_id, parent);
    });

    it('media_ids given as numbers attach the uploads', async () => {
      const form = new FormData();
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
      form.append('file', new Blob([png], { type: 'image/png' }), 'dot.png');
      const up = await fetch(`${s.url}/api/v2/media`, { method: 'POST', headers: { Authorization: `Bearer ${token['kim']}` }, body: form });
      assert.equal(up.status, 200);
      const media = ((await up.json()) as { id: string }).id;
      const r = await call('kim', 'POST', '/api/v1/statuses', raw(`{"status":"a picture","media_ids":[${media}]}`));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.media_attachments[0].id, media);
    });

    it('numbers still mean numbers where they are numbers, and a bad id is a 422', async () => {
      const poll = await call('kim', 'POST', '/api/v1/statuses', raw('{"status":"pick","poll":{"options":["a","b"],"expires_in":3600}}'));
      assert.equal(poll.status, 200, poll.text);
      assert.equal(poll.body.poll.options.length, 2);
      const bad = await call('kim', 'POST', '/api/v1/markers', raw('{"home":{"last_read_id": -5}}'));
      assert.equal(bad.status, 422);
      assert.equal(typeof bad.body.error, 'string');
      const float = await call('kim', 'POST', '/api/v1/markers', raw('{"home":{"last_read_id": 12345678901234567.5}}'));
      assert.equal(float.status, 422);
      // A number where JSON wants a key stays malformed JSON, however long.
      const key = await call('kim', 'POST', '/api/v1/markers', raw('{12345678901234567890: 1}'));
      assert.equal(key.status, 400);
    });
  });

  it('a boost is answered as reblogged by the member who boosted', async () => {
    const original = (await call('lou', 'POST', '/api/v1/statuses', { status: 'boost me' })).body.id as string;
    const r = await call('kim', 'POST', `/api/v1/statuses/${original}/reblog`);
    assert.equal(r.status, 200);
    assert.equal(r.body.reblog.id, original);
    assert.equal(r.body.reblogged, true);
    assert.equal(r.body.reblog.reblogged, true);
  });
});
