// GET /api/v1/accounts/search as clients call it (issue 36): Mastodon's AccountSearchService over real HTTP — a handle
// named completely first, then word prefixes of display names, usernames and domains (case-insensitive, never
// substrings), suspended and deleted accounts left out, `following`, limit (40, at most 80) and offset, resolve of an
// unknown remote handle through WebFinger (a hand-written peer), masto.js 7 and Mastodon.py 1.8, and any query
// answered without a server error (a property test).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { createRestAPIClient } from 'masto';
import { SEARCH_VECTOR, searchQueryText } from '../../src/store/accounts.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);

describe('account search', () => {
  let s: TestServer;
  let peer: FakePeer;
  let m: LocalMembers;
  let host: string;
  const remote: Record<string, string> = {};
  const call = (who: string | undefined, path: string) => api(s.url, who === undefined ? undefined : m.token[who], 'GET', path);
  const search = async (who: string, params: Record<string, string>): Promise<Json[]> => {
    const r = await call(who, `/api/v1/accounts/search?${new URLSearchParams(params)}`);
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body), r.text);
    return r.body;
  };
  const accts = (list: Json[]) => list.map((a) => a.acct);

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    host = new URL(s.url).host;
    m = await createMembers(s, ['ann', 'bob', 'kit', 'kite', 'kitten', 'kitty', 'mallory', 'boss'], { boss: 'admin' });
    for (const [who, name] of [
      ['bob', 'Bob the Builder'],
      ['kite', 'Kite Flyer'],
      ['mallory', 'Bobby Tables'],
    ] as const) {
      assert.equal((await api(s.url, m.token[who], 'PATCH', '/api/v1/accounts/update_credentials', { display_name: name })).status, 200);
    }
    // Remote accounts known here: one ordinary, one suspended (by a moderator, or with its domain), one deleted.
    for (const [name, domain, suspended, deleted] of [
      ['sam', 'other.example', false, false],
      ['kitsune', 'other.example', false, false],
      ['kitbash', 'spam.example', true, false],
      ['kitgone', 'other.example', false, true],
      ['zebu', 'later-blocked.example', false, false],
    ] as const) {
      const r = await s.app.db.pool.query<{ id: string }>(
        `INSERT INTO accounts (username, domain, uri, inbox_url, display_name, suspended_at, deleted_at)
         VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() END, CASE WHEN $7 THEN now() END) RETURNING id`,
        [name, domain, `https://${domain}/users/${name}`, `https://${domain}/users/${name}/inbox`, '', suspended, deleted],
      );
      remote[name] = r.rows[0]!.id;
    }
    await Promise.all([peer.addActor('rosa', { displayName: 'Rosa Remote' }), peer.addActor('nina', { displayName: 'Nina Elsewhere' })]);
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it('is its own route, not an account id; members only', async () => {
    assert.deepEqual(accts(await search('ann', { q: 'kitty' })), ['kitty']);
    const anonymous = await call(undefined, '/api/v1/accounts/search?q=kitty');
    assert.equal(anonymous.status, 401);
    assert.equal(typeof anonymous.body.error, 'string');
    // The account routes around it still answer.
    assert.equal((await call('ann', `/api/v1/accounts/${m.id['kitty']}`)).body.username, 'kitty');
    assert.equal((await call('ann', '/api/v1/accounts/search/')).status, 200, 'one trailing slash, as Rails');
  });

  it('matches word prefixes of usernames, display names and domains, in any case, never substrings', async () => {
    assert.deepEqual(accts(await search('ann', { q: 'kit' })).sort(), ['kit', 'kite', 'kitsune@other.example', 'kitten', 'kitty'].sort());
    // An exact username ranks first among equals.
    assert.equal(accts(await search('ann', { q: 'kit' }))[0], 'kit');
    assert.deepEqual(accts(await search('ann', { q: 'BUIL' })), ['bob']);
    assert.deepEqual(accts(await search('ann', { q: 'flyer' })), ['kite']);
    assert.deepEqual(accts(await search('ann', { q: 'uilder' })), [], 'no substring matches');
    assert.deepEqual(accts(await search('ann', { q: 'other.example' })).sort(), ['kitsune@other.example', 'sam@other.example']);
    // Display-name words before username matches (Mastodon weighs the display name A, the username B).
    assert.deepEqual(accts(await search('ann', { q: 'bob' })), ['bob', 'mallory'], 'bob in both, mallory in the display name only');
    // Several words: each a prefix, in order.
    assert.deepEqual(accts(await search('ann', { q: 'bob the' })), ['bob']);
  });

  it('leaves out suspended and deleted accounts, named exactly or by prefix', async () => {
    assert.deepEqual(accts(await search('ann', { q: 'kitbash' })), []);
    assert.deepEqual(accts(await search('ann', { q: 'kitbash@spam.example' })), []);
    assert.deepEqual(accts(await search('ann', { q: 'kitgone@other.example' })), []);
    assert.ok(!accts(await search('ann', { q: 'kit', limit: '80' })).some((a) => a.startsWith('kitbash') || a.startsWith('kitgone')));
  });

  it('leaves out the accounts of a domain the operator suspends, and shows them again when the block is lifted', async () => {
    assert.deepEqual(accts(await search('ann', { q: 'zebu' })), ['zebu@later-blocked.example']);
    const operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    const block = await api(s.url, operator, 'POST', '/api/v1/admin/domain_blocks', { domain: 'later-blocked.example', severity: 'suspend' });
    assert.equal(block.status, 200, block.text);
    assert.deepEqual(await search('ann', { q: 'zebu' }), []);
    assert.deepEqual(await search('ann', { q: 'zebu@later-blocked.example' }), []);
    assert.equal((await api(s.url, operator, 'DELETE', `/api/v1/admin/domain_blocks/${block.body.id}`)).status, 200);
    assert.deepEqual(accts(await search('ann', { q: 'zebu@later-blocked.example' })), ['zebu@later-blocked.example']);
  });

  it("hides no one for a member's own blocks, mutes or domain blocks, as Mastodon's AccountSearchService", async () => {
    // Mastodon's Account.advanced_search_for and its Elasticsearch query filter none of them (the Relationship tells
    // the client); only the operator's suspensions above leave accounts out.
    const mine = async (method: string, path: string, body?: unknown) => {
      const r = await api(s.url, m.token['mallory'], method, path, body);
      assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
      return r.body;
    };
    await mine('POST', '/api/v1/domain_blocks', { domain: 'other.example' });
    await mine('POST', `/api/v1/accounts/${m.id['kitty']}/block`);
    await mine('POST', `/api/v1/accounts/${m.id['kit']}/mute`);
    assert.equal((await api(s.url, m.token['kite'], 'POST', `/api/v1/accounts/${m.id['mallory']}/block`)).status, 200);
    try {
      const all = ['kit', 'kite', 'kitsune@other.example', 'kitten', 'kitty'].sort();
      assert.deepEqual(accts(await search('mallory', { q: 'kit' })).sort(), all);
      assert.deepEqual(accts(await search('mallory', { q: 'sam@other.example' })), ['sam@other.example']);
      const v2 = await mine('GET', `/api/v2/search?${new URLSearchParams({ q: 'kit', type: 'accounts' })}`);
      assert.deepEqual(accts(v2.accounts).sort(), all);
      const rel = await mine(
        'GET',
        `/api/v1/accounts/relationships?${new URLSearchParams(['kitty', 'kit', 'kite'].map((n): [string, string] => ['id[]', m.id[n]!]))}`,
      );
      assert.deepEqual(
        rel.map((r: Json) => [r.blocking, r.muting, r.blocked_by]),
        [
          [true, false, false],
          [false, true, false],
          [false, false, true],
        ],
      );
    } finally {
      await mine('DELETE', '/api/v1/domain_blocks', { domain: 'other.example' });
      await mine('POST', `/api/v1/accounts/${m.id['kitty']}/unblock`);
      await mine('POST', `/api/v1/accounts/${m.id['kit']}/unmute`);
      await api(s.url, m.token['kite'], 'POST', `/api/v1/accounts/${m.id['mallory']}/unblock`);
    }
  });

  it('puts a handle named completely first: user@domain, @user@domain, @user', async () => {
    assert.deepEqual(accts(await search('ann', { q: 'sam@other.example' })), ['sam@other.example']);
    assert.deepEqual(accts(await search('ann', { q: '@SAM@Other.Example' })), ['sam@other.example']);
    assert.deepEqual(accts(await search('ann', { q: `kitten@${host}` })), ['kitten']);
    // @kitten: that account first, then the other prefix matches.
    assert.equal(accts(await search('ann', { q: '@kitten' }))[0], 'kitten');
    // Unknown and not resolved: nothing.
    assert.deepEqual(await search('ann', { q: 'nobody@other.example' }), []);
  });

  it('following=true keeps the accounts the member follows, and the member', async () => {
    assert.equal((await api(s.url, m.token['kitty'], 'POST', `/api/v1/accounts/${m.id['kite']}/follow`)).body.following, true);
    assert.deepEqual(accts(await search('kitty', { q: 'kit', following: 'true' })).sort(), ['kite', 'kitty']);
    assert.deepEqual(await search('kitty', { q: 'sam@other.example', following: 'true' }), []);
    assert.deepEqual(accts(await search('kitty', { q: `kite@${host}`, following: 'true' })), ['kite']);
  });

  it('pages with limit (40 by default, at most 80, its absolute value) and offset', async () => {
    await s.app.db.pool.query(
      `INSERT INTO accounts (username, domain, uri, inbox_url)
       SELECT 'crowd' || n, 'crowd.example', 'https://crowd.example/users/crowd' || n, 'https://crowd.example/inbox' FROM generate_series(1, 90) n`,
    );
    assert.equal((await search('ann', { q: 'crowd' })).length, 40);
    assert.equal((await search('ann', { q: 'crowd', limit: '100' })).length, 80);
    assert.equal((await search('ann', { q: 'crowd', limit: '-5' })).length, 5);
    assert.deepEqual(await search('ann', { q: 'crowd', limit: '0' }), []);
    const all = accts(await search('ann', { q: 'crowd', limit: '80' }));
    const pages = [...accts(await search('ann', { q: 'crowd', limit: '30' })), ...accts(await search('ann', { q: 'crowd', limit: '30', offset: '30' }))];
    assert.deepEqual(pages, all.slice(0, 60));
    assert.equal((await search('ann', { q: 'crowd', limit: '80', offset: '80' })).length, 10);
  });

  it('answers a blank q with nothing, and bad numbers with 400', async () => {
    assert.deepEqual(await search('ann', {}), []);
    assert.deepEqual(await search('ann', { q: '   ' }), []);
    for (const bad of ['limit=ten', 'offset=-1', 'offset=x']) {
      const r = await call('ann', `/api/v1/accounts/search?q=kit&${bad}`);
      assert.equal(r.status, 400, `${bad}: ${r.text}`);
      assert.equal(typeof r.body.error, 'string');
    }
  });

  it('with resolve=true fetches an unknown remote handle through WebFinger; without, finds nothing', async () => {
    const handle = `rosa@${peer.host}`;
    assert.deepEqual(await search('ann', { q: handle }), []);
    const found = await search('ann', { q: handle, resolve: 'true' });
    assert.deepEqual(accts(found), [handle]);
    assert.equal(found[0].display_name, 'Rosa Remote');
    // Now known: found without resolve, and by the words of its name.
    assert.deepEqual(accts(await search('ann', { q: handle })), [handle]);
    assert.deepEqual(accts(await search('ann', { q: 'rosa rem' })), [handle]);
    // An unknown actor on the peer: nothing, and no error.
    assert.deepEqual(await search('ann', { q: `ghost@${peer.host}`, resolve: 'true' }), []);
  });

  it('with resolve=true fetches an actor named by its URL, but never a post (an account search stores none)', async () => {
    const nina = peer.actor('nina').id;
    assert.deepEqual(await search('ann', { q: nina }), []);
    assert.deepEqual(accts(await search('ann', { q: nina, resolve: 'true' })), [`nina@${peer.host}`]);
    const note = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: peer.newId('notes'),
      type: 'Note',
      attributedTo: nina,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      content: '<p>a post, not an account</p>',
      published: new Date().toISOString(),
    };
    peer.serve(note);
    assert.deepEqual(await search('ann', { q: note.id, resolve: 'true' }), []);
    const stored = await s.app.db.pool.query('SELECT count(*)::int AS n FROM statuses WHERE uri = $1', [note.id]);
    assert.equal(stored.rows[0].n, 0);
  });

  it('serves masto.js 7: v1.accounts.search.list', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['ann']! });
    const found = await client.v1.accounts.search.list({ q: 'kit', limit: 2 });
    assert.deepEqual(
      found.map((a) => a.acct),
      ['kit', accts(await search('ann', { q: 'kit', limit: '2' }))[1]],
    );
    assert.equal(typeof found[0]!.followersCount, 'number');
    const followed = await createRestAPIClient({ url: s.url, accessToken: m.token['kitty']! }).v1.accounts.search.list({ q: 'kit', following: true });
    assert.deepEqual(followed.map((a) => a.acct).sort(), ['kite', 'kitty']);
  });

  it('serves Mastodon.py 1.8: account_search', async () => {
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
print(json.dumps({
  'kit': [a['acct'] for a in m.account_search('kit', limit=3)],
  'builder': [a['acct'] for a in m.account_search('Builder')],
  'following': sorted(a['acct'] for a in m.account_search('kit', following=True)),
}))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['kitty']! } });
    assert.deepEqual(JSON.parse(stdout), {
      kit: accts(await search('kitty', { q: 'kit', limit: '3' })),
      builder: ['bob'],
      following: ['kite', 'kitty'],
    });
  });

  it("is served by migration 061's accounts_search index (the store's expression is the index's)", async () => {
    const c = await s.app.db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off');
      const plan = await c.query(`EXPLAIN SELECT a.id FROM accounts a WHERE ${SEARCH_VECTOR} @@ to_tsquery('simple', $1)`, [searchQueryText('kit')]);
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(text, /accounts_search/, text);
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });

  it('answers any query with a list, never a server error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40, unit: 'binary' }), async (q) => {
        const r = await call('ann', `/api/v1/accounts/search?q=${encodeURIComponent(q)}`);
        assert.ok(r.status === 200 || r.status === 400, `${JSON.stringify(q)}: ${r.status} ${r.text}`);
        if (r.status === 200) assert.ok(Array.isArray(r.body));
      }),
      { seed: 36, numRuns: 120 },
    );
    for (const q of ["'", "\\'", ':*', '!(', "' | '", 'a & b', '‘’', '<->', '\\', '%_']) {
      assert.ok(Array.isArray(await search('ann', { q })), q);
    }
  });
});
