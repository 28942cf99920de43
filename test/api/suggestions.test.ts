// Follow suggestions (GET /api/v2/suggestions, the deprecated GET /api/v1/suggestions, DELETE
// /api/v1/suggestions/:account_id): staff-featured accounts first, then friends of friends (most shared first), then
// local accounts that posted lately; never the caller, nor whom they follow, asked to follow, block or mute, nor an
// account they dismissed; only discoverable accounts besides staff's choice. Through masto.js and Mastodon.py too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createRestAPIClient } from 'masto';
import megalodonModule from 'megalodon';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
// megalodon is CommonJS: imported from ESM, its default export is the module object, whose `default` is generator().
const generator = megalodonModule.default;

describe('follow suggestions', () => {
  let s: TestServer;
  let m: LocalMembers;

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? m.token[who] : undefined, method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const nameOf = (id: string) => Object.entries(m.id).find(([, v]) => v === id)?.[0] ?? id;
  /** v2's suggestions as [name, source, sources]. */
  const v2 = async (who: string, query = ''): Promise<[string, string, string[]][]> =>
    (await ok(who, 'GET', `/api/v2/suggestions${query}`)).map((x: Json) => [nameOf(x.account.id), x.source, x.sources]);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['me', 'f1', 'f2', 'fof1', 'fof2', 'feat', 'active', 'hidden', 'blocked', 'muted', 'gone', 'locked', 'mod', 'dee'], {
      mod: 'moderator',
    });
    for (const n of ['f1', 'f2', 'fof1', 'fof2', 'active', 'blocked', 'muted', 'gone', 'locked']) {
      await ok(n, 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: true });
    }
    await ok('hidden', 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: false });
    await ok('locked', 'PATCH', '/api/v1/accounts/update_credentials', { locked: true });
    // me follows f1 and f2; f1 follows fof1 and fof2, f2 follows fof1: fof1 is shared twice.
    for (const [a, b] of [
      ['me', 'f1'],
      ['me', 'f2'],
      ['f1', 'fof1'],
      ['f1', 'fof2'],
      ['f2', 'fof1'],
    ]) {
      await ok(a!, 'POST', `/api/v1/accounts/${m.id[b!]}/follow`);
    }
    await ok('me', 'POST', `/api/v1/accounts/${m.id['blocked']}/block`);
    await ok('me', 'POST', `/api/v1/accounts/${m.id['muted']}/mute`);
    await ok('me', 'POST', `/api/v1/accounts/${m.id['locked']}/follow`);
    // Who posted lately, oldest first: active last, so newest.
    for (const n of ['hidden', 'blocked', 'muted', 'gone', 'locked', 'fof1', 'active']) await ok(n, 'POST', '/api/v1/statuses', { status: `hello from ${n}` });
    // Staff feature an account that never chose to be discoverable: their choice stands.
    const staff = await m.tokenFor('mod', ['admin:write:accounts']);
    const featured = await api(s.url, staff, 'POST', `/api/v1/admin/accounts/${m.id['feat']}/feature`);
    assert.equal(featured.status, 200, featured.text);
    assert.equal(featured.body.id, m.id['feat']);
  });
  after(() => s?.stop());

  it('ranks staff’s choice, then friends of friends, then active local accounts, in Mastodon’s Suggestion shape', async () => {
    assert.deepEqual(await v2('me'), [
      ['feat', 'staff', ['featured']],
      ['fof1', 'past_interactions', ['friends_of_friends', 'most_interactions']],
      ['fof2', 'past_interactions', ['friends_of_friends']],
      ['active', 'global', ['most_interactions']],
      ['gone', 'global', ['most_interactions']],
    ]);
    const [first] = await ok('me', 'GET', '/api/v2/suggestions');
    assert.deepEqual(Object.keys(first).sort(), ['account', 'source', 'sources']);
    assert.equal(typeof first.account.id, 'string');
    assert.equal(first.account.acct, 'feat');
    // Someone who follows no one gets staff's choice and the active accounts.
    assert.deepEqual(
      (await v2('dee')).map((x) => x[0]),
      ['feat', 'active', 'fof1', 'locked', 'gone', 'muted', 'blocked'],
    );
    // limit (default 40, at most 80) and v2's offset.
    assert.deepEqual(
      (await v2('me', '?limit=2')).map((x) => x[0]),
      ['feat', 'fof1'],
    );
    assert.deepEqual(
      (await v2('me', '?limit=2&offset=2')).map((x) => x[0]),
      ['fof2', 'active'],
    );
    assert.equal((await call('me', 'GET', '/api/v2/suggestions?limit=many')).status, 400);
    // The deprecated v1: the accounts alone.
    assert.deepEqual(
      (await ok('me', 'GET', '/api/v1/suggestions')).map((a: Json) => a.acct),
      ['feat', 'fof1', 'fof2', 'active', 'gone'],
    );
    assert.equal((await call(undefined, 'GET', '/api/v2/suggestions')).status, 401);
  });

  it('forgets a dismissed account for that member only, and staff can unfeature', async () => {
    assert.deepEqual(await ok('me', 'DELETE', `/api/v1/suggestions/${m.id['gone']}`), {});
    assert.deepEqual(await ok('me', 'DELETE', `/api/v1/suggestions/${m.id['gone']}`), {}, 'again: the same');
    assert.ok(!(await v2('me')).some((x) => x[0] === 'gone'));
    assert.ok((await v2('dee')).some((x) => x[0] === 'gone'));
    for (const id of ['99999999999', 'nope']) {
      const r = await call('me', 'DELETE', `/api/v1/suggestions/${id}`);
      assert.deepEqual([r.status, r.body], [404, { error: 'Record not found' }]);
    }
    // A member may not feature anyone; staff may unfeature.
    const member = await api(s.url, await m.tokenFor('dee', ['admin:write:accounts']), 'POST', `/api/v1/admin/accounts/${m.id['dee']}/feature`);
    assert.equal(member.status, 403, member.text);
    const staff = await m.tokenFor('mod', ['admin:write:accounts']);
    assert.equal((await api(s.url, staff, 'POST', `/api/v1/admin/accounts/${m.id['feat']}/unfeature`)).status, 200);
    assert.ok(!(await v2('me')).some((x) => x[0] === 'feat'));
    assert.equal((await api(s.url, staff, 'POST', `/api/v1/admin/accounts/${m.id['feat']}/feature`)).status, 200);
  });

  it('leaves out whom the member comes to follow', async () => {
    await ok('dee', 'POST', `/api/v1/accounts/${m.id['fof1']}/follow`);
    assert.ok(!(await v2('dee')).some((x) => x[0] === 'fof1'));
  });

  it('is served to masto.js (v2.suggestions.list, v1.suggestions.$select().remove())', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['me']! });
    const list = await client.v2.suggestions.list({ limit: 3 });
    assert.deepEqual(
      list.map((x) => [x.account.acct, x.source, x.sources]),
      [
        ['feat', 'staff', ['featured']],
        ['fof1', 'past_interactions', ['friends_of_friends', 'most_interactions']],
        ['fof2', 'past_interactions', ['friends_of_friends']],
      ],
    );
    // masto.js types remove as taking a parameter the route has none of: called as its docs call it, bare.
    await (client.v1.suggestions.$select(m.id['fof2']!).remove as unknown as () => Promise<void>)();
    assert.deepEqual(
      (await client.v2.suggestions.list({ limit: 3 })).map((x) => x.account.acct),
      ['feat', 'fof1', 'active'],
    );
  });

  it('is served to megalodon (getSuggestions: the v1 list)', async () => {
    const client = generator('mastodon', s.url, m.token['dee']);
    const r = await client.getSuggestions(2);
    assert.deepEqual(
      r.data.map((a) => a.acct),
      ['feat', 'active'],
    );
  });

  it('is served to Mastodon.py 1.8 (suggestions, suggestion_delete)', async () => {
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
out = {'before': [a['acct'] for a in m.suggestions()]}
m.suggestion_delete(os.environ['ACTIVE'])
out['after'] = [a['acct'] for a in m.suggestions()]
print(json.dumps(out))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['f1']!, ACTIVE: m.id['active']! } });
    const out = JSON.parse(stdout);
    assert.equal(out.before[0], 'feat');
    assert.ok(out.before.includes('active'));
    assert.ok(!out.after.includes('active'));
  });
});
