// The routes Mastodon keeps for services this server does not run answer as Mastodon answers without them, so a
// client meets a known answer (and the instance document says translation is off).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('services this server does not run', () => {
  let s: TestServer;
  let m: LocalMembers;
  let post: string;
  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob']);
    post = (await api(s.url, m.token['ann'], 'POST', '/api/v1/statuses', { status: 'Hola, mundo', language: 'es' })).body.id;
  });
  after(() => s?.stop());

  it('translation: the instance says it is off, and asking for one is a 404 as on a Mastodon without a translation service', async () => {
    const instance = await api(s.url, undefined, 'GET', '/api/v2/instance');
    assert.equal(instance.body.configuration.translation.enabled, false);
    const r = await api(s.url, m.token['bob'], 'POST', `/api/v1/statuses/${post}/translate`, { lang: 'en' });
    assert.deepEqual([r.status, r.body], [404, { error: 'Record not found' }]);
    assert.equal((await api(s.url, undefined, 'POST', `/api/v1/statuses/${post}/translate`)).status, 401);
  });

  it('annual reports: none generated, so an empty list and 404 for a year', async () => {
    const r = await api(s.url, m.token['ann'], 'GET', '/api/v1/annual_reports');
    assert.deepEqual([r.status, r.body], [200, { annual_reports: [], accounts: [], statuses: [] }]);
    assert.equal((await api(s.url, m.token['ann'], 'GET', '/api/v1/annual_reports/2026')).status, 404);
    assert.equal((await api(s.url, m.token['ann'], 'POST', '/api/v1/annual_reports/2026/read')).status, 404);
    assert.equal((await api(s.url, undefined, 'GET', '/api/v1/annual_reports')).status, 401);
  });

  it('async refreshes: none is ever started, so any id is a 404', async () => {
    const r = await api(s.url, m.token['ann'], 'GET', '/api/v1_alpha/async_refreshes/abc');
    assert.deepEqual([r.status, r.body], [404, { error: 'Record not found' }]);
  });

  it('identity proofs (retired by Mastodon): an empty list for an account that exists, 404 otherwise', async () => {
    const r = await api(s.url, m.token['ann'], 'GET', `/api/v1/accounts/${m.id['bob']}/identity_proofs`);
    assert.deepEqual([r.status, r.body], [200, []]);
    assert.equal((await api(s.url, m.token['ann'], 'GET', '/api/v1/accounts/999999/identity_proofs')).status, 404);
  });
});
