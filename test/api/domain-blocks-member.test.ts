// A member's own domain blocks (GET|POST|DELETE /api/v1/domain_blocks), against a hand-written peer
// (test/support/fake-actor-peer.ts) through real signed POSTs and deliveries: the domain's posts, boosts of them and
// notifications from it vanish from what the member reads (home, lists, public, hashtags, notifications and their
// requests, search, conversations, the stream), its followers get a Reject{Follow}, the member's follows of it an Undo{Follow}, waiting
// requests a Reject; a Follow from it afterwards is rejected and following into it is refused, as Mastodon does. The
// operator's domain blocks are test/api/domain-blocks.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createRestAPIClient } from 'masto';
import megalodonModule from 'megalodon';
import { api, FED_ENV, form, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer, type PeerRequest } from '../support/fake-actor-peer.js';
import { inboxDone } from '../support/federation-wait.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

const run = promisify(execFile);
// megalodon is CommonJS: imported from ESM, its default export is the module object, whose `default` is generator().
const generator = megalodonModule.default;
const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = `${AS}#Public`;

describe('a member’s domain blocks', () => {
  let s: TestServer;
  let peer: FakePeer;
  let m: LocalMembers;
  let ann: string;
  let bob: string;

  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who ? m.token[who] : undefined, method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const idOf = async (name: string): Promise<string> =>
    (await ok('ann', 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`${name}@${peer.host}`)}`)).id;
  const send = async (actor: string, activity: Json, inbox = `${s.url}/inbox`) => {
    const r = await peer.signedPost(inbox, activity, { actor });
    assert.equal(r.status, 202, `${activity['type']} from ${actor}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  const followOf = (actor: string, object: string): Json => ({
    '@context': AS,
    id: peer.newId('follows'),
    type: 'Follow',
    actor: peer.actor(actor).id,
    object,
  });
  /** A public Note from the peer's actor mentioning ann; its Stoa id once stored. */
  const note = async (actor: string, text: string, direct = false, to1 = ann): Promise<string> => {
    const uri = peer.newId('notes');
    const a = peer.actor(actor).id;
    const tag = [
      { type: 'Mention', href: to1, name: `@${to1.split('/').pop()}` },
      { type: 'Hashtag', name: '#zanzibar', href: `${peer.url}/tags/zanzibar` },
    ];
    const [to, cc] = direct ? [[to1], []] : [[PUBLIC], [to1]];
    const object = { id: uri, type: 'Note', attributedTo: a, content: `<p>${text}</p>`, to, cc, tag, published: new Date().toISOString() };
    await send(actor, { '@context': AS, id: `${uri}/activity`, type: 'Create', actor: a, to, cc, object });
    let id = '';
    await eventually(async () => {
      const r = await s.app.db.pool.query<{ id: string }>('SELECT id::text AS id FROM statuses WHERE uri = $1', [uri]);
      assert.equal(r.rows.length, 1);
      id = r.rows[0]!.id;
    });
    return id;
  };
  const received = (actor: string, type: string, pred: (b: Json) => boolean = () => true): Promise<PeerRequest> =>
    peer.waitForPost((p) => p.path === `/users/${actor}/inbox` && p.body?.['type'] === type && pred(p.body));
  const ids = (list: Json[]) => list.map((x) => x.id as string);
  /** Each member's list holding cat, once made. */
  const lists = new Map<string, string>();
  const reads = async (who: string, statusId: string) => {
    const list = lists.get(who);
    const [home, pub, notes, grouped, search, tagged, listed] = await Promise.all([
      ok(who, 'GET', '/api/v1/timelines/home?limit=40'),
      ok(who, 'GET', '/api/v1/timelines/public?limit=40'),
      ok(who, 'GET', '/api/v1/notifications'),
      ok(who, 'GET', '/api/v2/notifications'),
      ok(who, 'GET', '/api/v2/search?type=statuses&q=zanzibar'),
      ok(who, 'GET', '/api/v1/timelines/tag/zanzibar'),
      list ? ok(who, 'GET', `/api/v1/timelines/list/${list}`) : [],
    ]);
    return {
      home: home.some((x: Json) => x.id === statusId || x.reblog?.id === statusId),
      public: ids(pub).includes(statusId),
      notifications: notes.some((n: Json) => n.status?.id === statusId),
      grouped: grouped.statuses.some((x: Json) => x.id === statusId),
      search: ids(search.statuses).includes(statusId),
      tag: ids(tagged).includes(statusId),
      list: listed.some((x: Json) => x.reblog?.id === statusId),
    };
  };

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    m = await createMembers(s, ['ann', 'bob', 'cat', 'dee']);
    ann = `${s.url}/users/ann`;
    bob = `${s.url}/users/bob`;
    await Promise.all(['carol', 'dave', 'erin'].map((n) => peer.addActor(n)));
    await ok('bob', 'PATCH', '/api/v1/accounts/update_credentials', { locked: true });
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it('lists, blocks and unblocks a domain in Mastodon’s shapes, normalised, from JSON, a form or the query', async () => {
    assert.deepEqual(await ok('dee', 'GET', '/api/v1/domain_blocks'), []);
    assert.deepEqual(await ok('dee', 'POST', '/api/v1/domain_blocks', { domain: 'Spam.Example.' }), {});
    assert.deepEqual(await ok('dee', 'POST', '/api/v1/domain_blocks', form({ domain: 'bücher.example' })), {});
    assert.deepEqual(await ok('dee', 'POST', '/api/v1/domain_blocks?domain=third.example'), {});
    assert.deepEqual(await ok('dee', 'POST', '/api/v1/domain_blocks', { domain: 'spam.example' }), {}, 'again: nothing changes');
    assert.deepEqual(await ok('dee', 'GET', '/api/v1/domain_blocks'), ['third.example', 'xn--bcher-kva.example', 'spam.example']);
    // Paged by the hidden row id, newest first, with Link headers.
    const first = await call('dee', 'GET', '/api/v1/domain_blocks?limit=2');
    assert.deepEqual(first.body, ['third.example', 'xn--bcher-kva.example']);
    const next = /<([^>]+)>; rel="next"/.exec(first.link ?? '')![1]!;
    assert.match(next, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/domain_blocks\?limit=2&max_id=\d+$/);
    const last = await call('dee', 'GET', next.slice(s.url.length));
    assert.deepEqual(last.body, ['spam.example']);
    assert.doesNotMatch(last.link ?? '', /rel="next"/, 'a page that is not full is the last (Mastodon’s records_continue?)');
    const prev = /<([^>]+)>; rel="prev"/.exec(first.link ?? '')![1]!;
    assert.deepEqual((await call('dee', 'GET', prev.slice(s.url.length))).body, []);
    // Mastodon's record validation: blank and invalid domains are 422.
    for (const [body, error] of [
      [{}, "Validation failed: Domain can't be blank"],
      [{ domain: '' }, "Validation failed: Domain can't be blank"],
      [{ domain: '*.example.com' }, 'Validation failed: Domain is invalid'],
      [{ domain: 'https://example.com/path' }, 'Validation failed: Domain is invalid'],
      [{ domain: 'under_score.example' }, 'Validation failed: Domain is invalid'],
      [{ domain: `${'a'.repeat(64)}.example` }, 'Validation failed: Domain is invalid'],
      [{ domain: ['a.example'] }, "Validation failed: Domain can't be blank"],
    ] as const) {
      const r = await call('dee', 'POST', '/api/v1/domain_blocks', body);
      assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
      assert.deepEqual(r.body, { error }, JSON.stringify(body));
    }
    // Unblocking a domain not blocked is no error (Mastodon's find_by&.destroy).
    assert.deepEqual(await ok('dee', 'DELETE', '/api/v1/domain_blocks', { domain: 'never.example' }), {});
    assert.deepEqual(await ok('dee', 'DELETE', '/api/v1/domain_blocks?domain=SPAM.example'), {});
    assert.deepEqual(await ok('dee', 'DELETE', '/api/v1/domain_blocks', form({ domain: 'bücher.example' })), {});
    assert.deepEqual(await ok('dee', 'GET', '/api/v1/domain_blocks'), ['third.example']);
    // A member token only; the scopes are route-scopes.test.ts's.
    assert.equal((await call(undefined, 'GET', '/api/v1/domain_blocks')).status, 401);
  });

  it('hides the domain everywhere the member reads, severs follows both ways with Reject and Undo, and comes back on unblock', async () => {
    const [carol, dave] = [await idOf('carol'), await idOf('dave')];
    // carol follows ann (unlocked: accepted) and asks to follow bob (locked: waiting); ann follows dave (accepted).
    await send('carol', followOf('carol', ann), `${ann}/inbox`);
    await received('carol', 'Accept');
    const request = followOf('carol', bob);
    await send('carol', request, `${bob}/inbox`);
    await ok('ann', 'POST', `/api/v1/accounts/${dave}/follow`);
    const follow = (await received('dave', 'Follow')).body!;
    await send('dave', { '@context': AS, id: peer.newId('accepts'), type: 'Accept', actor: peer.actor('dave').id, object: follow });
    await inboxDone(s);
    assert.equal((await ok('ann', 'GET', `/api/v1/accounts/relationships?id[]=${dave}`))[0].following, true);
    // The preview names what the block would sever (integers, as Mastodon's serializer).
    assert.deepEqual(await ok('ann', 'GET', `/api/v1/domain_blocks/preview?domain=${peer.host}`), { following_count: 1, followers_count: 1 });
    assert.equal((await call('ann', 'GET', '/api/v1/domain_blocks/preview')).status, 422);
    assert.equal((await ok('bob', 'GET', `/api/v1/accounts/relationships?id[]=${carol}`))[0].requested_by, true);

    // carol's post mentions ann; cat (whom ann follows) boosts it into ann's home.
    await ok('ann', 'POST', `/api/v1/accounts/${m.id['cat']}/follow`);
    const list = await ok('ann', 'POST', '/api/v1/lists', { title: 'cat' });
    await ok('ann', 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [m.id['cat']] });
    lists.set('ann', list.id);
    const post = await note('carol', 'zanzibar is lovely');
    await ok('cat', 'POST', `/api/v1/statuses/${post}/reblog`);
    await eventually(async () =>
      assert.deepEqual(await reads('ann', post), { home: true, public: true, notifications: true, grouped: true, search: true, tag: true, list: true }),
    );

    // Ann watches her streams while she blocks the domain (the host with its port, as the accounts name it).
    const ws = await openWs(s.url, m.token['ann']);
    ws.send({ type: 'subscribe', stream: 'public' });
    ws.send({ type: 'subscribe', stream: 'user' });
    await subscribed(s, m.id['ann']!, 'public');
    await subscribed(s, m.id['ann']!, 'user');
    try {
      assert.deepEqual(await ok('ann', 'POST', '/api/v1/domain_blocks', { domain: peer.host.toUpperCase() }), {});
      assert.deepEqual(await ok('ann', 'GET', '/api/v1/domain_blocks'), [peer.host]);
      assert.deepEqual(await reads('ann', post), { home: false, public: false, notifications: false, grouped: false, search: false, tag: false, list: false });
      // Others still read it.
      assert.equal((await reads('dee', post)).public, true);
      const [rc, rd] = await ok('ann', 'GET', `/api/v1/accounts/relationships?id[]=${carol}&id[]=${dave}`);
      assert.deepEqual([rc.domain_blocking, rc.followed_by, rd.domain_blocking, rd.following], [true, false, true, false]);
      assert.equal((await ok('ann', 'GET', `/api/v1/accounts/relationships?id[]=${m.id['cat']}`))[0].domain_blocking, false);
      // The account's own statuses are none of ann's business now (Mastodon's AccountStatusesFilter#blocked?).
      assert.deepEqual(await ok('ann', 'GET', `/api/v1/accounts/${carol}/statuses`), []);
      assert.deepEqual(ids(await ok('dee', 'GET', `/api/v1/accounts/${carol}/statuses`)), [post]);

      // carol was told her follow of ann ends (Reject of it), dave that ann's follow ends (Undo of it).
      const reject = (await received('carol', 'Reject', (b) => b.actor === ann)).body!;
      assert.equal((reject['object'] as Json).type, 'Follow');
      assert.equal((reject['object'] as Json).actor, peer.actor('carol').id);
      assert.equal((reject['object'] as Json).object, ann);
      const undo = (await received('dave', 'Undo', (b) => b.actor === ann)).body!;
      assert.equal((undo['object'] as Json).type, 'Follow');
      assert.equal((undo['object'] as Json).id, follow['id']);

      // After the block: a new post and a mention from the domain reach neither the stream nor the notifications;
      // cat's post, sent after it, does (the marker that the domain's would have come first).
      const later = await note('carol', 'zanzibar again');
      const marker = await ok('cat', 'POST', '/api/v1/statuses', { status: '@ann a marker' });
      await eventually(() => {
        assert.ok(framesOf(ws.frames, 'update').some((f) => f.payload?.id === marker.id));
        assert.ok(framesOf(ws.frames, 'notification').some((f) => f.payload?.status?.id === marker.id));
      });
      const seen = ws.frames.map((f) => JSON.stringify(f.payload ?? ''));
      assert.ok(
        !seen.some((p) => p.includes(later) || p.includes(post)),
        `nothing of the domain was streamed: ${JSON.stringify(ws.frames.filter((f) => JSON.stringify(f.payload ?? '').includes(later)).map((f) => [f.event, f.stream]))}`,
      );
      assert.equal((await reads('ann', later)).notifications, false);
      // Nor does a direct message from the domain start a conversation.
      const dm = await note('carol', 'psst', true);
      const conversations = await ok('ann', 'GET', '/api/v1/conversations');
      assert.ok(!conversations.some((c: Json) => c.last_status?.id === dm), 'no conversation from the domain');
    } finally {
      ws.close();
    }

    // Following into the domain is refused, and the domain's Follow is rejected.
    const refused = await call('ann', 'POST', `/api/v1/accounts/${carol}/follow`);
    assert.deepEqual([refused.status, refused.body], [403, { error: 'This action is not allowed' }]);
    const again = followOf('carol', ann);
    await send('carol', again, `${ann}/inbox`);
    await received('carol', 'Reject', (b) => (b['object'] as Json)?.id === again['id']);
    assert.equal((await ok('ann', 'GET', `/api/v1/accounts/relationships?id[]=${carol}`))[0].followed_by, false);

    // bob filters mentions from strangers: erin's waits as a notification request.
    await ok('bob', 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' });
    await note('erin', 'hello bob', false, bob);
    const erin = await idOf('erin');
    await eventually(async () =>
      assert.deepEqual(
        (await ok('bob', 'GET', '/api/v1/notifications/requests')).map((r: Json) => r.account.id),
        [erin],
      ),
    );
    // bob blocks the domain too: carol's waiting request is rejected, erin's notification request is gone.
    await ok('bob', 'POST', '/api/v1/domain_blocks', { domain: peer.host });
    assert.deepEqual(await ok('bob', 'GET', '/api/v1/notifications/requests'), []);
    await note('erin', 'hello again bob', false, bob);
    await inboxDone(s);
    assert.deepEqual(await ok('bob', 'GET', '/api/v1/notifications/requests'), []);
    assert.equal((await ok('bob', 'GET', '/api/v2/notifications/policy')).summary.pending_requests_count, 0);
    await received('carol', 'Reject', (b) => b.actor === bob && (b['object'] as Json)?.id === request['id']);
    assert.equal((await ok('bob', 'GET', `/api/v1/accounts/relationships?id[]=${carol}`))[0].requested_by, false);

    // Unblocked, the posts are there again (the notifications the block cleared stay gone, as Mastodon's).
    assert.deepEqual(await ok('ann', 'DELETE', '/api/v1/domain_blocks', { domain: peer.host }), {});
    const back = await reads('ann', post);
    assert.deepEqual([back.public, back.home, back.search, back.tag, back.list], [true, true, true, true, true]);
    assert.equal((await ok('ann', 'GET', `/api/v1/accounts/relationships?id[]=${carol}`))[0].domain_blocking, false);
  });

  it('is served to masto.js (domainBlocks.list, create, remove)', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['cat']! });
    await client.v1.domainBlocks.create({ domain: 'masto.example' });
    await client.v1.domainBlocks.create({ domain: 'other.example' });
    assert.deepEqual(await client.v1.domainBlocks.list(), ['other.example', 'masto.example']);
    const pages: string[][] = [];
    for await (const page of client.v1.domainBlocks.list({ limit: 1 })) pages.push(page);
    // A full page promises more (Mastodon's records_continue?), so the walk ends on an empty page, as against Mastodon.
    assert.deepEqual(pages, [['other.example'], ['masto.example'], []]);
    await client.v1.domainBlocks.remove({ domain: 'masto.example' });
    assert.deepEqual(await client.v1.domainBlocks.list(), ['other.example']);
  });

  it('is served to megalodon (getDomainBlocks, blockDomain, unblockDomain)', async () => {
    const client = generator('mastodon', s.url, m.token['cat']);
    assert.equal((await client.blockDomain('mega.example')).status, 200);
    assert.deepEqual((await client.getDomainBlocks({ limit: 2 })).data, ['mega.example', 'other.example']);
    assert.equal((await client.unblockDomain('mega.example')).status, 200);
    assert.deepEqual((await client.getDomainBlocks()).data, ['other.example']);
  });

  it('is served to Mastodon.py 1.8 (domain_blocks, domain_block, domain_unblock)', async () => {
    const script = `
import json, os
from mastodon import Mastodon, MastodonAPIError
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
out = {}
m.domain_block('py.example')
m.domain_block('Second.Example')
out['listed'] = list(m.domain_blocks())
m.domain_unblock('py.example')
out['after'] = list(m.domain_blocks())
try:
    m.domain_block('*.bad')
    out['bad'] = 'accepted'
except MastodonAPIError as e:
    out['bad'] = [e.args[1], e.args[3] if len(e.args) > 3 else None]
print(json.dumps(out))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['dee']! } });
    const out = JSON.parse(stdout);
    assert.deepEqual(out.listed, ['second.example', 'py.example', 'third.example']);
    assert.deepEqual(out.after, ['second.example', 'third.example']);
    assert.equal(out.bad[0], 422);
  });
});
