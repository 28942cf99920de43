// The crossover: two Stoa servers on loopback, alice on A and bob on B following each other, and everything members
// do crossing over real signed HTTP, in both directions: a post (content, visibility, mentions, tags, media, content
// warning), an unlisted post, a reply thread, a boost, a favourite, a poll vote, a quote, a reaction, a report and a
// delete, each checked as the member on the other side sees it through the client API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { createMembers } from '../support/members.js';
import { png, upload } from '../support/media.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('crossover between two Stoa servers', () => {
  let a: TestServer;
  let b: TestServer;
  let alice: string; // alice's token on A
  let bob: string; // bob's token on B
  let hostA: string;
  let hostB: string;
  let aliceId: string; // on A
  let bobId: string; // on B
  let aliceOnB: string;
  let bobOnA: string;
  // Statuses as their author's server shows them, and as the other server does.
  let p: Json; // alice's post
  let pOnB: Json;
  let q: Json; // bob's post
  let qOnA: Json;
  let r1: Json; // bob's reply to p
  let r1OnA: Json;

  /** The status with this uri in a member's home timeline, once it has arrived. */
  const arrived = async (s: TestServer, token: string, uri: string): Promise<Json> => {
    let found: Json;
    await eventually(async () => {
      found = (await api(s.url, token, 'GET', '/api/v1/timelines/home')).body.find((x: Json) => x.uri === uri);
      assert.ok(found, `${uri} not in home on ${s.url}`);
    });
    return found;
  };
  const status = async (s: TestServer, token: string | undefined, id: string) => api(s.url, token, 'GET', `/api/v1/statuses/${id}`);
  const notifications = async (s: TestServer, token: string, type?: string): Promise<Json[]> =>
    (await api(s.url, token, 'GET', `/api/v1/notifications${type ? `?types[]=${type}` : ''}`)).body;
  const accts = (list: Json[]) => list.map((x: Json) => x.acct);

  before(async () => {
    // Poll counts go out as Updates of the Question shortly after votes (30 s in production).
    const env = { ...FED_ENV, POLL_UPDATE_DELAY_MS: '100' };
    [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
    const [ma, mb] = await Promise.all([createMembers(a, ['alice']), createMembers(b, ['bob'])]);
    [alice, bob, aliceId, bobId] = [ma.token['alice']!, mb.token['bob']!, ma.id['alice']!, mb.id['bob']!];
    [hostA, hostB] = [new URL(a.url).host, new URL(b.url).host];
    aliceOnB = (await api(b.url, bob, 'GET', `/api/v1/accounts/lookup?acct=alice@${hostA}`)).body.id;
    bobOnA = (await api(a.url, alice, 'GET', `/api/v1/accounts/lookup?acct=bob@${hostB}`)).body.id;
    assert.equal((await api(b.url, bob, 'POST', `/api/v1/accounts/${aliceOnB}/follow`)).status, 200);
    assert.equal((await api(a.url, alice, 'POST', `/api/v1/accounts/${bobOnA}/follow`)).status, 200);
    await eventually(async () => {
      assert.equal((await api(b.url, bob, 'GET', `/api/v1/accounts/relationships?id[]=${aliceOnB}`)).body[0].following, true);
      assert.equal((await api(a.url, alice, 'GET', `/api/v1/accounts/relationships?id[]=${bobOnA}`)).body[0].following, true);
    });
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('a post arrives by delivery in the home timeline on the other side, as written, both ways', async () => {
    const image = png(64, 48);
    const media = await upload(a.url, alice, image, { description: 'A grey heron' });
    assert.equal(media.status, 200, JSON.stringify(media.body));
    const posted = await api(a.url, alice, 'POST', '/api/v1/statuses', {
      status: `Look @bob@${hostB}, a heron #birds`,
      spoiler_text: 'bird photo',
      media_ids: [media.body.id],
      language: 'en',
    });
    assert.equal(posted.status, 200, posted.text);
    p = posted.body;
    pOnB = await arrived(b, bob, p.uri);
    assert.equal(pOnB.account.acct, `alice@${hostA}`);
    assert.equal(pOnB.url, p.url);
    // The HTML went through B's sanitiser: the text and links are alice's.
    assert.match(pOnB.content, /^<p>Look <span[^>]*><a [^>]*>@<span>bob<\/span><\/a><\/span>, a heron <a [^>]*>#<span>birds<\/span><\/a><\/p>$/);
    assert.ok(pOnB.content.includes(`href="${b.url}/@bob"`) && pOnB.content.includes(`href="${a.url}/tags/birds"`), pOnB.content);
    assert.equal(pOnB.visibility, 'public');
    assert.equal(pOnB.language, 'en');
    assert.equal(pOnB.spoiler_text, 'bird photo');
    assert.equal(pOnB.sensitive, true);
    assert.deepEqual(pOnB.mentions, [{ id: bobId, username: 'bob', url: `${b.url}/@bob`, acct: 'bob' }]);
    assert.deepEqual(pOnB.tags, [{ name: 'birds', url: `${b.url}/tags/birds` }]);
    // The picture is shown through B's own proxy, which fetches it from A on first view.
    assert.equal(pOnB.media_attachments.length, 1);
    const m = pOnB.media_attachments[0];
    assert.equal(m.type, 'image');
    assert.equal(m.description, 'A grey heron');
    assert.equal(m.remote_url, p.media_attachments[0].url);
    assert.ok(m.url.startsWith(`${b.url}/media_proxy/`), m.url);
    assert.deepEqual([m.meta.original.width, m.meta.original.height], [64, 48]);
    const file = await fetch(m.url);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');
    // The bytes A serves (re-encoded on upload), as they are.
    const original = Buffer.from(await (await fetch(p.media_attachments[0].url)).arrayBuffer());
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), original);
    const mention = (await notifications(b, bob, 'mention')).find((n) => n.status.uri === p.uri);
    assert.equal(mention?.account.acct, `alice@${hostA}`);

    // And from B to A: a public post mentioning alice, with a hashtag.
    q = (await api(b.url, bob, 'POST', '/api/v1/statuses', { status: `@alice@${hostA} the pond is full of frogs #ponds` })).body;
    qOnA = await arrived(a, alice, q.uri);
    assert.equal(qOnA.account.acct, `bob@${hostB}`);
    assert.match(qOnA.content, /the pond is full of frogs/);
    assert.equal(qOnA.visibility, 'public');
    assert.deepEqual(qOnA.mentions, [{ id: aliceId, username: 'alice', url: `${a.url}/@alice`, acct: 'alice' }]);
    assert.deepEqual(
      qOnA.tags.map((t: Json) => t.name),
      ['ponds'],
    );
    assert.deepEqual(qOnA.media_attachments, []);
    assert.equal((await notifications(a, alice, 'mention')).find((n) => n.status.uri === q.uri)?.account.acct, `bob@${hostB}`);
  });

  it("an unlisted post reaches the follower's home on the other side but none of its public timelines", async () => {
    const quiet = (await api(b.url, bob, 'POST', '/api/v1/statuses', { status: 'quietly, for those who follow me', visibility: 'unlisted' })).body;
    const onA = await arrived(a, alice, quiet.uri);
    assert.equal(onA.visibility, 'unlisted');
    assert.match(onA.content, /quietly, for those who follow me/);
    for (const path of ['/api/v1/timelines/public', '/api/v1/timelines/public?remote=true', '/api/v1/timelines/public?local=true']) {
      assert.ok(!(await api(a.url, alice, 'GET', path)).body.some((x: Json) => x.uri === quiet.uri), path);
    }
    // Unlisted is not private: anyone on A may open it by its id.
    assert.equal((await status(a, undefined, onA.id)).body.uri, quiet.uri);
  });

  it("a reply thread crosses both ways, threaded on each side with that side's own ids", async () => {
    r1 = (await api(b.url, bob, 'POST', '/api/v1/statuses', { status: `@alice@${hostA} lovely bird`, in_reply_to_id: pOnB.id })).body;
    assert.equal(r1.in_reply_to_id, pOnB.id);
    await eventually(async () => {
      const ctx = (await api(a.url, alice, 'GET', `/api/v1/statuses/${p.id}/context`)).body;
      assert.deepEqual(
        ctx.descendants.map((x: Json) => x.uri),
        [r1.uri],
      );
      r1OnA = ctx.descendants[0];
    });
    assert.equal(r1OnA.in_reply_to_id, p.id);
    assert.equal(r1OnA.in_reply_to_account_id, aliceId);
    assert.equal(r1OnA.account.acct, `bob@${hostB}`);
    assert.equal((await status(a, alice, p.id)).body.replies_count, 1);
    assert.ok((await notifications(a, alice, 'mention')).some((n) => n.status.uri === r1.uri));

    // alice answers bob's reply on A; on B the answer sits under bob's reply.
    const r2 = (await api(a.url, alice, 'POST', '/api/v1/statuses', { status: `@bob@${hostB} thank you!`, in_reply_to_id: r1OnA.id })).body;
    assert.equal(r2.in_reply_to_id, r1OnA.id);
    let r2OnB: Json;
    await eventually(async () => {
      const ctx = (await api(b.url, bob, 'GET', `/api/v1/statuses/${pOnB.id}/context`)).body;
      assert.deepEqual(
        ctx.descendants.map((x: Json) => x.uri),
        [r1.uri, r2.uri],
      );
      r2OnB = ctx.descendants[1];
    });
    assert.equal(r2OnB.in_reply_to_id, r1.id);
    assert.equal(r2OnB.in_reply_to_account_id, bobId);
    const above = (await api(b.url, bob, 'GET', `/api/v1/statuses/${r2OnB.id}/context`)).body;
    assert.deepEqual(
      above.ancestors.map((x: Json) => x.id),
      [pOnB.id, r1.id],
    );
    assert.equal((await status(b, bob, r1.id)).body.replies_count, 1);
    assert.equal((await status(b, bob, pOnB.id)).body.replies_count, 1);
    const thread = (await api(a.url, alice, 'GET', `/api/v1/statuses/${p.id}/context`)).body;
    assert.deepEqual(
      thread.descendants.map((x: Json) => x.uri),
      [r1.uri, r2.uri],
    );
  });

  it("a boost is counted and notified on the author's server, which shows it as a reblog, both ways", async () => {
    const boost = await api(b.url, bob, 'POST', `/api/v1/statuses/${pOnB.id}/reblog`);
    assert.equal(boost.status, 200, boost.text);
    assert.equal(boost.body.reblog.id, pOnB.id);
    await eventually(async () => assert.equal((await status(a, alice, p.id)).body.reblogs_count, 1));
    assert.deepEqual(accts((await api(a.url, alice, 'GET', `/api/v1/statuses/${p.id}/reblogged_by`)).body), [`bob@${hostB}`]);
    const note = (await notifications(a, alice, 'reblog')).find((n) => n.status.id === p.id);
    assert.equal(note?.account.acct, `bob@${hostB}`);
    const onProfile = (await api(a.url, alice, 'GET', `/api/v1/accounts/${bobOnA}/statuses`)).body.find((x: Json) => x.reblog?.uri === p.uri);
    assert.ok(onProfile, "the boost is among bob's statuses on A");
    assert.equal(onProfile.account.acct, `bob@${hostB}`);
    assert.equal(onProfile.reblog.id, p.id);
    assert.equal(onProfile.reblog.account.acct, 'alice');

    assert.equal((await api(a.url, alice, 'POST', `/api/v1/statuses/${qOnA.id}/reblog`)).status, 200);
    await eventually(async () => assert.equal((await status(b, bob, q.id)).body.reblogs_count, 1));
    assert.deepEqual(accts((await api(b.url, bob, 'GET', `/api/v1/statuses/${q.id}/reblogged_by`)).body), [`alice@${hostA}`]);
    assert.equal((await notifications(b, bob, 'reblog')).find((n) => n.status.id === q.id)?.account.acct, `alice@${hostA}`);
    const onB = (await api(b.url, bob, 'GET', `/api/v1/accounts/${aliceOnB}/statuses`)).body.find((x: Json) => x.reblog?.uri === q.uri);
    assert.equal(onB?.reblog.id, q.id);
  });

  it("a favourite is counted and notified on the author's server, both ways", async () => {
    const fav = await api(b.url, bob, 'POST', `/api/v1/statuses/${pOnB.id}/favourite`);
    assert.equal(fav.body.favourited, true);
    assert.equal(fav.body.favourites_count, 1);
    await eventually(async () => assert.equal((await status(a, alice, p.id)).body.favourites_count, 1));
    assert.equal((await status(a, alice, p.id)).body.favourited, false, "alice's own flag stays hers");
    assert.deepEqual(accts((await api(a.url, alice, 'GET', `/api/v1/statuses/${p.id}/favourited_by`)).body), [`bob@${hostB}`]);
    assert.equal((await notifications(a, alice, 'favourite')).find((n) => n.status.id === p.id)?.account.acct, `bob@${hostB}`);

    assert.equal((await api(a.url, alice, 'POST', `/api/v1/statuses/${qOnA.id}/favourite`)).body.favourited, true);
    await eventually(async () => assert.equal((await status(b, bob, q.id)).body.favourites_count, 1));
    assert.deepEqual(accts((await api(b.url, bob, 'GET', `/api/v1/statuses/${q.id}/favourited_by`)).body), [`alice@${hostA}`]);
    assert.equal((await notifications(b, bob, 'favourite')).find((n) => n.status.id === q.id)?.account.acct, `alice@${hostA}`);
  });

  it("a poll arrives as a Question and the other side's vote is counted by its author, both ways", async () => {
    const poll = (await api(a.url, alice, 'POST', '/api/v1/statuses', { status: 'Tea or coffee?', poll: { options: ['Tea', 'Coffee'], expires_in: 3600 } }))
      .body;
    const onB = await arrived(b, bob, poll.uri);
    assert.deepEqual(
      onB.poll.options.map((o: Json) => o.title),
      ['Tea', 'Coffee'],
    );
    assert.equal(onB.poll.multiple, false);
    assert.equal(onB.poll.expired, false);
    assert.equal(Date.parse(onB.poll.expires_at), Math.floor(Date.parse(poll.poll.expires_at) / 1000) * 1000);
    assert.equal(onB.poll.voted, false);
    const voted = await api(b.url, bob, 'POST', `/api/v1/polls/${onB.poll.id}/votes`, { choices: [1] });
    assert.equal(voted.status, 200, voted.text);
    assert.deepEqual(voted.body.own_votes, [1]);
    assert.equal(voted.body.voted, true);
    await eventually(async () => {
      const there = (await status(a, alice, poll.id)).body.poll;
      assert.deepEqual(
        there.options.map((o: Json) => o.votes_count),
        [0, 1],
      );
      assert.equal(there.votes_count, 1);
    });
    // The counts come back to the voter's side in an Update of the Question.
    await eventually(async () => {
      const here = (await status(b, bob, onB.id)).body.poll;
      assert.deepEqual(
        here.options.map((o: Json) => o.votes_count),
        [0, 1],
      );
      assert.equal(here.votes_count, 1);
      assert.deepEqual(here.own_votes, [1]);
    });
    assert.deepEqual((await api(a.url, alice, 'GET', `/api/v1/statuses/${poll.id}/context`)).body.descendants, [], 'a vote is not a reply');

    // bob's multiple-choice poll on B: alice's two choices reach B as two votes of one voter.
    const many = (
      await api(b.url, bob, 'POST', '/api/v1/statuses', {
        status: 'Which ponds?',
        poll: { options: ['North', 'South', 'East'], expires_in: 3600, multiple: true },
      })
    ).body;
    const onA = await arrived(a, alice, many.uri);
    assert.equal(onA.poll.multiple, true);
    assert.deepEqual((await api(a.url, alice, 'POST', `/api/v1/polls/${onA.poll.id}/votes`, { choices: [0, 2] })).body.own_votes, [0, 2]);
    await eventually(async () => {
      const there = (await status(b, bob, many.id)).body.poll;
      assert.deepEqual(
        there.options.map((o: Json) => o.votes_count),
        [1, 0, 1],
      );
      assert.equal(there.voters_count, 1);
    });
    await eventually(async () => {
      const here = (await status(a, alice, onA.id)).body.poll;
      assert.deepEqual(
        here.options.map((o: Json) => o.votes_count),
        [1, 0, 1],
      );
      assert.equal(here.voters_count, 1);
    });
  });

  it('a quote shows the quoted post on the other side, and its author is told, both ways', async () => {
    const quoting = (await api(b.url, bob, 'POST', '/api/v1/statuses', { status: 'worth a look', quoted_status_id: pOnB.id })).body;
    assert.equal(quoting.quote.quoted_status.id, pOnB.id);
    const onA = await arrived(a, alice, quoting.uri);
    assert.equal(onA.quote.state, 'accepted');
    assert.equal(onA.quote.quoted_status.id, p.id);
    assert.match(onA.quote.quoted_status.content, /a heron/);
    const told = (await notifications(a, alice, 'quote')).find((n) => n.status.uri === quoting.uri);
    assert.equal(told?.account.acct, `bob@${hostB}`);
    assert.equal(told.status.quote.quoted_status.id, p.id);

    const back = (await api(a.url, alice, 'POST', '/api/v1/statuses', { status: 'frogs!', quoted_status_id: qOnA.id })).body;
    const onB = await arrived(b, bob, back.uri);
    assert.equal(onB.quote.state, 'accepted');
    assert.equal(onB.quote.quoted_status.id, q.id);
    assert.equal((await notifications(b, bob, 'quote')).find((n) => n.status.uri === back.uri)?.account.acct, `alice@${hostA}`);
  });

  it('an emoji reaction shows on the other side with its count and whose it is, both ways', async () => {
    const path = (id: string, emoji: string) => `/api/v1/pleroma/statuses/${id}/reactions/${encodeURIComponent(emoji)}`;
    const reacted = await api(b.url, bob, 'PUT', path(pOnB.id, '🎉'));
    assert.deepEqual(reacted.body.pleroma.emoji_reactions, [{ name: '🎉', count: 1, me: true, url: null }]);
    await eventually(async () =>
      assert.deepEqual((await status(a, alice, p.id)).body.pleroma.emoji_reactions, [{ name: '🎉', count: 1, me: false, url: null }]),
    );
    const mine = await api(a.url, alice, 'PUT', path(p.id, '🎉'));
    assert.deepEqual(mine.body.pleroma.emoji_reactions, [{ name: '🎉', count: 2, me: true, url: null }]);
    const who = (await api(a.url, alice, 'GET', `/api/v1/pleroma/statuses/${p.id}/reactions`)).body;
    assert.deepEqual(
      who.map((r: Json) => [r.name, accts(r.accounts)]),
      [['🎉', [`bob@${hostB}`, 'alice']]],
    );

    await api(a.url, alice, 'PUT', path(qOnA.id, '👍'));
    await eventually(async () => assert.deepEqual((await status(b, bob, q.id)).body.pleroma.emoji_reactions, [{ name: '👍', count: 1, me: false, url: null }]));
  });

  it("a forwarded report is filed on the reported member's server, both ways", async () => {
    const filed = await api(b.url, bob, 'POST', '/api/v1/reports', {
      account_id: aliceOnB,
      status_ids: [pOnB.id],
      comment: 'too many herons',
      forward: true,
      category: 'other',
    });
    assert.equal(filed.status, 200, filed.text);
    assert.equal(filed.body.forwarded, true);
    assert.equal(
      (await api(a.url, alice, 'POST', '/api/v1/reports', { account_id: bobOnA, status_ids: [qOnA.id], comment: 'frog spam', forward: true })).status,
      200,
    );
    // What each server's moderators see through the admin API: the report about their own member and that member's
    // post, with the reporter's comment, filed as coming from the other server's instance actor (the reporting
    // member is not named); beside it, as in Mastodon, their own member's report about the remote account.
    const filedOn = async (s: TestServer, token: string) =>
      (await api(s.url, token, 'GET', '/api/v1/admin/reports')).body
        .map((r: Json) => ({
          comment: r.comment,
          status_ids: r.statuses.map((x: Json) => x.id),
          target: r.target_account.account.acct,
          reporter: r.account.account.uri,
          forwarded: r.forwarded,
        }))
        .sort((x: Json, y: Json) => x.comment.localeCompare(y.comment));
    const [modA, modB] = await Promise.all([adminToken(a, 'admin:read:reports'), adminToken(b, 'admin:read:reports')]);
    await eventually(async () => {
      assert.deepEqual(await filedOn(a, modA), [
        { comment: 'frog spam', status_ids: [qOnA.id], target: `bob@${hostB}`, reporter: `${a.url}/users/alice`, forwarded: true },
        { comment: 'too many herons', status_ids: [p.id], target: 'alice', reporter: `${b.url}/actor`, forwarded: false },
      ]);
      assert.deepEqual(await filedOn(b, modB), [
        { comment: 'frog spam', status_ids: [q.id], target: 'bob', reporter: `${a.url}/actor`, forwarded: false },
        { comment: 'too many herons', status_ids: [pOnB.id], target: `alice@${hostA}`, reporter: `${b.url}/users/bob`, forwarded: true },
      ]);
    });
  });

  it('a delete removes the post on the other side: gone from timelines and threads, 404, its notifications withdrawn, both ways', async () => {
    // bob deletes his reply: A drops it from alice's thread and from her notifications.
    assert.equal((await api(b.url, bob, 'DELETE', `/api/v1/statuses/${r1.id}`)).status, 200);
    await eventually(async () => assert.equal((await status(a, alice, r1OnA.id)).status, 404));
    assert.ok(!(await api(a.url, alice, 'GET', `/api/v1/statuses/${p.id}/context`)).body.descendants.some((x: Json) => x.uri === r1.uri));
    assert.ok(!(await api(a.url, alice, 'GET', '/api/v1/timelines/home')).body.some((x: Json) => x.uri === r1.uri));
    assert.ok(!(await notifications(a, alice)).some((n) => n.status?.uri === r1.uri));

    // alice deletes her post: B drops it, bob's boost of it and the mention bob was told of.
    assert.ok((await notifications(b, bob, 'mention')).some((n) => n.status.uri === p.uri));
    assert.equal((await api(a.url, alice, 'DELETE', `/api/v1/statuses/${p.id}`)).status, 200);
    await eventually(async () => assert.equal((await status(b, bob, pOnB.id)).status, 404));
    const home = (await api(b.url, bob, 'GET', '/api/v1/timelines/home')).body;
    assert.ok(!home.some((x: Json) => x.uri === p.uri || x.reblog?.uri === p.uri));
    assert.ok(!(await api(b.url, bob, 'GET', `/api/v1/accounts/${bobId}/statuses`)).body.some((x: Json) => x.reblog?.uri === p.uri));
    assert.ok(!(await api(b.url, undefined, 'GET', '/api/v1/timelines/public?remote=true')).body.some((x: Json) => x.uri === p.uri));
    assert.ok(!(await notifications(b, bob)).some((n) => n.status?.uri === p.uri));
    assert.ok(!(await notifications(a, alice)).some((n) => n.status?.id === p.id), "alice's notifications about her post went with it");
  });
});
