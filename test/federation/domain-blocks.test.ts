// The operator's domain blocks against a hand-written peer (test/support/fake-actor-peer.ts), through real signed
// POSTs and real deliveries: silence keeps the domain's posts out of the public timelines (readable elsewhere);
// suspend refuses its inbox POSTs (403), hides its posts, and sends it nothing (deliveries dropped); lifting the
// block restores all of it.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';
import { pino } from 'pino';
import { Database } from '../../src/store/db.js';
import { DomainBlockStore } from '../../src/store/domain-blocks.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = `${AS}#Public`;

describe('domain blocks enforced on federation', () => {
  let s: TestServer;
  let peer: FakePeer;
  let m: LocalMembers;
  let operator: string;
  let ann: string;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const publicTexts = async (): Promise<string[]> => {
    const r = await call(undefined, 'GET', '/api/v1/timelines/public?limit=40');
    assert.equal(r.status, 200, r.text);
    return (r.body as Json[]).map((x) => (x.content as string).replace(/<[^>]+>/g, ''));
  };
  const idOf = async (name: string): Promise<string> => {
    const r = await call(m.token['ann'], 'GET', `/api/v1/accounts/lookup?acct=${encodeURIComponent(`${name}@${peer.host}`)}`);
    assert.equal(r.status, 200, r.text);
    return r.body.id as string;
  };
  /** A public Note from the peer's actor naming ann (so it concerns someone here), POSTed signed to the shared inbox. */
  const note = async (actor: string, text: string): Promise<{ status: number; body: unknown; uri: string }> => {
    const uri = peer.newId('notes');
    const a = peer.actor(actor).id;
    const activity = {
      '@context': AS,
      id: `${uri}/activity`,
      type: 'Create',
      actor: a,
      to: [PUBLIC],
      cc: [ann],
      object: { id: uri, type: 'Note', attributedTo: a, content: `<p>${text}</p>`, to: [PUBLIC], cc: [ann], published: new Date().toISOString() },
    };
    const r = await peer.signedPost(`${s.url}/inbox`, activity, { actor });
    return { status: r.status, body: r.body, uri };
  };
  const block = async (severity: string): Promise<string> => {
    const r = await call(operator, 'POST', '/api/v1/admin/domain_blocks', { domain: peer.host, severity });
    assert.equal(r.status, 200, r.text);
    return r.body.id as string;
  };
  const lift = async (id: string) => assert.equal((await call(operator, 'DELETE', `/api/v1/admin/domain_blocks/${id}`)).status, 200);
  /** Stoa's id of the status with this URI, once the inbox worker has stored it. */
  const statusOf = async (uri: string): Promise<string> => {
    let id = '';
    await eventually(async () => {
      const r = await s.app.db.pool.query<{ id: string }>('SELECT id FROM statuses WHERE uri = $1', [uri]);
      assert.equal(r.rows.length, 1);
      id = r.rows[0]!.id;
    });
    return id;
  };
  const followsSentTo = (name: string) => peer.posts().filter((p) => p.path === `/users/${name}/inbox` && p.body?.['type'] === 'Follow').length;
  const queuedFor = async (host: string): Promise<number> =>
    Number((await s.app.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM deliveries WHERE host = $1', [host])).rows[0]!.n);

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    m = await createMembers(s, ['ann', 'boss'], { boss: 'admin' });
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    ann = `${s.url}/users/ann`;
    await Promise.all(['carol', 'dave', 'erin', 'frank', 'grace'].map((n) => peer.addActor(n)));
  });
  // Each test starts without blocks, so one failure does not spill into the next.
  afterEach(async () => {
    for (const b of (await call(operator, 'GET', '/api/v1/admin/domain_blocks')).body as Json[]) {
      await call(operator, 'DELETE', `/api/v1/admin/domain_blocks/${b.id}`);
    }
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it("silence keeps the domain's posts out of the public timeline; they stay readable, and come back when lifted", async () => {
    const sent = await note('carol', 'quiet carol');
    assert.equal(sent.status, 202);
    await eventually(async () => assert.ok((await publicTexts()).includes('quiet carol')));
    const id = await block('silence');
    assert.ok(!(await publicTexts()).includes('quiet carol'), 'not in the public timeline');
    const local = await call(undefined, 'GET', '/api/v1/timelines/public?remote=true&limit=40');
    assert.ok(!(local.body as Json[]).some((x) => x.uri === sent.uri), 'nor in the remote one');
    const statusId = await statusOf(sent.uri);
    assert.equal((await call(m.token['ann'], 'GET', `/api/v1/statuses/${statusId}`)).status, 200, 'readable by id');
    const carol = await idOf('carol');
    const own = await call(m.token['ann'], 'GET', `/api/v1/accounts/${carol}/statuses`);
    assert.ok(
      (own.body as Json[]).some((x) => x.id === statusId),
      "in the account's statuses",
    );
    await lift(id);
    assert.ok((await publicTexts()).includes('quiet carol'));
  });

  it('suspend refuses inbox POSTs, hides the posts, sends nothing; lifting it restores all', async () => {
    const sent = await note('carol', 'loud carol');
    assert.equal(sent.status, 202);
    const statusId = await statusOf(sent.uri);
    const dave = await idOf('dave');
    const erin = await idOf('erin');
    // A delivery queued for later (a retry) is removed with the suspension, not just refused when due.
    await s.app.db.pool.query(
      `INSERT INTO deliveries (activity_id, inbox_url, host, signer_id, body, next_attempt_at, give_up_at)
       VALUES ($1, $2, $3, $4, '{}', now() + interval '1 hour', now() + interval '1 day')`,
      [`${s.url}/activities/later`, peer.actor('dave').inbox, peer.host, m.id['ann']],
    );
    assert.equal(await queuedFor(peer.host), 1);
    const id = await block('suspend');
    assert.equal(await queuedFor(peer.host), 0, 'queued deliveries dropped');

    const refused = await note('carol', 'refused carol');
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, { error: 'Domain suspended' });
    assert.equal((await call(m.token['ann'], 'GET', `/api/v1/statuses/${statusId}`)).status, 404);
    assert.ok(!(await publicTexts()).includes('loud carol'));

    // A Follow queued for the suspended domain is dropped, never sent.
    assert.equal((await call(m.token['ann'], 'POST', `/api/v1/accounts/${dave}/follow`)).status, 200);
    await eventually(async () => assert.equal(await queuedFor(peer.host), 0));
    assert.equal(followsSentTo('dave'), 0);

    await lift(id);
    assert.equal((await call(m.token['ann'], 'GET', `/api/v1/statuses/${statusId}`)).status, 200);
    assert.equal((await note('carol', 'back carol')).status, 202);
    // And deliveries go out again (the check that the dropped Follow could have been sent).
    assert.equal((await call(m.token['ann'], 'POST', `/api/v1/accounts/${erin}/follow`)).status, 200);
    await peer.waitForPost((p) => p.path === '/users/erin/inbox' && p.body?.['type'] === 'Follow');
  });

  it("a suspended account's activities are acknowledged and dropped", async () => {
    const frank = await idOf('frank');
    const r = await call(operator, 'POST', `/api/v1/admin/accounts/${frank}/action`, { type: 'suspend' });
    assert.equal(r.status, 200, r.text);
    const sent = await note('frank', 'frank again');
    assert.equal(sent.status, 202);
    const queued = await s.app.db.pool.query('SELECT 1 FROM inbox_jobs WHERE activity_id = $1', [`${sent.uri}/activity`]);
    assert.equal(queued.rows.length, 0, 'not queued');
    // The action needs Manage users and a known type; no one suspends their own rank (test/api/admin-accounts.test.ts has the rest).
    const mod = await m.tokenFor('ann', ['admin:write']);
    assert.equal((await call(mod, 'POST', `/api/v1/admin/accounts/${frank}/action`, { type: 'suspend' })).status, 403);
    assert.equal((await call(operator, 'POST', `/api/v1/admin/accounts/${frank}/action`, { type: 'explode' })).status, 422);
    assert.equal((await call(operator, 'POST', `/api/v1/admin/accounts/${m.id['boss']}/action`, { type: 'suspend' })).status, 403);
  });

  it("a block made by another node applies to this node's cache at once, and so does its lifting", async () => {
    const other = new Database(s.databaseUrl, 2, pino({ level: 'silent' }));
    try {
      assert.equal((await note('carol', 'warm the cache')).status, 202);
      const blocks = new DomainBlockStore(other);
      const b = await blocks.create({
        domain: peer.host,
        severity: 'suspend',
        rejectMedia: false,
        rejectReports: false,
        privateComment: null,
        publicComment: null,
        obfuscate: false,
      });
      assert.ok(b);
      await eventually(async () => assert.equal((await note('carol', 'elsewhere')).status, 403));
      assert.equal(await blocks.remove(b.id), true);
      await eventually(async () => assert.equal((await note('carol', 'lifted elsewhere')).status, 202));
    } finally {
      await other.close();
    }
  });

  it('reject_reports drops Flags from the domain; lifted, they are filed again', async () => {
    const flag = async (): Promise<string> => {
      const id = peer.newId('flags');
      const r = await peer.signedPost(
        `${s.url}/inbox`,
        { '@context': AS, id, type: 'Flag', actor: peer.actor('grace').id, object: [ann], content: 'rude' },
        { actor: 'grace' },
      );
      assert.equal(r.status, 202);
      return id;
    };
    const filed = async (uri: string) => (await s.app.db.pool.query('SELECT 1 FROM reports WHERE uri = $1', [uri])).rows.length;
    const r = await call(operator, 'POST', '/api/v1/admin/domain_blocks', { domain: peer.host, severity: 'noop', reject_reports: true });
    assert.equal(r.status, 200, r.text);
    const dropped = await flag();
    await eventually(async () => {
      const done = await s.app.db.pool.query('SELECT 1 FROM inbox_jobs WHERE activity_id = $1 AND processed_at IS NOT NULL', [dropped]);
      assert.equal(done.rows.length, 1, 'the Flag was processed');
    });
    assert.equal(await filed(dropped), 0);
    await lift(r.body.id);
    const kept = await flag();
    await eventually(async () => assert.equal(await filed(kept), 1));
  });

  it('reject_media serves the default avatar without fetching it; lifted, the avatar is fetched', async () => {
    await peer.addActor('hank', { extra: { icon: { type: 'Image', mediaType: 'image/png', url: `${peer.url}/files/hank.png` } } });
    const hank = await idOf('hank');
    const asked = () => peer.requests.filter((r) => r.path === '/files/hank.png').length;
    const r = await call(operator, 'POST', '/api/v1/admin/domain_blocks', { domain: peer.host, severity: 'noop', reject_media: true });
    assert.equal(r.status, 200, r.text);
    const avatar = `${s.url}/media_proxy/accounts/${hank}/avatar`;
    const refused = await fetch(avatar, { redirect: 'manual' });
    assert.equal(refused.status, 302);
    assert.match(refused.headers.get('location') ?? '', /missing/);
    assert.equal(asked(), 0);
    await lift(r.body.id);
    await fetch(avatar, { redirect: 'manual' });
    assert.equal(asked(), 1, 'fetched once the block is lifted');
  });
});
