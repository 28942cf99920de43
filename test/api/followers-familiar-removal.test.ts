// Two follower routes of Mastodon over real HTTP (issue 36): POST /api/v1/accounts/:id/remove_from_followers (a
// local follower simply stops following; a remote one's server is sent a signed Reject of its Follow, checked on a
// hand-written peer) and GET /api/v1/accounts/familiar_followers (for each account, the accounts the member follows
// that follow it) — through the api helper, masto.js 7 and Mastodon.py 1.8.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createRestAPIClient } from 'masto';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, verifyReceived, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const run = promisify(execFile);
const AS = 'https://www.w3.org/ns/activitystreams';

describe('familiar followers and removing followers', () => {
  let s: TestServer;
  let peer: FakePeer;
  let m: LocalMembers;
  const call = (who: string | undefined, method: string, path: string, body?: unknown) =>
    api(s.url, who === undefined ? undefined : m.token[who], method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const follow = (who: string, other: string) => ok(who, 'POST', `/api/v1/accounts/${m.id[other]}/follow`);
  const followers = async (who: string): Promise<string[]> => (await ok(who, 'GET', `/api/v1/accounts/${m.id[who]}/followers`)).map((a: Json) => a.acct).sort();
  const familiar = async (who: string, ids: readonly string[]): Promise<[string, string[]][]> => {
    const body = await ok(who, 'GET', `/api/v1/accounts/familiar_followers?${ids.map((id) => `id[]=${id}`).join('&')}`);
    return body.map((r: Json) => [r.id, r.accounts.map((a: Json) => a.username)]);
  };

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    m = await createMembers(s, ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus']);
    await Promise.all(['rita', 'ruth'].map((n) => peer.addActor(n)));
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  describe('familiar_followers', () => {
    before(async () => {
      // ann follows bob and cat; bob, cat and eve follow dan; cat follows fay.
      for (const [who, other] of [
        ['ann', 'bob'],
        ['ann', 'cat'],
        ['bob', 'dan'],
        ['cat', 'dan'],
        ['eve', 'dan'],
        ['cat', 'fay'],
      ] as const) {
        await follow(who, other);
      }
    });

    it('answers, for each account asked in order, the accounts the member follows that follow it', async () => {
      assert.deepEqual(await familiar('ann', [m.id['dan']!, m.id['fay']!, m.id['gus']!]), [
        [m.id['dan'], ['cat', 'bob']],
        [m.id['fay'], ['cat']],
        [m.id['gus'], []],
      ]);
      // Asked twice: answered once. Unknown ids and non-ids: left out.
      assert.deepEqual(await familiar('ann', [m.id['fay']!, '99999999', 'abc', m.id['fay']!]), [[m.id['fay'], ['cat']]]);
      assert.deepEqual(await familiar('ann', []), []);
      // Another member, other familiars.
      assert.deepEqual(await familiar('eve', [m.id['dan']!]), [[m.id['dan'], []]]);
      const full = (await ok('ann', 'GET', `/api/v1/accounts/familiar_followers?id=${m.id['fay']}`))[0];
      assert.equal(typeof full.id, 'string');
      assert.equal(full.accounts[0].id, m.id['cat']);
      assert.equal(typeof full.accounts[0].followers_count, 'number');
    });

    it('leaves suspended accounts out, asked about or following', async () => {
      await s.app.db.pool.query('UPDATE accounts SET suspended_at = now() WHERE id = $1', [m.id['cat']]);
      try {
        assert.deepEqual(await familiar('ann', [m.id['dan']!, m.id['cat']!]), [[m.id['dan'], ['bob']]]);
      } finally {
        await s.app.db.pool.query('UPDATE accounts SET suspended_at = NULL WHERE id = $1', [m.id['cat']]);
      }
    });

    it('is for members with read:follows', async () => {
      assert.equal((await call(undefined, 'GET', `/api/v1/accounts/familiar_followers?id[]=${m.id['dan']}`)).status, 401);
      const wrong = await api(s.url, await m.tokenFor('ann', ['read:accounts']), 'GET', `/api/v1/accounts/familiar_followers?id[]=${m.id['dan']}`);
      assert.equal(wrong.status, 403);
    });

    it('serves masto.js 7 (familiarFollowers.fetch) and Mastodon.py 1.8 (account_familiar_followers, ids in a JSON body)', async () => {
      const client = createRestAPIClient({ url: s.url, accessToken: m.token['ann']! });
      // masto 7.12 types the parameter as the bare id list, which it writes as `0=…&1=…`: Mastodon (Rails) reads no
      // `id` from that either (an empty answer, here too). Given as `{ id }`, masto writes `id[]=…` as Mastodon reads it.
      assert.deepEqual(await client.v1.accounts.familiarFollowers.fetch([m.id['dan']!]), []);
      const found = await client.v1.accounts.familiarFollowers.fetch({ id: [m.id['dan']!, m.id['fay']!] } as unknown as string[]);
      assert.deepEqual(
        found.map((f) => [f.id, f.accounts.map((a) => a.username)]),
        [
          [m.id['dan'], ['cat', 'bob']],
          [m.id['fay'], ['cat']],
        ],
      );
      const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
# Mastodon.py makes ids integers; str() keeps them exact through JSON.parse.
print(json.dumps([[str(f['id']), [a['username'] for a in f['accounts']]] for f in m.account_familiar_followers([os.environ['DAN'], os.environ['FAY']])]))
`;
      const { stdout } = await run('/usr/bin/python3', ['-c', script], {
        env: { ...process.env, BASE: s.url, TOKEN: m.token['ann']!, DAN: m.id['dan']!, FAY: m.id['fay']! },
      });
      assert.deepEqual(JSON.parse(stdout), [
        [m.id['dan'], ['cat', 'bob']],
        [m.id['fay'], ['cat']],
      ]);
    });
  });

  describe('remove_from_followers', () => {
    it('makes a local follower stop following, and answers the Relationship either way', async () => {
      await follow('eve', 'gus');
      await follow('gus', 'eve');
      assert.deepEqual(await followers('gus'), ['eve']);
      const rel = await ok('gus', 'POST', `/api/v1/accounts/${m.id['eve']}/remove_from_followers`);
      assert.equal(rel.id, m.id['eve']);
      assert.equal(rel.followed_by, false);
      assert.equal(rel.following, true, 'gus still follows eve');
      assert.deepEqual(await followers('gus'), []);
      assert.equal((await ok('eve', 'GET', `/api/v1/accounts/relationships?id[]=${m.id['gus']}`))[0].following, false);
      // Not a follower: the same answer, nothing changed.
      assert.equal((await ok('gus', 'POST', `/api/v1/accounts/${m.id['eve']}/remove_from_followers`)).followed_by, false);
      assert.equal((await call('gus', 'POST', '/api/v1/accounts/99999999/remove_from_followers')).status, 404);
      assert.equal((await call(undefined, 'POST', `/api/v1/accounts/${m.id['eve']}/remove_from_followers`)).status, 401);
    });

    it("sends a remote follower's server a signed Reject of its Follow", async () => {
      const annActor = `${s.url}/users/ann`;
      const doc = (await (await fetch(annActor, { headers: { Accept: 'application/activity+json' } })).json()) as {
        publicKey: { id: string; publicKeyPem: string };
      };
      const followId = peer.newId('follows');
      const sent = await peer.signedPost(
        `${annActor}/inbox`,
        { '@context': AS, id: followId, type: 'Follow', actor: peer.actor('rita').id, object: annActor },
        { actor: 'rita' },
      );
      assert.equal(sent.status, 202);
      const rita = `rita@${peer.host}`;
      await eventually(async () => assert.deepEqual(await followers('ann'), [rita]));
      const id = (await ok('ann', 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(rita)}`)).id;

      const rel = await ok('ann', 'POST', `/api/v1/accounts/${id}/remove_from_followers`);
      assert.equal(rel.followed_by, false);
      assert.deepEqual(await followers('ann'), []);
      const reject = await peer.waitForPost((p) => p.path === '/users/rita/inbox' && p.body?.['type'] === 'Reject');
      const body = reject.body!;
      assert.equal(body['actor'], annActor);
      const object = body['object'] as Json;
      assert.equal(object['id'], followId);
      assert.equal(object['type'], 'Follow');
      assert.equal(object['actor'], peer.actor('rita').id);
      assert.equal(object['object'], annActor);
      const check = verifyReceived(reject, doc.publicKey.publicKeyPem);
      assert.equal(check.signature.keyId, doc.publicKey.id);
      assert.equal(check.signatureValid, true);
      assert.equal(check.digestValid, true);
    });

    it('serves masto.js 7 (removeFromFollowers) and Mastodon.py 1.8 (account_remove_from_followers)', async () => {
      await follow('bob', 'fay');
      await follow('dan', 'fay');
      assert.deepEqual(await followers('fay'), ['bob', 'cat', 'dan']);
      await createRestAPIClient({ url: s.url, accessToken: m.token['fay']! }).v1.accounts.$select(m.id['bob']!).removeFromFollowers();
      assert.deepEqual(await followers('fay'), ['cat', 'dan']);
      const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
r = m.account_remove_from_followers(os.environ['DAN'])
print(json.dumps([str(r['id']), r['followed_by']]))
`;
      const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['fay']!, DAN: m.id['dan']! } });
      assert.deepEqual(JSON.parse(stdout), [m.id['dan'], false]);
      assert.deepEqual(await followers('fay'), ['cat']);
    });
  });
});
