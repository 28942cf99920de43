// What other servers hear of a local poll: after votes (local ones, and remote ones arriving as Notes) one Update of
// the Question carrying the new counts, sent when due to the followers' servers and the remote voters' servers,
// however many votes came meanwhile; at the end one Update with the final counts and `closed`, even with two nodes
// on one database. And the Question fields themselves, as we write and read them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { questionFields } from '../../src/federation/note-document.js';
import { noteSchema } from '../../src/federation/note-schema.js';
import type { Poll } from '../../src/store/polls.js';
import { FED_ENV, api, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer, type PeerRequest } from '../support/fake-actor-peer.js';
import { createMarkerPoll, deliveriesDone, pollCloserRound } from '../support/federation-wait.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

describe('poll Updates sent to other servers', () => {
  let s: TestServer;
  /** A second node on the same database, under the same address. */
  let s2: TestServer;
  let m: LocalMembers;
  /** pia follows quin; ned and oli vote in quin's poll without following (their own server). */
  let fans: FakePeer;
  let voters: FakePeer;
  let posted: Json;
  /** A poll of a member nobody follows, to prove a poll closer round ran (pollCloserRound). */
  let marker: string;

  const updatesAt = (peer: FakePeer): Json[] =>
    peer
      .posts()
      .map((p: PeerRequest) => p.body as Json)
      .filter((b) => b?.type === 'Update' && b.object?.id === posted.uri);
  const totals = (question: Json) => question.oneOf.map((o: Json) => [o.name, o.replies.totalItems]);
  const vote = async (name: string, choice: string) => {
    const voter = voters.actor(name).id;
    const quin = `${s.url}/users/quin`;
    const note = { id: voters.newId('votes'), type: 'Note', name: choice, attributedTo: voter, inReplyTo: posted.uri, to: [quin] };
    const r = await voters.signedPost(
      `${s.url}/users/quin/inbox`,
      { '@context': AS, id: voters.newId('activities'), type: 'Create', actor: voter, to: [quin], object: note },
      { actor: name },
    );
    assert.equal(r.status, 202, JSON.stringify(r.body));
  };

  before(async () => {
    // Votes wait an hour for their Update: nothing is sent until the test makes it due.
    s = await startTestServer({ ...FED_ENV, POLL_UPDATE_DELAY_MS: '3600000' });
    m = await createMembers(s, ['quin', 'ray', 'marker']);
    marker = await createMarkerPoll(s, m.token['marker']!);
    [fans, voters] = await Promise.all([startFakeActorPeer(), startFakeActorPeer()]);
    await fans.addActor('pia');
    await voters.addActor('ned');
    await voters.addActor('oli');
    const pia = await s.app.federation.remote.byUri(fans.actor('pia').id);
    await s.app.federation.follows.follow(pia.id, m.id['quin']!, null);
  });
  after(async () => {
    await s2?.stop();
    await s?.stop();
    await Promise.all([fans?.stop(), voters?.stop()]);
  });

  it('sends one Update with the counts of every vote since, to followers and remote voters', async () => {
    posted = (await api(s.url, m.token['quin'], 'POST', '/api/v1/statuses', { status: 'Lunch?', poll: { options: ['Yes', 'No', 'Maybe'], expires_in: 3600 } }))
      .body;
    const create = (await fans.waitForPost((p) => p.body?.['type'] === 'Create')).body as Json;
    assert.equal(create.object.type, 'Question');
    assert.deepEqual(totals(create.object), [
      ['Yes', 0],
      ['No', 0],
      ['Maybe', 0],
    ]);

    assert.equal((await api(s.url, m.token['ray'], 'POST', `/api/v1/polls/${posted.poll.id}/votes`, { choices: [0] })).status, 200);
    await vote('ned', 'No');
    await vote('oli', 'No');
    await eventually(async () => {
      assert.deepEqual(
        (await api(s.url, undefined, 'GET', `/api/v1/polls/${posted.poll.id}`)).body.options.map((o: Json) => o.votes_count),
        [1, 2, 0],
      );
    });
    // Each vote kicked the closer; a round after them all, and its deliveries done, shows nothing was sent early.
    await pollCloserRound(s, marker);
    await deliveriesDone(s, fans.host);
    assert.deepEqual(updatesAt(fans), [], 'not before it is due');

    // The Update the first vote scheduled comes due (as an hour passing would make it).
    const due = await s.app.db.pool.query('UPDATE polls SET update_due_at = now() WHERE id = $1 AND update_due_at IS NOT NULL', [posted.poll.id]);
    assert.equal(due.rowCount, 1, 'the votes scheduled an Update');
    s.app.pollCloser()!.kick();
    await eventually(async () => {
      assert.equal(updatesAt(fans).length, 1);
      assert.equal(updatesAt(voters).length, 1, "the voters' server holds a copy too");
    });
    const update = updatesAt(fans)[0]!;
    assert.equal(update.actor, `${s.url}/users/quin`);
    assert.deepEqual(update.to, [PUBLIC]);
    assert.ok(update.cc.includes(`${s.url}/users/quin/followers`));
    assert.equal(update.object.type, 'Question');
    assert.deepEqual(totals(update.object), [
      ['Yes', 1],
      ['No', 2],
      ['Maybe', 0],
    ]);
    assert.equal(update.object.votersCount, 3);
    assert.equal(update.object.endTime, posted.poll.expires_at.replace(/\.\d{3}Z$/, 'Z'));
    assert.equal('closed' in update.object, false, 'still open');
    assert.equal('updated' in update.object, false, 'not an edit');
    assert.deepEqual(updatesAt(voters)[0], update);

    // A later closer round (which would send a second Update), and whatever it queued delivered.
    await pollCloserRound(s, marker);
    await deliveriesDone(s, fans.host);
    assert.equal(updatesAt(fans).length, 1, 'three votes, one Update');
  });

  it('sends the final counts with `closed` once when the poll ends, with two nodes closing polls', async () => {
    s2 = await startTestServer({ ...FED_ENV, BASE_URL: s.url }, s.databaseUrl);
    const ended = await s.app.db.pool.query<{ expires_at: Date }>(
      "UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1 RETURNING expires_at",
      [posted.poll.id],
    );
    const end = ended.rows[0]!.expires_at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    s.app.pollCloser()!.kick();
    s2.app.pollCloser()!.kick();
    const closedAt = (peer: FakePeer) => updatesAt(peer).filter((u) => 'closed' in u.object);
    await eventually(async () => {
      assert.equal(closedAt(fans).length, 1);
      assert.equal(closedAt(voters).length, 1);
    });
    const final = closedAt(fans)[0]!.object;
    assert.equal(final.closed, end);
    assert.equal(final.endTime, end);
    assert.deepEqual(totals(final), [
      ['Yes', 1],
      ['No', 2],
      ['Maybe', 0],
    ]);
    assert.equal(final.votersCount, 3);

    // A later round on each node (either could send the end again), and whatever they queued delivered.
    await pollCloserRound(s, marker);
    await pollCloserRound(s2, marker);
    await Promise.all([deliveriesDone(s, fans.host), deliveriesDone(s, voters.host)]);
    assert.equal(closedAt(fans).length, 1, 'once');
    assert.equal(closedAt(voters).length, 1, 'once');
    assert.equal(updatesAt(fans).length, 2, 'the counts, then the end');
    // The members here hear of the end once too.
    const notes = (await api(s.url, m.token['ray'], 'GET', '/api/v1/notifications?types[]=poll')).body as Json[];
    assert.deepEqual(
      notes.map((n) => [n.type, n.status.id]),
      [['poll', posted.id]],
    );
  });
});

describe('the Question fields of a poll', () => {
  const end = new Date('2030-01-02T03:04:05.678Z');
  const poll: Poll = {
    id: '1',
    statusId: '2',
    accountId: '3',
    options: ['Yes', 'No', 'Maybe'],
    multiple: false,
    hideTotals: false,
    expiresAt: end,
    counts: [1, 2, 0],
    votersCount: 3,
    remote: false,
  };
  const option = (name: string, n: number) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: n } });
  const before = end.getTime() - 1000;
  const afterEnd = end.getTime() + 1000;

  it('carries the counts, the voters and the end; `closed` once ended', () => {
    const open = { oneOf: [option('Yes', 1), option('No', 2), option('Maybe', 0)], endTime: '2030-01-02T03:04:05Z', votersCount: 3 };
    assert.deepEqual(questionFields(poll, before), open);
    assert.deepEqual(questionFields(poll, afterEnd), { ...open, closed: '2030-01-02T03:04:05Z' });
    assert.deepEqual(Object.keys(questionFields({ ...poll, multiple: true }, before)).sort(), ['anyOf', 'endTime', 'votersCount']);
  });

  it('hides the totals of a poll that hides them until it ends', () => {
    const hidden = { ...poll, hideTotals: true };
    assert.deepEqual(
      (questionFields(hidden, before)['oneOf'] as Json[]).map((o) => o.replies.totalItems),
      [0, 0, 0],
    );
    assert.deepEqual(
      (questionFields(hidden, afterEnd)['oneOf'] as Json[]).map((o) => o.replies.totalItems),
      [1, 2, 0],
    );
  });

  it('reads back what it writes, the end from `closed` first', () => {
    const doc = (fields: Record<string, unknown>) =>
      noteSchema.parse({ id: 'https://a.example/q/1', type: 'Question', attributedTo: 'https://a.example/u/x', ...fields }).poll;
    assert.deepEqual(doc(questionFields(poll, afterEnd)), {
      options: ['Yes', 'No', 'Maybe'],
      counts: [1, 2, 0],
      multiple: false,
      endTime: new Date('2030-01-02T03:04:05Z'),
      voters: 3,
    });
    assert.deepEqual(doc({ ...questionFields(poll, before), closed: '2029-12-31T00:00:00Z' })!.endTime, new Date('2029-12-31T00:00:00Z'));
    const shut = doc({ ...questionFields(poll, before), closed: true })!.endTime!;
    assert.ok(shut.getTime() <= Date.now(), 'closed: true means it has ended');
  });
});
