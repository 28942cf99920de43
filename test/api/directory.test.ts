// The profile directory (GET /api/v1/directory): accounts that chose to be discoverable (update_credentials'
// `discoverable`), neither suspended nor silenced; most recently active first (order=active, the default) or newest
// first (order=new); local=true keeps local accounts; offset and limit (40, at most 80) page it. Public; a signed-in
// caller does not see whom they block, mute, or whose domain they block. Through masto.js and Mastodon.py too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createRestAPIClient } from 'masto';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);

describe('the profile directory', () => {
  let s: TestServer;
  let m: LocalMembers;

  const call = (who: string | undefined, path: string) => api(s.url, who ? m.token[who] : undefined, 'GET', path);
  const accts = async (path: string, who?: string): Promise<string[]> => {
    const r = await call(who, path);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return (r.body as Json[]).map((a) => a.acct as string);
  };
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['old', 'quiet', 'busy', 'shy', 'silenced', 'suspended', 'viewer', 'newest']);
    for (const n of ['old', 'quiet', 'busy', 'silenced', 'suspended', 'viewer', 'newest']) {
      const me = await ok(n, 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: true });
      assert.equal(me.discoverable, true, 'update_credentials sets discoverable');
    }
    // shy chose not to be listed (false), the default (null) is not listed either.
    assert.equal((await ok('shy', 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: 'false' })).discoverable, false);
    // Posts: old first, busy last (so most recently active); quiet and newest never post.
    for (const n of ['old', 'silenced', 'suspended', 'shy', 'busy']) await ok(n, 'POST', '/api/v1/statuses', { status: `hi from ${n}` });
    await s.app.db.pool.query('UPDATE accounts SET silenced_at = now() WHERE id = $1', [m.id['silenced']]);
    await s.app.db.pool.query('UPDATE accounts SET suspended_at = now() WHERE id = $1', [m.id['suspended']]);
    // A discoverable remote account (after every local one: the newest), and one whose domain the viewer blocks.
    await s.app.db.pool.query(
      `INSERT INTO accounts (username, domain, discoverable, uri) VALUES
         ('far', 'far.example', true, 'https://far.example/users/far'), ('spam', 'spam.example', true, 'https://spam.example/users/spam')`,
    );
  });
  after(() => s?.stop());

  it('lists discoverable accounts, most recently active first, to anyone', async () => {
    assert.deepEqual(await accts('/api/v1/directory'), ['busy', 'old', 'spam@spam.example', 'far@far.example', 'newest', 'viewer', 'quiet']);
    const r = await call(undefined, '/api/v1/directory?limit=1');
    assert.equal(r.body[0].discoverable, true);
    assert.equal(typeof r.body[0].id, 'string');
    assert.equal(typeof r.body[0].followers_count, 'number');
  });

  it('orders by newest, keeps local accounts, pages by offset and limit', async () => {
    assert.deepEqual(await accts('/api/v1/directory?order=new'), ['spam@spam.example', 'far@far.example', 'newest', 'viewer', 'busy', 'quiet', 'old']);
    assert.deepEqual(await accts('/api/v1/directory?order=new&local=true'), ['newest', 'viewer', 'busy', 'quiet', 'old']);
    assert.deepEqual(await accts('/api/v1/directory?order=new&local=1&offset=1&limit=2'), ['viewer', 'busy']);
    assert.deepEqual(await accts('/api/v1/directory?order=new&offset=100'), []);
    assert.equal((await accts('/api/v1/directory?limit=500')).length, 7, 'limit is capped, not refused');
    for (const q of ['offset=-1', 'limit=x', 'offset=1.5']) assert.equal((await call(undefined, `/api/v1/directory?${q}`)).status, 400, q);
  });

  it('leaves out, for a signed-in caller, whom they block or mute and the domains they block', async () => {
    await ok('viewer', 'POST', `/api/v1/accounts/${m.id['old']}/block`);
    await ok('viewer', 'POST', `/api/v1/accounts/${m.id['quiet']}/mute`);
    await ok('viewer', 'POST', '/api/v1/domain_blocks', { domain: 'spam.example' });
    assert.deepEqual(await accts('/api/v1/directory?order=new', 'viewer'), ['far@far.example', 'newest', 'viewer', 'busy']);
    // The blocked account does not see its blocker either.
    assert.ok(!(await accts('/api/v1/directory', 'old')).includes('viewer'));
  });

  it('is served to masto.js (v1.directory.list)', async () => {
    const client = createRestAPIClient({ url: s.url });
    const list = await client.v1.directory.list({ order: 'new', local: true, limit: 3 });
    assert.deepEqual(
      list.map((a) => a.acct),
      ['newest', 'viewer', 'busy'],
    );
  });

  it('is served to Mastodon.py 1.8 (directory)', async () => {
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
print(json.dumps({
  'active': [a['acct'] for a in m.directory()],
  'page': [a['acct'] for a in m.directory(offset=1, limit=2, order='new', local=True)],
}))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['newest']! } });
    const out = JSON.parse(stdout);
    assert.deepEqual(out.active, ['busy', 'old', 'spam@spam.example', 'far@far.example', 'newest', 'viewer', 'quiet']);
    assert.deepEqual(out.page, ['viewer', 'busy']);
  });
});
