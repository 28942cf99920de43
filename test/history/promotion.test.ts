// What members may do with a remote history post (favourite, boost, bookmark, reply, quote: their own acts are
// ordinary, delivered posts), and how a history post becomes an ordinary one: a real signed inbox Create, Update or
// Announce of the same object promotes it, and it then shows and notifies as the delivery would have (issue 16).
// Also: a delivered post is stored whole with its attachments and poll, or not at all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NotificationStore } from '../../src/store/notifications.js';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { everyPage, HistoryFixture, type RemotePost } from '../support/history-posts.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';

describe('remote history posts: what members do with them, and promotion by delivery', () => {
  let s: TestServer;
  let peer: FakePeer;
  let fx: HistoryFixture;
  let m: LocalMembers;
  let remId: string;
  let n = 0;

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
    tags: ['oldtimes'],
    mentions: [],
    inReplyTo: null,
    published: new Date(Date.now() - 90 * 86_400_000 - n * 60_000),
    ...over,
  });
  const history = async (p: RemotePost) => fx.storeHistory(p, remId, m.id);
  const ids = (list: Json[]) => list.map((x) => x.id as string);
  const home = async (who: string) => everyPage(s.url, m.token[who], '/api/v1/timelines/home');
  /** Where a history post must not show: home of a follower of its author, public and hashtag timelines, search. */
  const listedAnywhere = async (id: string, text: string): Promise<string[]> => {
    const where: string[] = [];
    if (ids(await home('ann')).includes(id)) where.push('home');
    if (ids(await everyPage(s.url, m.token['ann'], '/api/v1/timelines/public')).includes(id)) where.push('public');
    if (ids(await everyPage(s.url, m.token['ann'], '/api/v1/timelines/tag/oldtimes')).includes(id)) where.push('tag');
    const found = await ok('ann', 'GET', `/api/v2/search?type=statuses&q=${encodeURIComponent(text)}`);
    if (ids(found.statuses).includes(id)) where.push('search');
    return where;
  };
  const notifications = async (who: string) =>
    (await everyPage(s.url, m.token[who], '/api/v1/notifications')).map((x: Json) => `${x.type} ${x.status?.id ?? ''}`);

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    fx = new HistoryFixture(s, peer);
    m = await createMembers(s, ['ann', 'ben', 'cat']);
    await peer.addActor('rem');
    remId = await fx.accountId(m.token['ann']!, 'rem');
    // ann follows rem (asking for `status` notifications); ben follows ann.
    await fx.follow(m.token['ann']!, 'ann', 'rem', true);
    await ok('ben', 'POST', `/api/v1/accounts/${m.id['ann']}/follow`);
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it('a member favourites, bookmarks, boosts, replies to and quotes a history post; their acts are delivered and listed, the post stays out', async () => {
    const p = post({ text: 'a history post members act on' });
    const id = await history(p);
    assert.deepEqual(await listedAnywhere(id, 'members act on'), []);

    assert.equal((await ok('ann', 'POST', `/api/v1/statuses/${id}/favourite`)).favourited, true);
    assert.equal((await ok('ann', 'POST', `/api/v1/statuses/${id}/bookmark`)).bookmarked, true);
    assert.ok(ids(await everyPage(s.url, m.token['ann'], '/api/v1/favourites')).includes(id));
    assert.ok(ids(await everyPage(s.url, m.token['ann'], '/api/v1/bookmarks')).includes(id));
    const like = await peer.waitForPost((r) => r.body?.['type'] === 'Like' && r.body['object'] === p.uri);
    assert.equal(like.body!['actor'], fx.memberUri('ann'));

    // ann's boost is an ordinary post: in her followers' home (ben's) as a boost of the history post, and sent to
    // the author; the history post itself is still in no feed.
    const boost = await ok('ann', 'POST', `/api/v1/statuses/${id}/reblog`);
    assert.equal(boost.reblog.id, id);
    const inBensHome = (await home('ben')).find((x: Json) => x.id === boost.id);
    assert.equal(inBensHome?.reblog?.id, id, "ann's boost in ben's home");
    assert.ok(!ids(await home('ben')).includes(id));
    await peer.waitForPost((r) => r.body?.['type'] === 'Announce' && r.body['object'] === p.uri);

    const reply = await ok('ann', 'POST', '/api/v1/statuses', { status: `@rem@${peer.host} I remember this`, in_reply_to_id: id });
    assert.equal(reply.in_reply_to_id, id);
    assert.ok(ids(await home('ben')).includes(reply.id), "ann's reply in ben's home");
    const ctx = await ok('cat', 'GET', `/api/v1/statuses/${id}/context`);
    assert.ok(ids(ctx.descendants).includes(reply.id));
    const up = await ok('cat', 'GET', `/api/v1/statuses/${reply.id}/context`);
    assert.deepEqual(ids(up.ancestors), [id]);
    const created = await peer.waitForPost((r) => r.body?.['type'] === 'Create' && (r.body['object'] as Json)?.inReplyTo === p.uri);
    assert.equal((created.body!['object'] as Json).attributedTo, fx.memberUri('ann'));

    const quote = await ok('ann', 'POST', '/api/v1/statuses', { status: 'worth reading again', quoted_status_id: id });
    assert.equal(quote.quote?.quoted_status?.id, id);
    assert.ok(ids(await home('ben')).includes(quote.id), "ann's quote in ben's home");

    assert.equal((await ok('cat', 'GET', `/api/v1/statuses/${id}`)).uri, p.uri);
    assert.equal((await fx.statuses.byId(id))!.history, true, 'acting on it does not promote it');
    assert.deepEqual(await listedAnywhere(id, 'members act on'), []);
  });

  it("a signed inbox Create of a history post promotes it: in the follower's home, the mentioned member notified, once", async () => {
    const p = post({ text: 'promoted by its Create', mentions: ['cat'] });
    const id = await history(p);
    assert.deepEqual(await listedAnywhere(id, 'promoted by its Create'), []);
    assert.deepEqual(await notifications('cat'), []);

    assert.equal(await fx.deliverCreate(p), id, 'the same status, promoted');
    assert.deepEqual(await listedAnywhere(id, 'promoted by its Create'), ['home', 'public', 'tag', 'search']);
    await eventually(async () => assert.deepEqual(await notifications('cat'), [`mention ${id}`]));
    assert.ok((await notifications('ann')).includes(`status ${id}`), 'ann follows rem with notify');

    // The same Create again (a second inbox): no second notification.
    const note = fx.note(p);
    await fx.deliver('rem', { '@context': AS, id: peer.newId('creates'), type: 'Create', actor: peer.actor('rem').id, to: note.to, cc: note.cc, object: note });
    await eventually(async () =>
      assert.equal(Number((await s.app.db.pool.query('SELECT count(*) AS n FROM inbox_jobs WHERE processed_at IS NULL')).rows[0].n), 0),
    );
    assert.deepEqual(await notifications('cat'), [`mention ${id}`]);
    assert.equal((await notifications('ann')).filter((x) => x === `status ${id}`).length, 1);
  });

  it('a signed inbox Update of a history post promotes it with its edit', async () => {
    const p = post({ text: 'promoted by its Update' });
    const id = await history(p);
    const note = { ...fx.note(p), content: '<p>promoted by its Update, edited</p>', updated: new Date().toISOString() };
    await fx.deliver('rem', { '@context': AS, id: peer.newId('updates'), type: 'Update', actor: peer.actor('rem').id, to: note.to, cc: note.cc, object: note });
    assert.equal(await fx.delivered(p.uri), id);
    const shown = (await home('ann')).find((x: Json) => x.id === id);
    assert.match(shown?.content ?? '', /edited/);
    assert.ok(shown.edited_at);
  });

  it("a signed inbox Announce of a history post promotes it, and the booster's followers see the boost", async () => {
    const p = post({ text: 'promoted by a boost', mentions: ['cat'] });
    const id = await history(p);
    const boostId = await fx.deliverAnnounce('rem', peer.newId('announces'), p.uri);
    assert.equal((await fx.statuses.byId(id))!.history, false);
    const entries = await home('ann');
    assert.equal(entries.find((x: Json) => x.id === boostId)?.reblog?.id, id);
    assert.deepEqual(await listedAnywhere(id, 'promoted by a boost'), ['home', 'public', 'tag', 'search']);
    await eventually(async () => assert.ok((await notifications('cat')).includes(`mention ${id}`)));
  });

  it('a notification about a history post (mention, new post) is not listed until the post is promoted', async () => {
    const p = post({ text: 'told too early', mentions: ['cat'] });
    const id = await history(p);
    // As an importer that wrongly told members would leave them.
    const notifier = new NotificationStore(s.app.db);
    await notifier.notify(m.id['cat']!, 'mention', remId, id);
    await notifier.newPost((await fx.statuses.byId(id))!);
    assert.ok(!(await notifications('cat')).includes(`mention ${id}`));
    assert.ok(!(await notifications('ann')).includes(`status ${id}`));
    const groups = await everyPage(s.url, m.token['cat'], '/api/v2/notifications');
    assert.ok(!groups.some((g: Json) => g.status_id === id));
    await fx.statuses.promote(id);
    assert.ok((await notifications('cat')).includes(`mention ${id}`));
  });

  it('a delivered post is stored with its attachment and poll, and one whose poll cannot be stored is not stored at all', async () => {
    const p = post({ text: 'with a picture and a poll' });
    const note = {
      ...fx.note(p),
      type: 'Question',
      oneOf: [
        { type: 'Note', name: 'yes', replies: { type: 'Collection', totalItems: 3 } },
        { type: 'Note', name: 'no', replies: { type: 'Collection', totalItems: 1 } },
      ],
      endTime: new Date(Date.now() + 86_400_000).toISOString(),
      attachment: [{ type: 'Document', mediaType: 'image/png', url: `${peer.url}/media/1.png`, name: 'a picture' }],
    };
    await fx.deliver('rem', { '@context': AS, id: peer.newId('creates'), type: 'Create', actor: peer.actor('rem').id, to: note.to, cc: note.cc, object: note });
    const id = await fx.delivered(p.uri);
    const shown = await ok('ann', 'GET', `/api/v1/statuses/${id}`);
    assert.deepEqual(
      shown.poll?.options.map((o: Json) => [o.title, o.votes_count]),
      [
        ['yes', 3],
        ['no', 1],
      ],
    );
    assert.deepEqual(
      shown.media_attachments.map((a: Json) => a.description),
      ['a picture'],
    );

    // An end date PostgreSQL cannot hold: the poll fails, and the post with it (no post without its poll).
    const bad = post({ text: 'a poll from before time' });
    const badNote = { ...fx.note(bad), type: 'Question', oneOf: [{ type: 'Note', name: 'a' }], endTime: '-010000-01-01T00:00:00.000Z' };
    const activity = peer.newId('creates');
    await fx.deliver('rem', { '@context': AS, id: activity, type: 'Create', actor: peer.actor('rem').id, to: badNote.to, cc: badNote.cc, object: badNote });
    await eventually(async () => {
      const job = (await s.app.db.pool.query('SELECT last_error FROM inbox_jobs WHERE activity_id = $1', [activity])).rows[0];
      assert.ok(job?.last_error, 'the Create was attempted and failed');
    });
    assert.equal(await fx.statuses.byUri(bad.uri), undefined);
  });
});
