// Polls: a member posts a poll (options, duration, single or multiple choice); others vote once by option index;
// the author cannot vote; an ended poll takes no votes; counts and own votes show in the Poll entity. Between two
// servers the poll arrives as a Question, a remote member's vote reaches the author's server and is counted there.
// When a poll ends, its author and the members who voted get a `poll` notification, once. A poll delivered to a
// follower's server follows the author's counts (an Update of the Question after votes, and at the end with
// `closed`); a stale copy viewed there is fetched again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';
import { api, FED_ENV, form, type Json } from '../support/api.js';
import { createMarkerPoll, deliveriesDone, inboxDone, inboxJobsProcessed, pollCloserRound, pollUpdateQueued } from '../support/federation-wait.js';
import { createMembers } from '../support/members.js';
import { registerApp, signIn, userToken } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const ENV = { ...FED_ENV, POLL_UPDATE_DELAY_MS: '200' };

describe('polls', () => {
  let a: TestServer;
  let b: TestServer;
  const token: Record<string, string> = {};
  /** Polls of a member on each server whom nobody follows: they prove a poll closer round ran (pollCloserRound). */
  const marker: { a?: string; b?: string } = {};
  const markerOn = async (s: TestServer, key: 'a' | 'b') => (marker[key] ??= await createMarkerPoll(s, (await createMembers(s, ['marker'])).token['marker']!));

  before(async () => {
    [a, b] = await Promise.all([startTestServer(ENV), startTestServer(ENV)]);
    const users = new UserStore(a.app.db);
    const tokens = new TokenStore(a.app.db);
    const app = await registerApp(a.url, { scopes: 'read write follow' });
    const hash = await hashPassword('member-password-1');
    for (const name of ['vic', 'wen']) {
      const user = await users.create({ username: name, email: `${name}@example.test`, passwordHash: hash, roleId: 0, approved: true });
      token[name] = (await tokens.issue(app.id, user.userId, ['read', 'write', 'follow'])).token;
    }
    token['admin'] = await userToken(a.url, await signIn(a.url, 'admin', a.app.firstAdmin!.password), app, 'read write follow');
    token['remote'] = await userToken(
      b.url,
      await signIn(b.url, 'admin', b.app.firstAdmin!.password),
      await registerApp(b.url, { scopes: 'read write follow' }),
      'read write follow',
    );
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("takes one vote per member, never the author's, and shows counts and own votes", async () => {
    const fields = 'status=Which%3F&poll[options][]=Tea&poll[options][]=Coffee&poll[options][]=Water&poll[expires_in]=3600';
    const posted = await api(a.url, token['vic'], 'POST', '/api/v1/statuses', form(fields));
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const poll = posted.body.poll;
    assert.deepEqual(
      poll.options.map((o: Json) => o.title),
      ['Tea', 'Coffee', 'Water'],
    );
    assert.equal(poll.multiple, false);
    assert.equal(poll.expired, false);
    assert.ok(Math.abs(Date.parse(poll.expires_at) - Date.parse(posted.body.created_at) - 3_600_000) < 1000);
    const voted = await api(a.url, token['wen'], 'POST', `/api/v1/polls/${poll.id}/votes`, { choices: [1] });
    assert.equal(voted.status, 200, JSON.stringify(voted.body));
    assert.deepEqual(voted.body.own_votes, [1]);
    assert.equal(voted.body.voted, true);
    assert.deepEqual(
      voted.body.options.map((o: Json) => o.votes_count),
      [0, 1, 0],
    );
    assert.equal((await api(a.url, token['wen'], 'POST', `/api/v1/polls/${poll.id}/votes`, { choices: [0] })).status, 422, 'twice');
    assert.equal((await api(a.url, token['vic'], 'POST', `/api/v1/polls/${poll.id}/votes`, { choices: [0] })).status, 422, 'own poll');
    assert.equal(
      (await api(a.url, token['admin'], 'POST', `/api/v1/polls/${poll.id}/votes`, { choices: [0, 1] })).status,
      422,
      'two choices in a single-choice poll',
    );
    assert.equal((await api(a.url, token['admin'], 'POST', `/api/v1/polls/${poll.id}/votes`, { choices: [3] })).status, 422, 'no such option');
    const seen = await api(a.url, undefined, 'GET', `/api/v1/polls/${poll.id}`);
    assert.equal(seen.body.votes_count, 1);
    assert.equal('own_votes' in seen.body, false);
    assert.equal((await api(a.url, undefined, 'GET', `/api/v1/statuses/${posted.body.id}`)).body.poll.id, poll.id);
  });

  it('allows several choices in a multiple-choice poll and no votes once it has ended', async () => {
    const multi = (
      await api(a.url, token['vic'], 'POST', '/api/v1/statuses', { status: 'Pick any', poll: { options: ['A', 'B', 'C'], expires_in: 300, multiple: true } })
    ).body.poll;
    const v = await api(a.url, token['wen'], 'POST', `/api/v1/polls/${multi.id}/votes`, { choices: ['0', '2'] });
    assert.deepEqual(
      v.body.options.map((o: Json) => o.votes_count),
      [1, 0, 1],
    );
    assert.equal(v.body.voters_count, 1);
    await a.app.db.pool.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", [multi.id]);
    const ended = await api(a.url, token['admin'], 'POST', `/api/v1/polls/${multi.id}/votes`, { choices: [1] });
    assert.equal(ended.status, 422);
    assert.equal((await api(a.url, undefined, 'GET', `/api/v1/polls/${multi.id}`)).body.expired, true);
  });

  it('refuses malformed polls', async () => {
    for (const poll of [
      { options: ['only one'], expires_in: 3600 },
      { options: ['a', 'b'], expires_in: 10 },
      { options: ['a', 'a'], expires_in: 3600 },
      { options: ['a', 'b', 'c', 'd', 'e'], expires_in: 3600 },
      { options: ['a', 'x'.repeat(51)], expires_in: 3600 },
    ]) {
      assert.equal((await api(a.url, token['vic'], 'POST', '/api/v1/statuses', { status: 'bad poll', poll })).status, 422, JSON.stringify(poll));
    }
  });

  it("counts a remote member's vote on the author's server", async () => {
    const posted = (
      await api(a.url, token['admin'], 'POST', '/api/v1/statuses', { status: 'Remote vote?', poll: { options: ['Yes', 'No'], expires_in: 3600 } })
    ).body;
    const found = await api(b.url, token['remote'], 'GET', `/api/v2/search?${new URLSearchParams({ q: posted.uri, resolve: 'true' })}`);
    const onB = found.body.statuses[0];
    assert.ok(onB, JSON.stringify(found.body));
    assert.deepEqual(
      onB.poll.options.map((o: Json) => o.title),
      ['Yes', 'No'],
    );
    const voted = await api(b.url, token['remote'], 'POST', `/api/v1/polls/${onB.poll.id}/votes`, { choices: [1] });
    assert.equal(voted.status, 200, JSON.stringify(voted.body));
    assert.deepEqual(voted.body.own_votes, [1]);
    await eventually(async () => {
      const there = (await api(a.url, undefined, 'GET', `/api/v1/polls/${posted.poll.id}`)).body;
      assert.deepEqual(
        there.options.map((o: Json) => o.votes_count),
        [0, 1],
      );
    });
    // The vote is not a post on the author's server.
    const ctx = await api(a.url, token['admin'], 'GET', `/api/v1/statuses/${posted.id}/context`);
    assert.deepEqual(ctx.body.descendants, []);
    // The vote makes A send B an Update of the Question, which sets B's end again: processed before B's end is moved
    // below, or it would move it back to A's (an hour away).
    await inboxJobsProcessed(b, 'Update', posted.uri);

    // When the poll ends, the remote voter's server tells its voter (from its own copy of the poll).
    await b.app.db.pool.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", [onB.poll.id]);
    b.app.pollCloser()!.kick();
    await eventually(async () => {
      const notes = (await api(b.url, token['remote'], 'GET', '/api/v1/notifications?types[]=poll')).body;
      assert.deepEqual(
        notes.map((n: Json) => [n.type, n.status.id, n.status.poll.expired]),
        [['poll', onB.id, true]],
      );
    });
  });

  it('tells the author and every member who voted, once, when a poll ends', async () => {
    const posted = (
      await api(a.url, token['vic'], 'POST', '/api/v1/statuses', { status: 'Ending soon', poll: { options: ['Now', 'Later'], expires_in: 3600 } })
    ).body;
    assert.equal((await api(a.url, token['wen'], 'POST', `/api/v1/polls/${posted.poll.id}/votes`, { choices: [0] })).status, 200);
    const pollNotes = async (who: string) =>
      ((await api(a.url, token[who], 'GET', '/api/v1/notifications?types[]=poll')).body as Json[]).filter((n) => n.status.id === posted.id);
    await pollCloserRound(a, await markerOn(a, 'a'));
    assert.deepEqual(await pollNotes('wen'), [], 'not before it ends');

    await a.app.db.pool.query("UPDATE polls SET expires_at = now() - interval '1 second' WHERE id = $1", [posted.poll.id]);
    a.app.pollCloser()!.kick();
    await eventually(async () => {
      for (const who of ['vic', 'wen']) {
        const notes = await pollNotes(who);
        assert.equal(notes.length, 1, who);
        assert.equal(notes[0].account.username, 'vic', 'from the author');
        assert.equal(notes[0].status.poll.expired, true);
      }
    });
    assert.deepEqual(await pollNotes('admin'), [], 'a member who did not vote is not told');
    await pollCloserRound(a, await markerOn(a, 'a'));
    assert.equal((await pollNotes('wen')).length, 1, 'told once');
  });

  describe("a poll delivered to a follower's server", () => {
    let onB: Json; // the status as B shows it
    let posted: Json; // the status as A shows it
    const countsOnB = async () => (await api(b.url, token['remote'], 'GET', `/api/v1/polls/${onB.poll.id}`)).body;

    before(async () => {
      const vicOnB = await api(b.url, token['remote'], 'GET', `/api/v1/accounts/lookup?acct=vic@${new URL(a.url).host}`);
      assert.equal(vicOnB.status, 200, JSON.stringify(vicOnB.body));
      assert.equal((await api(b.url, token['remote'], 'POST', `/api/v1/accounts/${vicOnB.body.id}/follow`)).status, 200);
      await eventually(async () => {
        const rel = (await api(b.url, token['remote'], 'GET', `/api/v1/accounts/relationships?id[]=${vicOnB.body.id}`)).body;
        assert.equal(rel[0].following, true);
      });
      posted = (
        await api(a.url, token['vic'], 'POST', '/api/v1/statuses', { status: 'Which colour?', poll: { options: ['Red', 'Blue', 'Green'], expires_in: 3600 } })
      ).body;
      // It reaches B as a delivered Create of the Question (B's member follows vic): in B's home timeline. Waited
      // for as processed, not as shown: B shows the status a moment before it has stored its poll.
      await inboxJobsProcessed(b, 'Create', posted.uri);
      const home = (await api(b.url, token['remote'], 'GET', '/api/v1/timelines/home')).body as Json[];
      onB = home.find((st) => st.uri === posted.uri);
      assert.ok(onB, 'delivered to B');
      assert.deepEqual(
        onB.poll.options.map((o: Json) => [o.title, o.votes_count]),
        [
          ['Red', 0],
          ['Blue', 0],
          ['Green', 0],
        ],
      );
    });

    it("takes the author's counts from the Updates A sends after votes there and from B", async () => {
      assert.equal((await api(b.url, token['remote'], 'POST', `/api/v1/polls/${onB.poll.id}/votes`, { choices: [1] })).status, 200);
      await eventually(async () => {
        assert.deepEqual(
          (await api(a.url, undefined, 'GET', `/api/v1/polls/${posted.poll.id}`)).body.options.map((o: Json) => o.votes_count),
          [0, 1, 0],
        );
      });
      // Votes on A: only A's Update can tell B of them.
      assert.equal((await api(a.url, token['wen'], 'POST', `/api/v1/polls/${posted.poll.id}/votes`, { choices: [2] })).status, 200);
      assert.equal((await api(a.url, token['admin'], 'POST', `/api/v1/polls/${posted.poll.id}/votes`, { choices: [1] })).status, 200);
      await eventually(async () => {
        const poll = await countsOnB();
        assert.deepEqual(
          poll.options.map((o: Json) => o.votes_count),
          [0, 2, 1],
        );
        assert.equal(poll.votes_count, 3);
        assert.deepEqual(poll.own_votes, [1]);
        assert.equal(poll.expired, false);
      });
      const status = (await api(b.url, token['remote'], 'GET', `/api/v1/statuses/${onB.id}`)).body;
      assert.deepEqual(
        status.poll.options.map((o: Json) => o.votes_count),
        [0, 2, 1],
      );
      assert.equal(status.edited_at, null, 'new counts are not an edit');
      assert.equal((await api(b.url, token['remote'], 'GET', `/api/v1/statuses/${onB.id}/history`)).body.length, 1, 'the original only');
    });

    it("shows the final counts and the end after A closes the poll, and tells B's voter once", async () => {
      // Every count Update from the votes before processed on B first: one arriving after the end would move B's
      // end back to A's original one.
      await pollUpdateQueued(a, posted.poll.id);
      await deliveriesDone(a, new URL(b.url).host);
      await inboxDone(b);
      const moved = await a.app.db.pool.query<{ expires_at: Date }>(
        "UPDATE polls SET expires_at = now() - interval '2 seconds' WHERE id = $1 RETURNING expires_at",
        [posted.poll.id],
      );
      a.app.pollCloser()!.kick();
      const endOnA = Math.floor(moved.rows[0]!.expires_at.getTime() / 1000) * 1000;
      await eventually(async () => {
        const poll = await countsOnB();
        assert.equal(poll.expired, true);
        assert.equal(Date.parse(poll.expires_at), endOnA, 'the end A published');
        assert.deepEqual(
          poll.options.map((o: Json) => o.votes_count),
          [0, 2, 1],
        );
      });
      const pollNotes = async () =>
        ((await api(b.url, token['remote'], 'GET', '/api/v1/notifications?types[]=poll')).body as Json[]).filter((n) => n.status.id === onB.id);
      await eventually(async () => {
        const notes = await pollNotes();
        assert.deepEqual(
          notes.map((n: Json) => [n.type, n.account.acct, n.status.poll.expired]),
          [['poll', `vic@${new URL(a.url).host}`, true]],
        );
      });
      // A closer round on A (a second final Update would be queued by it), that Update's delivery and processing on
      // B, then a round on B (which would tell B's voter again).
      await pollCloserRound(a, await markerOn(a, 'a'));
      await deliveriesDone(a, new URL(b.url).host);
      await inboxDone(b);
      await pollCloserRound(b, await markerOn(b, 'b'));
      assert.equal((await pollNotes()).length, 1, 'told once');
    });

    it('fetches a stale copy again when a member views it, without waiting for it', async () => {
      const fresh = (await api(a.url, token['vic'], 'POST', '/api/v1/statuses', { status: 'Stale?', poll: { options: ['Up', 'Down'], expires_in: 3600 } }))
        .body;
      await inboxJobsProcessed(b, 'Create', fresh.uri);
      const copy: Json = ((await api(b.url, token['remote'], 'GET', '/api/v1/timelines/home')).body as Json[]).find((st) => st.uri === fresh.uri);
      assert.ok(copy?.poll, 'delivered to B');
      assert.equal((await api(a.url, token['wen'], 'POST', `/api/v1/polls/${fresh.poll.id}/votes`, { choices: [0] })).status, 200);
      const seenOnB = async () => (await api(b.url, token['remote'], 'GET', `/api/v1/polls/${copy.poll.id}`)).body.options.map((o: Json) => o.votes_count);
      await eventually(async () => assert.deepEqual(await seenOnB(), [1, 0]));
      // B's copy goes stale (as if an Update had been lost), last read ten minutes ago: viewing it reads A's again.
      await b.app.db.pool.query("UPDATE polls SET remote_counts = '{0,0}', refreshed_at = now() - interval '10 minutes' WHERE id = $1", [copy.poll.id]);
      await eventually(async () => assert.deepEqual(await seenOnB(), [1, 0]));
      // An anonymous view does not fetch (as in Mastodon, only a member's does). The proof that it would have by the
      // end: a member's view of another stale copy, made after the anonymous one, starts the same background claim
      // and fetch; once that fetch's counts show, one started by the anonymous view would have landed too.
      const other = (await api(a.url, token['vic'], 'POST', '/api/v1/statuses', { status: 'Marker', poll: { options: ['L', 'R'], expires_in: 3600 } })).body;
      assert.equal((await api(a.url, token['wen'], 'POST', `/api/v1/polls/${other.poll.id}/votes`, { choices: [1] })).status, 200);
      await inboxJobsProcessed(b, 'Create', other.uri);
      const otherOnB: Json = ((await api(b.url, token['remote'], 'GET', '/api/v1/timelines/home')).body as Json[]).find((st) => st.uri === other.uri);
      assert.ok(otherOnB?.poll, 'delivered to B');
      // The vote's Update processed on B first, so that only a fetch can bring B's stale copy its counts back.
      await pollUpdateQueued(a, other.poll.id);
      await deliveriesDone(a, new URL(b.url).host);
      await inboxDone(b);
      const stale = await b.app.db.pool.query<{ id: string; refreshed_at: Date }>(
        "UPDATE polls SET remote_counts = '{0,0}', refreshed_at = now() - interval '10 minutes' WHERE id = ANY($1::bigint[]) RETURNING id, refreshed_at",
        [[copy.poll.id, otherOnB.poll.id]],
      );
      const anonymous = async () => (await api(b.url, undefined, 'GET', `/api/v1/polls/${copy.poll.id}`)).body.options.map((o: Json) => o.votes_count);
      assert.deepEqual(await anonymous(), [0, 0]);
      await eventually(async () => {
        assert.deepEqual(
          (await api(b.url, token['remote'], 'GET', `/api/v1/polls/${otherOnB.poll.id}`)).body.options.map((o: Json) => o.votes_count),
          [0, 1],
        );
      });
      assert.deepEqual(await anonymous(), [0, 0]);
      const now = await b.app.db.pool.query<{ refreshed_at: Date }>('SELECT refreshed_at FROM polls WHERE id = $1', [copy.poll.id]);
      assert.equal(now.rows[0]!.refreshed_at.getTime(), stale.rows.find((r) => r.id === copy.poll.id)!.refreshed_at.getTime(), 'no refresh claimed');
    });
  });
});
