// A profile edit crosses over: a member on one Stoa changes their name, fields and avatar, and a follower's server
// (another Stoa on loopback) shows the new profile once the actor Update arrives, the avatar linked where it lives.
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
    await eventually(async () => assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${found.body.id}`)).body[0].following, true));

    const form = new FormData();
    form.append('display_name', 'Ada of A');
    form.append('fields_attributes[0][name]', 'Home');
    form.append('fields_attributes[0][value]', 'https://a.example/ada');
    form.append('avatar', new Blob([png(48, 48)], { type: 'image/png' }), 'me.png');
    const res = await fetch(`${a.url}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { Authorization: `Bearer ${tokenA}` }, body: form });
    assert.equal(res.status, 200);
    const updated = (await res.json()) as Json;

    await eventually(async () => {
      const there = (await api(b.url, tokenB, 'GET', `/api/v1/accounts/${found.body.id}`)).body;
      assert.equal(there.display_name, 'Ada of A');
      assert.equal(there.avatar, updated.avatar);
      // B keeps the link through its sanitizer, with its own rel and target.
      assert.equal(there.fields.length, 1);
      assert.equal(there.fields[0].name, 'Home');
      assert.match(there.fields[0].value, /^<a href="https:\/\/a\.example\/ada" [^>]*>https:\/\/a\.example\/ada<\/a>$/);
    });
  });
});
