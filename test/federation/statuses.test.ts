// Posts between two Stoa servers over real signed HTTP: a follower's home gets the followed member's posts with
// their visibility; a reply and a direct mention cross back; a delete removes the post on the other side. (Hostile
// Notes: hostile-content.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = `${AS}#Public`;

describe('statuses between two Stoa servers', () => {
  let a: TestServer;
  let b: TestServer;
  let tokenA: string;
  let tokenB: string;
  let hostA: string;
  let hostB: string;

  /** The status with this ActivityPub uri in a timeline of B, once it has arrived. */
  const arrived = async (s: TestServer, token: string, path: string, uri: string): Promise<Json> => {
    let found: Json;
    await eventually(async () => {
      const r = await api(s.url, token, 'GET', path);
      assert.equal(r.status, 200);
      found = r.body.find((x: Json) => x.uri === uri);
      assert.ok(found, `${uri} not in ${path}`);
    });
    return found;
  };

  before(async () => {
    [a, b] = await Promise.all([startTestServer(FED_ENV), startTestServer(FED_ENV)]);
    [tokenA, tokenB] = await Promise.all([adminToken(a), adminToken(b)]);
    [hostA, hostB] = [new URL(a.url).host, new URL(b.url).host];
    const aOnB = await api(b.url, tokenB, 'GET', `/api/v1/accounts/lookup?acct=admin@${hostA}`);
    assert.equal((await api(b.url, tokenB, 'POST', `/api/v1/accounts/${aOnB.body.id}/follow`)).status, 200);
    await eventually(async () =>
      assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/accounts/relationships?id[]=${aOnB.body.id}`)).body[0].following, true),
    );
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("a follower's home timeline receives a public post, with mentions and hashtags", async () => {
    const posted = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: `Hello @admin@${hostB}, see #Stoa`, language: 'en' });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.deepEqual(
      posted.body.mentions.map((m: Json) => m.acct),
      [`admin@${hostB}`],
    );
    const seen = await arrived(b, tokenB, '/api/v1/timelines/home', posted.body.uri);
    assert.equal(seen.account.acct, `admin@${hostA}`);
    assert.equal(seen.visibility, 'public');
    assert.equal(seen.language, 'en');
    assert.match(seen.content, /Hello/);
    assert.deepEqual(
      seen.tags.map((t: Json) => t.name),
      ['Stoa'],
    );
    assert.deepEqual(
      seen.mentions.map((m: Json) => m.acct),
      ['admin'],
    );
    assert.equal(seen.url, posted.body.url);
    const mention = (await api(b.url, tokenB, 'GET', '/api/v1/notifications?types[]=mention')).body.find((n: Json) => n.status.uri === posted.body.uri);
    assert.equal(mention.account.acct, `admin@${hostA}`);
    // Public posts from elsewhere show on B's federated timeline, not its local one.
    assert.ok((await api(b.url, undefined, 'GET', '/api/v1/timelines/public?remote=true')).body.some((x: Json) => x.uri === posted.body.uri));
    assert.ok(!(await api(b.url, undefined, 'GET', '/api/v1/timelines/public?local=true')).body.some((x: Json) => x.uri === posted.body.uri));
    // The Note itself can be fetched from A.
    const note = await fetch(posted.body.uri, { headers: { Accept: 'application/activity+json' } });
    assert.equal(note.status, 200);
    assert.equal(((await note.json()) as Json).attributedTo, `${a.url}/users/admin`);
  });

  it('a reply from the follower reaches the author, threaded under the post', async () => {
    const posted = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'What do you think?' });
    const onB = await arrived(b, tokenB, '/api/v1/timelines/home', posted.body.uri);
    const reply = await api(b.url, tokenB, 'POST', '/api/v1/statuses', { status: `@admin@${hostA} I agree`, in_reply_to_id: onB.id });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    await eventually(async () => {
      const ctx = await api(a.url, tokenA, 'GET', `/api/v1/statuses/${posted.body.id}/context`);
      assert.deepEqual(
        ctx.body.descendants.map((x: Json) => x.uri),
        [reply.body.uri],
      );
      assert.equal(ctx.body.descendants[0].in_reply_to_id, posted.body.id);
    });
  });

  it('followers-only posts reach followers; a direct message only its recipient', async () => {
    const priv = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'for followers', visibility: 'private' });
    const seen = await arrived(b, tokenB, '/api/v1/timelines/home', priv.body.uri);
    assert.equal(seen.visibility, 'private');
    assert.equal((await api(b.url, undefined, 'GET', `/api/v1/statuses/${seen.id}`)).status, 404, 'anonymous readers on B cannot see it');
    const dm = await api(b.url, tokenB, 'POST', '/api/v1/statuses', { status: `@admin@${hostA} just between us`, visibility: 'direct' });
    const dmOnA = await arrived(a, tokenA, '/api/v1/timelines/home', dm.body.uri);
    assert.equal(dmOnA.visibility, 'direct');
    assert.equal((await api(a.url, undefined, 'GET', `/api/v1/statuses/${dmOnA.id}`)).status, 404);
  });

  it("lists public and unlisted posts in the author's outbox as Creates, newest first, paged, never private ones", async () => {
    const c = await startTestServer(FED_ENV);
    try {
      const token = await adminToken(c);
      const made: Json[] = [];
      for (let i = 0; i < 23; i++)
        made.push((await api(c.url, token, 'POST', '/api/v1/statuses', { status: `post ${i}`, visibility: i % 2 ? 'unlisted' : 'public' })).body);
      await api(c.url, token, 'POST', '/api/v1/statuses', { status: 'followers only', visibility: 'private' });
      await api(c.url, token, 'DELETE', `/api/v1/statuses/${made[22].id}`);
      const get = async (url: string) => (await (await fetch(url, { headers: { Accept: 'application/activity+json' } })).json()) as Json;
      const outbox = await get(`${c.url}/users/admin/outbox`);
      assert.equal(outbox.type, 'OrderedCollection');
      assert.equal(outbox.totalItems, 22);
      const seen: Json[] = [];
      for (let url: string | undefined = outbox.first; url; ) {
        const page = await get(url);
        assert.equal(page.type, 'OrderedCollectionPage');
        assert.equal(page.partOf, outbox.id);
        seen.push(...page.orderedItems);
        url = page.next;
      }
      assert.deepEqual(
        seen.map((x) => x.object.id),
        made
          .slice(0, 22)
          .reverse()
          .map((m) => m.uri),
      );
      assert.ok(seen.every((x) => x.type === 'Create' && x.actor === `${c.url}/users/admin` && x.object.type === 'Note'));
    } finally {
      await c.stop();
    }
  });

  it('an edit reaches the other server, which keeps the history and tells whoever boosted it there', async () => {
    const posted = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'first version' });
    const onB = await arrived(b, tokenB, '/api/v1/timelines/home', posted.body.uri);
    assert.equal((await api(b.url, tokenB, 'POST', `/api/v1/statuses/${onB.id}/reblog`)).status, 200);
    const edited = await api(a.url, tokenA, 'PUT', `/api/v1/statuses/${posted.body.id}`, { status: 'second version', spoiler_text: 'cw' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.match(edited.body.content, /second version/);
    assert.ok(edited.body.edited_at);
    await eventually(async () => {
      const now = (await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}`)).body;
      assert.match(now.content, /second version/);
      assert.equal(now.spoiler_text, 'cw');
      assert.ok(now.edited_at);
    });
    const history = (await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}/history`)).body;
    assert.deepEqual(
      history.map((v: Json) => (/first/.test(v.content) ? 'first' : 'second')),
      ['first', 'second'],
    );
    const update = (await api(b.url, tokenB, 'GET', '/api/v1/notifications?types[]=update')).body;
    assert.ok(update.some((n: Json) => n.status.uri === posted.body.uri));
  });

  it('an edit that changes the attachments reaches the other server, in their new order and with new descriptions', async () => {
    const picture = async (description: string) => (await upload(a.url, tokenA, png(20, 10), { description })).body;
    const [one, two, three] = [await picture('one'), await picture('two'), await picture('three')];
    const posted = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'pictures', media_ids: [one.id, two.id] });
    const onB = await arrived(b, tokenB, '/api/v1/timelines/home', posted.body.uri);
    assert.deepEqual(
      onB.media_attachments.map((m: Json) => m.remote_url),
      [one.url, two.url],
    );
    const edited = await api(a.url, tokenA, 'PUT', `/api/v1/statuses/${posted.body.id}`, {
      status: 'pictures, rearranged',
      media_ids: [three.id, one.id],
      media_attributes: [{ id: one.id, description: 'one, described again' }],
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    await eventually(async () => {
      const now = (await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}`)).body;
      assert.deepEqual(
        now.media_attachments.map((m: Json) => [m.remote_url, m.description]),
        [
          [three.url, 'three'],
          [one.url, 'one, described again'],
        ],
      );
      assert.match(now.content, /rearranged/);
    });
    const onBNow = (await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}`)).body;
    assert.equal(onBNow.media_attachments[1].id, onB.media_attachments[0].id, 'the attachment at the same URL is the one B already had');
    const history = (await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}/history`)).body;
    assert.deepEqual(
      history.map((v: Json) => v.media_attachments.map((m: Json) => m.description)),
      [
        ['one', 'two'],
        ['three', 'one, described again'],
      ],
    );
  });

  it("an edit of a poll's options reaches the other server, whose members' votes are voided as the author's server voids them", async () => {
    const posted = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'tea or coffee?', poll: { options: ['tea', 'coffee'], expires_in: 3600 } });
    const onB = await arrived(b, tokenB, '/api/v1/timelines/home', posted.body.uri);
    assert.equal((await api(b.url, tokenB, 'POST', `/api/v1/polls/${onB.poll.id}/votes`, { choices: [1] })).status, 200);
    await eventually(async () => assert.equal((await api(a.url, tokenA, 'GET', `/api/v1/statuses/${posted.body.id}`)).body.poll.votes_count, 1));
    // Same options, a new question: B's vote stands on both servers.
    await api(a.url, tokenA, 'PUT', `/api/v1/statuses/${posted.body.id}`, {
      status: 'tea or coffee, really?',
      poll: { options: ['tea', 'coffee'], expires_in: 3600 },
    });
    await eventually(async () => assert.match((await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}`)).body.content, /really/));
    const kept = (await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}`)).body.poll;
    assert.deepEqual([kept.votes_count, kept.own_votes], [1, [1]]);
    const edited = await api(a.url, tokenA, 'PUT', `/api/v1/statuses/${posted.body.id}`, {
      status: 'tea, coffee or water?',
      poll: { options: ['tea', 'coffee', 'water'], expires_in: 3600 },
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.poll.votes_count, 0);
    await eventually(async () => {
      const poll = (await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}`)).body.poll;
      assert.deepEqual(poll.options, [
        { title: 'tea', votes_count: 0 },
        { title: 'coffee', votes_count: 0 },
        { title: 'water', votes_count: 0 },
      ]);
      assert.equal(poll.voted, false);
      assert.deepEqual(poll.own_votes, []);
    });
    const history = (await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}/history`)).body;
    assert.deepEqual(
      history.map((v: Json) => v.poll.options.map((o: Json) => o.title)),
      [
        ['tea', 'coffee'],
        ['tea', 'coffee'],
        ['tea', 'coffee', 'water'],
      ],
    );
  });

  it('a deleted post disappears from the other server', async () => {
    const posted = await api(a.url, tokenA, 'POST', '/api/v1/statuses', { status: 'soon gone' });
    const onB = await arrived(b, tokenB, '/api/v1/timelines/home', posted.body.uri);
    assert.equal((await api(a.url, tokenA, 'DELETE', `/api/v1/statuses/${posted.body.id}`)).status, 200);
    await eventually(async () => assert.equal((await api(b.url, tokenB, 'GET', `/api/v1/statuses/${onB.id}`)).status, 404));
    assert.ok(!(await api(b.url, tokenB, 'GET', '/api/v1/timelines/home')).body.some((x: Json) => x.uri === posted.body.uri));
  });
});

describe('notes from another server', () => {
  let s: TestServer;
  let peer: FakePeer;
  let token: string;
  let admin: string;

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    token = await adminToken(s);
    admin = `${s.url}/users/admin`;
    await peer.addActor('mallory');
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  const create = (note: Json) => ({
    '@context': AS,
    id: `${note.id}/activity`,
    type: 'Create',
    actor: peer.actor('mallory').id,
    to: note.to,
    cc: note.cc,
    object: note,
  });
  const send = async (activity: Json) => {
    const r = await peer.signedPost(`${s.url}/inbox`, activity, { actor: 'mallory' });
    assert.equal(r.status, 202);
  };

  it('ignores a post that concerns nobody here, and a Note attributed to someone else', async () => {
    const unrelated = {
      id: peer.newId('notes'),
      type: 'Note',
      attributedTo: peer.actor('mallory').id,
      to: [PUBLIC],
      cc: [],
      content: '<p>nobody follows me</p>',
    };
    await send(create(unrelated));
    const forged = {
      id: peer.newId('notes'),
      type: 'Note',
      attributedTo: admin,
      to: [PUBLIC],
      cc: [admin],
      content: '<p>forged</p>',
      tag: [{ type: 'Mention', href: admin }],
    };
    await send(create(forged));
    const probe = {
      id: peer.newId('notes'),
      type: 'Note',
      attributedTo: peer.actor('mallory').id,
      to: [admin],
      cc: [],
      content: '<p>probe</p>',
      tag: [{ type: 'Mention', href: admin }],
    };
    await send(create(probe));
    // Activities are handled in order of arrival by the inbox worker: once the probe is there, the others were seen.
    await eventually(async () => assert.ok((await api(s.url, token, 'GET', '/api/v1/timelines/home')).body.some((x: Json) => x.uri === probe.id)));
    const uris = (await api(s.url, token, 'GET', '/api/v1/timelines/home')).body.map((x: Json) => x.uri);
    assert.ok(!uris.includes(unrelated.id));
    assert.ok(!uris.includes(forged.id));
    const count = await s.app.db.pool.query('SELECT count(*)::int AS n FROM statuses WHERE uri = ANY($1)', [[unrelated.id, forged.id]]);
    assert.equal(count.rows[0].n, 0);
  });

  it('takes an Update that only brings new poll counts (Mastodon sends one per vote) as no edit, and one with new options as an edit', async () => {
    const question = (counts: number[], names = ['yes', 'no'], extra: Json = {}) => ({
      id: questionId,
      type: 'Question',
      attributedTo: peer.actor('mallory').id,
      to: [PUBLIC],
      cc: [admin],
      content: '<p>well?</p>',
      tag: [{ type: 'Mention', href: admin }],
      endTime: '2999-01-01T00:00:00Z',
      votersCount: counts.reduce((x, y) => x + y, 0),
      oneOf: names.map((name, i) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: counts[i] } })),
      ...extra,
    });
    const questionId = peer.newId('notes');
    const update = (object: Json) => ({
      '@context': AS,
      id: peer.newId('updates'),
      type: 'Update',
      actor: peer.actor('mallory').id,
      to: object.to,
      cc: object.cc,
      object,
    });
    await send(create(question([0, 0])));
    let seen: Json;
    await eventually(async () => {
      seen = (await api(s.url, token, 'GET', '/api/v1/timelines/public?remote=true')).body.find((x: Json) => x.uri === questionId);
      assert.ok(seen);
    });
    await send(update(question([2, 1])));
    await eventually(async () =>
      assert.deepEqual(
        (await api(s.url, token, 'GET', `/api/v1/statuses/${seen.id}`)).body.poll.options.map((o: Json) => o.votes_count),
        [2, 1],
      ),
    );
    assert.equal((await api(s.url, token, 'GET', `/api/v1/statuses/${seen.id}`)).body.edited_at, null);
    assert.equal((await api(s.url, token, 'GET', `/api/v1/statuses/${seen.id}/history`)).body.length, 1);
    const picture = { type: 'Document', mediaType: 'image/png', url: `${peer.url}/files/p.png`, name: 'a picture' };
    await send(update(question([0, 0, 0], ['yes', 'no', 'maybe'], { updated: new Date().toISOString(), attachment: [picture] })));
    await eventually(async () => {
      const now = (await api(s.url, token, 'GET', `/api/v1/statuses/${seen.id}`)).body;
      assert.deepEqual(
        now.poll.options.map((o: Json) => o.title),
        ['yes', 'no', 'maybe'],
      );
      assert.ok(now.edited_at);
      assert.deepEqual(
        now.media_attachments.map((m: Json) => [m.remote_url, m.description]),
        [[picture.url, 'a picture']],
      );
    });
    const history = (await api(s.url, token, 'GET', `/api/v1/statuses/${seen.id}/history`)).body;
    assert.deepEqual(
      history.map((v: Json) => [v.poll.options.length, v.media_attachments.length]),
      [
        [2, 0],
        [3, 1],
      ],
    );
  });

  it('hides every post of an actor whose server deletes it', async () => {
    const mallory = peer.actor('mallory');
    // A public post mentioning the admin: stored, and on the federated timeline.
    await send(
      create({
        id: peer.newId('notes'),
        type: 'Note',
        attributedTo: mallory.id,
        to: [PUBLIC],
        cc: [admin],
        content: '<p>soon gone</p>',
        tag: [{ type: 'Mention', href: admin }],
      }),
    );
    let before: Json[] = [];
    await eventually(async () => {
      before = (await api(s.url, token, 'GET', '/api/v1/timelines/public?remote=true')).body.filter((x: Json) => x.account.acct.startsWith('mallory@'));
      assert.ok(before.length > 0);
    });
    await send({ '@context': AS, id: peer.newId('deletes'), type: 'Delete', actor: mallory.id, object: mallory.id });
    await eventually(async () => {
      const after = (await api(s.url, token, 'GET', '/api/v1/timelines/public?remote=true')).body;
      assert.ok(!after.some((x: Json) => x.account.acct.startsWith('mallory@')));
    });
    assert.equal((await api(s.url, token, 'GET', `/api/v1/statuses/${before[0].id}`)).status, 404);
  });
});
