import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';
import { api, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';

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

describe('instance counts', () => {
  let s: TestServer;
  // Counted on every request here; by default they are read at most once a minute (INSTANCE_STATS_MAX_AGE_MS).
  before(async () => {
    s = await startTestServer({ INSTANCE_STATS_MAX_AGE_MS: '0' });
  });
  after(() => s.stop());

  const stats = async () => (await api(s.url, undefined, 'GET', '/api/v1/instance')).body.stats;
  const localPosts = async (version: string) => (await api(s.url, undefined, 'GET', `/nodeinfo/${version}`)).body.usage.localPosts;

  it('status_count and NodeInfo localPosts count local posts, domain_count the servers we know an account of', async () => {
    assert.deepEqual(await stats(), { user_count: 1, status_count: 0, domain_count: 0 });
    const { token } = await createMembers(s, ['kim']);
    const post = async (fields: Record<string, unknown>) => (await api(s.url, token['kim'], 'POST', '/api/v1/statuses', fields)).body.id as string;
    const kept = await post({ status: 'one' });
    const gone = await post({ status: 'two' });
    await post({ status: 'a direct one', visibility: 'direct' });
    assert.equal((await api(s.url, token['kim'], 'DELETE', `/api/v1/statuses/${gone}`)).status, 200);
    assert.equal((await api(s.url, token['kim'], 'POST', `/api/v1/statuses/${kept}/reblog`)).status, 200);
    // Counted as Mastodon counts statuses_count: the boost is a post, the direct one and the deleted one are not.
    assert.deepEqual(await stats(), { user_count: 2, status_count: 2, domain_count: 0 });
    for (const v of ['2.0', '2.1']) assert.equal(await localPosts(v), 2, v);

    await s.app.db.exec(
      `INSERT INTO accounts (username, domain, uri) VALUES
         ('ann', 'remote.example', 'https://remote.example/users/ann'),
         ('bo', 'Remote.Example', 'https://remote.example/users/bo'),
         ('cy', 'other.example', 'https://other.example/users/cy')`,
    );
    assert.equal((await stats()).domain_count, 2);
    const v2 = (await api(s.url, undefined, 'GET', '/api/v2/instance')).body;
    assert.equal(v2.usage.users.active_month, 0);
  });
});
