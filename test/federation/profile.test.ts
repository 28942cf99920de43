// A profile edit crosses over: a member on one Stoa changes their name, fields and avatar, and a follower's server
// (another Stoa on loopback) shows the new profile once the actor Update arrives, serving the avatar through its
// own proxy (fetched once from the origin, the bytes checked to be an image; the default image when it cannot be).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { png } from '../support/media.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('profile edits between two servers', () => {
  let a: TestServer;
  let b: TestServer;
  let tokenA: string;
  let tokenB: string;

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("shows a followed member's new name, fields and avatar on the follower's server", async () => {
    const acct = `admin@${new URL(a.url).host}`;
    const found = await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=${acct}`);
    assert.equal(found.status, 200, found.text);
    assert.equal((await api(b.url, tokenB, 'POST', `/api/v1/accounts/${found.body.id}/follow`)).status, 200);
    await eventually(async () =>
      assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${found.body.id}`)).body[0].following, true),
    );

    const form = new FormData();
    form.append('display_name', 'Ada of A');
    form.append('fields_attributes[0][name]', 'Home');
    form.append('fields_attributes[0][value]', 'https://a.example/ada');
    form.append('avatar', new Blob([png(48, 48)], { type: 'image/png' }), 'me.png');
    const res = await fetch(`${a.url}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { Authorization: `Bearer ${tokenA}` }, body: form });
    assert.equal(res.status, 200);
    const updated = (await res.json()) as Json;

    let proxied = '';
    await eventually(async () => {
      const there = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/${found.body.id}`)).body;
      assert.equal(there.display_name, 'Ada of A');
      assert.match(there.avatar, new RegExp(`^${b.url}/media_proxy/accounts/${found.body.id}/avatar\\?v=[\\w-]{12}$`));
      proxied = there.avatar;
      // B keeps the link through its sanitizer, with its own rel and target.
      assert.equal(there.fields.length, 1);
      assert.equal(there.fields[0].name, 'Home');
      assert.match(there.fields[0].value, /^<a href="https:\/\/a\.example\/ada" [^>]*>https:\/\/a\.example\/ada<\/a>$/);
    });
    const original = Buffer.from(await (await fetch(updated.avatar)).arrayBuffer());
    const viaB = await fetch(proxied);
    assert.equal(viaB.status, 200);
    assert.equal(viaB.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await viaB.arrayBuffer()), original);
    const files = await b.app.db.pool.query('SELECT url FROM remote_images');
    assert.deepEqual(
      files.rows.map((r) => r.url),
      [updated.avatar],
      'kept once, by its URL',
    );
    assert.equal((await fetch(proxied)).status, 200, 'served from the kept copy');

    // A header that is not an image, and an avatar that cannot be fetched, are answered with the default images.
    await b.app.db.pool.query('UPDATE accounts SET header_remote_url = $2, avatar_remote_url = $3 WHERE id = $1', [
      found.body.id,
      `${a.url}/about`,
      'http://127.0.0.1:9/gone.png',
    ]);
    const there = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/${found.body.id}`)).body;
    for (const [url, missing] of [
      [there.header, `${b.url}/headers/original/missing.png`],
      [there.avatar, `${b.url}/avatars/original/missing.png`],
    ]) {
      const r = await fetch(url, { redirect: 'manual' });
      assert.equal(r.status, 302, url);
      assert.equal(r.headers.get('location'), missing);
    }
    assert.equal((await fetch(`${b.url}/media_proxy/accounts/${found.body.id}/passwd`)).status, 404);
  });
});
