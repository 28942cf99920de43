import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import type { Json } from '../support/api.js';

describe('instance endpoints', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ REGISTRATIONS: 'approval', INSTANCE_TITLE: 'Test Stoa', LOCAL_DOMAIN: 'example.test', CONTACT_EMAIL: 'ops@example.test' });
  });
  after(() => s.stop());

  it('GET /api/v1/instance tells the truth about this server', async () => {
    const r = await fetch(`${s.url}/api/v1/instance`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /application\/json/);
    const i = (await r.json()) as Record<string, Json>;
    assert.equal(i['uri'], 'example.test');
    assert.equal(i['title'], 'Test Stoa');
    assert.match(i['version'], /^4\.3\.0 \(compatible; Stoa \d/);
    assert.equal(i['registrations'], true);
    assert.equal(i['approval_required'], true);
    assert.equal(i['email'], 'ops@example.test');
    assert.equal(i['stats'].user_count, 1); // the first admin
    assert.equal(i['contact_account'].username, 'admin');
    assert.equal(i['configuration'].statuses.max_characters, 500);
  });

  it('GET /api/v2/instance has the v2 shape', async () => {
    const i = (await (await fetch(`${s.url}/api/v2/instance`)).json()) as Record<string, Json>;
    assert.equal(i['domain'], 'example.test');
    assert.deepEqual(i['registrations'], { enabled: true, approval_required: true, reason_required: true, message: null, min_age: null, url: null });
    assert.equal(i['api_versions'].mastodon, 2);
    assert.equal(i['contact'].email, 'ops@example.test');
    assert.equal(i['contact'].account.acct, 'admin');
    assert.equal(i['configuration'].polls.max_options, 4);
    // The default avatar the account points at is really served.
    const avatar = await fetch(i['contact'].account.avatar);
    assert.equal(avatar.status, 200);
    assert.equal(avatar.headers.get('content-type'), 'image/png');
  });

  it('GET /health checks the database', async () => {
    const r = await fetch(`${s.url}/health`);
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { status: 'ok', database: 'ok' });
  });
});
