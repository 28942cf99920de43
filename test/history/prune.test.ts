// Retention of remote history (issue 17): an operator's Prune now (POST /api/v1/admin/remote_history/prune) removes
// history posts whose actor's retention clock is older than the retention, except those a local member holds on to
// (one test per keep-rule, and one with all nine at once); delivered posts are never pruned; the media of pruned
// posts is removed and its cached files deleted; the hourly sweep does the same when an injected clock passes the
// retention; members without Manage federation are refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MediaFiles } from '../../src/media/media-files.js';
import { mediaStorage } from '../../src/app.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { HistoryFixture, type RemotePost } from '../support/history-posts.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const DAY_MS = 86_400_000;

describe('remote history retention and pruning', () => {
  let s: TestServer;
  let peer: FakePeer;
  let fx: HistoryFixture;
  let m: LocalMembers;
  let remId: string;
  let operator: string;
  let n = 0;
  let offset = 0;
  const clock = { now: () => Date.now() + offset };

  const call = (who: string, method: string, path: string, body?: unknown) => api(s.url, m.token[who], method, path, body);
  const ok = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(who, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const post = (over: Partial<RemotePost> = {}): RemotePost => ({
    uri: peer.newId('notes'),
    actor: 'rem',
    visibility: 'public',
    text: `old post ${++n}`,
    tags: [],
    mentions: [],
    inReplyTo: null,
    published: new Date(Date.now() - 200 * DAY_MS - n * 60_000),
    ...over,
  });
  const history = async (over: Partial<RemotePost> = {}) => fx.storeHistory(post(over), remId, m.id);
  const prune = async (): Promise<Json> => {
    const r = await api(s.url, operator, 'POST', '/api/v1/admin/remote_history/prune');
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const exists = async (id: string) => {
    const r = await call('ann', 'GET', `/api/v1/statuses/${id}`);
    assert.ok(r.status === 200 || r.status === 404, r.text);
    return r.status === 200;
  };
  /** The actor's profile was last viewed `days` ago. */
  const viewedDaysAgo = (accountId: string, days: number) =>
    s.app.db.exec(
      `INSERT INTO remote_histories (account_id, origin, state, viewed_at) VALUES ($1, $2, 'partial', now() - make_interval(days => $3))
       ON CONFLICT (account_id) DO UPDATE SET viewed_at = EXCLUDED.viewed_at`,
      [accountId, peer.host, days],
    );
  const pollOn = async (statusId: string): Promise<string> =>
    (await s.app.db.one<{ id: string }>(
      `INSERT INTO polls (status_id, account_id, options, expires_at, remote_counts, remote_voters)
       VALUES ($1, $2, ARRAY['yes', 'no'], now() + interval '1 day', ARRAY[0, 0], 0) RETURNING id::text`,
      [statusId, remId],
    ))!.id;

  // The nine ways a local member holds on to a history post.
  const keepRules: readonly (readonly [string, (id: string) => Promise<unknown>])[] = [
    ['bookmarked', (id) => ok('ann', 'POST', `/api/v1/statuses/${id}/bookmark`)],
    ['favourited', (id) => ok('ann', 'POST', `/api/v1/statuses/${id}/favourite`)],
    // No API pins another's post (Mastodon pins only one's own); a pin row is what the rule guards, whatever made it.
    ['pinned', (id) => s.app.db.exec('INSERT INTO pins (account_id, status_id) VALUES ($1, $2)', [m.id['ann'], id])],
    ['reacted to', (id) => ok('ann', 'PUT', `/api/v1/pleroma/statuses/${id}/reactions/${encodeURIComponent('👍')}`)],
    ['voted in', async (id) => ok('ann', 'POST', `/api/v1/polls/${await pollOn(id)}/votes`, { choices: [0] })],
    ['replied to', (id) => ok('ann', 'POST', '/api/v1/statuses', { status: 'a reply', in_reply_to_id: id })],
    ['boosted', (id) => ok('ann', 'POST', `/api/v1/statuses/${id}/reblog`)],
    ['quoted', (id) => ok('ann', 'POST', '/api/v1/statuses', { status: 'a quote', quoted_status_id: id })],
    ['reported', (id) => ok('ann', 'POST', '/api/v1/reports', { account_id: remId, status_ids: [id], comment: 'old spam' })],
  ];

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV, undefined, { clock }), startFakeActorPeer()]);
    fx = new HistoryFixture(s, peer);
    m = await createMembers(s, ['ann', 'boss', 'modo'], { boss: 'admin', modo: 'moderator' });
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    await peer.addActor('rem');
    remId = await fx.accountId(m.token['ann']!, 'rem');
    // Delivery is accepted from actors a member follows.
    await fx.follow(m.token['ann']!, 'ann', 'rem');
    // The sweep's first round (at start) is over before anything is old enough for it.
    await eventually(async () => assert.ok(await s.app.db.one("SELECT 1 FROM history_prune_runs WHERE kind = 'sweep'")));
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it('removes history posts past the retention, with their media rows and cached files, and keeps recent ones', async () => {
    await viewedDaysAgo(remId, 100);
    const files = new MediaFiles(mediaStorage(s.app.config));
    const old = await history();
    const withMedia = await history();
    const fileName = await files.save(Buffer.from('cached image bytes'), 'image/png');
    await s.app.db.exec(
      `INSERT INTO media_attachments (account_id, status_id, type, content_type, remote_url, file_name, file_size)
       VALUES ($1, $2, 'image', 'image/png', $3, $4, 18), ($1, $2, 'image', 'image/png', $5, NULL, NULL)`,
      [remId, withMedia, `${peer.url}/media/a.png`, fileName, `${peer.url}/media/b.png`],
    );
    assert.ok(await files.locate(fileName));

    assert.deepEqual(await prune(), { removed: 2, media_queued: 2 });
    assert.equal(await exists(old), false);
    assert.equal(await exists(withMedia), false);
    const left = await s.app.db.one<{ n: number }>('SELECT count(*)::int AS n FROM media_attachments WHERE status_id = $1', [withMedia]);
    assert.equal(left!.n, 0);
    await eventually(async () => assert.equal(await files.locate(fileName), undefined, 'the cached copy is deleted'));

    // Viewed 10 days ago: within the 90 days.
    await viewedDaysAgo(remId, 10);
    const recent = await history();
    assert.deepEqual(await prune(), { removed: 0, media_queued: 0 });
    assert.equal(await exists(recent), true);
    await viewedDaysAgo(remId, 100);
    assert.deepEqual(await prune(), { removed: 1, media_queued: 0 });
  });

  it('never prunes a post received through delivery', async () => {
    await viewedDaysAgo(remId, 100);
    const delivered = await fx.deliverCreate(post({ text: 'delivered long ago' }));
    const control = await history();
    assert.deepEqual(await prune(), { removed: 1, media_queued: 0 });
    assert.equal(await exists(delivered), true);
    assert.equal(await exists(control), false);
  });

  it('leaves the pages that showed a pruned post consistent: a delivered reply to it, its context, its notification', async () => {
    await viewedDaysAgo(remId, 100);
    const parent = post({ text: 'an old parent' });
    const parentId = await fx.storeHistory(parent, remId, m.id);
    const reply = await fx.deliverCreate(post({ text: 'a new reply to an old post', inReplyTo: parent.uri, mentions: ['ann'], published: new Date() }));
    assert.equal((await ok('ann', 'GET', `/api/v1/statuses/${reply}`)).in_reply_to_id, parentId);
    const mentioned = async () => (await ok('ann', 'GET', '/api/v1/notifications?types[]=mention')).map((x: Json) => x.status.id as string);
    await eventually(async () => assert.ok((await mentioned()).includes(reply)));

    assert.deepEqual(await prune(), { removed: 1, media_queued: 0 });
    assert.equal(await exists(parentId), false);
    const after = await ok('ann', 'GET', `/api/v1/statuses/${reply}`);
    assert.equal(after.in_reply_to_id, null, 'the reply no longer points at a post we do not hold');
    assert.deepEqual((await ok('ann', 'GET', `/api/v1/statuses/${reply}/context`)).ancestors, []);
    assert.ok((await mentioned()).includes(reply), 'the notification of the reply stays');
  });

  for (const [what, act] of keepRules) {
    it(`keeps a history post a local member ${what}`, async () => {
      await viewedDaysAgo(remId, 100);
      const kept = await history();
      const control = await history();
      await act(kept);
      assert.deepEqual(await prune(), { removed: 1, media_queued: 0 });
      assert.equal(await exists(kept), true, `the ${what} post stays`);
      assert.equal(await exists(control), false);
    });
  }

  it('keeps a history post all nine rules hold on to at once, and the runs are recorded', async () => {
    await viewedDaysAgo(remId, 100);
    const kept = await history();
    const control = await history();
    for (const [, act] of keepRules) await act(kept);
    assert.deepEqual(await prune(), { removed: 1, media_queued: 0 });
    assert.equal(await exists(kept), true);
    assert.equal(await exists(control), false);
    const runs = await s.app.db.rows<{ kind: string; removed: number }>(
      "SELECT kind, removed FROM history_prune_runs WHERE kind = 'manual' ORDER BY id DESC LIMIT 1",
    );
    assert.deepEqual(runs, [{ kind: 'manual', removed: 1 }]);
  });

  it('refuses the prune to members without Manage federation, and to a token without admin:write', async () => {
    await viewedDaysAgo(remId, 100);
    const control = await history();
    for (const token of [
      await m.tokenFor('modo', ['admin:read', 'admin:write']),
      await m.tokenFor('ann', ['admin:write']),
      await m.tokenFor('boss', ['admin:read']),
    ]) {
      const r = await api(s.url, token, 'POST', '/api/v1/admin/remote_history/prune');
      assert.equal(r.status, 403, r.text);
    }
    assert.equal(await exists(control), true, 'nothing was pruned');
    await prune();
  });

  it('the hourly sweep prunes once the clock passes the retention', async () => {
    await viewedDaysAgo(remId, 0);
    const fresh = await history();
    // An hour later: the sweep is due but the profile was viewed within the retention.
    offset = 2 * 3_600_000;
    s.app.historySweep()!.kick();
    await eventually(async () => {
      const r = await s.app.db.one<{ n: number }>(
        "SELECT count(*)::int AS n FROM history_prune_runs WHERE kind = 'sweep' AND ran_at > now() + interval '1 hour'",
      );
      assert.equal(r!.n, 1);
    });
    assert.equal(await exists(fresh), true);
    // 91 days later: past the 90 days' retention.
    offset = 91 * DAY_MS;
    s.app.historySweep()!.kick();
    await eventually(async () => assert.equal(await exists(fresh), false));
    const runs = await s.app.db.rows<{ removed: number }>("SELECT removed FROM history_prune_runs WHERE kind = 'sweep' ORDER BY id DESC LIMIT 1");
    assert.deepEqual(runs, [{ removed: 1 }]);
  });
});
