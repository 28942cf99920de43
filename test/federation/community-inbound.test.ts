// What a Lemmy 0.19 community announces, as Lemmy sends it (its own fixtures, test/fixtures/lemmy/, moved onto a
// loopback peer that signs as the Group): the Group filed as a community with its moderators, a member's follow
// completed by Lemmy's Accept, posts and comments filed in the community's tree, the double announce stored once,
// votes counted and undone, edits and deletes applied, a cross-origin object fetched rather than trusted, the home
// feed holding a community's posts only for its followers, and a suspended domain's posts refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { addLemmyCommunity, announce, groupExtra, lemmyFixture } from '../support/lemmy-fixtures.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('a Lemmy community, inbound', () => {
  let s: TestServer;
  let peer: FakePeer;
  let other: FakePeer;
  let ann: string; // follows the community
  let bob: string; // follows nothing
  let cat: string; // follows the author only
  let operator: string;
  let groupId: string;
  let groupAccount: string;

  const q = async (sql: string, values: unknown[] = []): Promise<Json[]> => (await s.app.db.pool.query(sql, values)).rows;
  const fixture = (path: string, salt?: string) => lemmyFixture(path, peer.url, { community: 'main', ...(salt ? { salt } : {}) });
  /** POSTs the Group's Announce of `object` and waits until the inbox worker has processed it. */
  const announced = async (object: unknown, from: FakePeer = peer, group = 'main'): Promise<string> => {
    const a = announce(from, from.actor(group).id, object);
    const r = await from.signedPost(`${s.url}/inbox`, a, { actor: group });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    await eventually(async () => assert.equal((await q('SELECT 1 FROM inbox_jobs WHERE activity_id = $1 AND processed_at IS NOT NULL', [a.id])).length, 1));
    return a.id;
  };
  const statusRow = async (uri: string): Promise<Json | undefined> =>
    (await q('SELECT id::text, content, deleted_at, account_id::text FROM statuses WHERE uri = $1', [uri]))[0];
  const postRow = async (uri: string): Promise<Json | undefined> =>
    (
      await q(
        `SELECT p.id::int, p.community_id::int, p.name, p.url, p.body, p.nsfw, p.upvotes, p.downvotes, p.score, p.comments
         FROM lemmy_posts p JOIN statuses s ON s.id = p.status_id WHERE s.uri = $1`,
        [uri],
      )
    )[0];
  const commentRow = async (uri: string): Promise<Json | undefined> =>
    (
      await q(
        `SELECT c.id::int, c.post_id::int, c.path, c.body, c.upvotes, c.downvotes, c.score
         FROM lemmy_comments c JOIN statuses s ON s.id = c.status_id WHERE s.uri = $1`,
        [uri],
      )
    )[0];
  const home = async (token: string): Promise<Json[]> => (await api(s.url, token, 'GET', '/api/v1/timelines/home?limit=40')).body;
  const communityId = async (): Promise<number> => (await q('SELECT id::int FROM lemmy_communities WHERE account_id = $1', [groupAccount]))[0].id;

  before(async () => {
    [s, peer, other] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer(), startFakeActorPeer()]);
    const m = await createMembers(s, ['ann', 'bob', 'cat', 'boss'], { boss: 'admin' });
    cat = m.token['cat']!;
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    ann = m.token['ann']!;
    bob = m.token['bob']!;
    for (const name of ['lemmy_alpha', 'lemmy_beta', 'picard']) await peer.addActor(name);
    await other.addActor('mallory');
    groupId = await addLemmyCommunity(peer, 'main', [peer.actor('picard').id]);
    await peer.addActor('lonely', { extra: groupExtra(peer, 'lonely') });
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop(), other?.stop()]);
  });

  it('files the Group as a community with its moderators, and completes a follow with Lemmy’s Accept', async () => {
    const found = await api(s.url, ann, 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(`main@${peer.host}`)}`);
    assert.equal(found.status, 200, found.text);
    const account = found.body.accounts[0];
    assert.equal(account.acct, `main@${peer.host}`);
    groupAccount = account.id;
    const [c] = await q('SELECT moderators_url, posting_restricted_to_mods, nsfw FROM lemmy_communities WHERE account_id = $1', [groupAccount]);
    assert.deepEqual(c, { moderators_url: `${groupId}/moderators`, posting_restricted_to_mods: false, nsfw: false });
    await eventually(async () => {
      const mods = await q(
        `SELECT a.uri FROM lemmy_community_moderators m JOIN accounts a ON a.id = m.account_id
         JOIN lemmy_communities c ON c.id = m.community_id WHERE c.account_id = $1 ORDER BY m.position`,
        [groupAccount],
      );
      assert.deepEqual(
        mods.map((r) => r.uri),
        [peer.actor('picard').id],
      );
    });

    assert.equal((await api(s.url, ann, 'POST', `/api/v1/accounts/${groupAccount}/follow`)).status, 200);
    const follow = (await peer.waitForPost((r) => r.path === '/users/main/inbox' && r.body?.['type'] === 'Follow')).body!;
    // Lemmy's Accept embeds the Follow it accepts (following/accept.json), here the one ann's server sent.
    const accept = fixture('activities/following/accept.json');
    accept.to = [follow['actor']];
    accept.object = { ...accept.object, actor: follow['actor'], id: follow['id'], object: groupId };
    assert.equal((await peer.signedPost(`${s.url}/inbox`, accept, { actor: 'main' })).status, 202);
    await eventually(async () => {
      const rel = (await api(s.url, ann, 'GET', `/api/v1/accounts/relationships?id[]=${groupAccount}`)).body[0];
      assert.equal(rel.following, true);
      assert.equal(rel.requested, false);
    });
  });

  it('lets a member follow a community’s author (a Lemmy person) as any remote account', async () => {
    const found = await api(s.url, cat, 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(`lemmy_alpha@${peer.host}`)}`);
    const alpha = found.body.accounts[0].id;
    assert.equal((await api(s.url, cat, 'POST', `/api/v1/accounts/${alpha}/follow`)).status, 200);
    const follow = (await peer.waitForPost((r) => r.path === '/users/lemmy_alpha/inbox' && r.body?.['type'] === 'Follow')).body!;
    const accept = { ...fixture('activities/following/accept.json', 'cat'), actor: follow['object'], to: [follow['actor']], object: follow };
    assert.equal((await peer.signedPost(`${s.url}/inbox`, accept, { actor: 'lemmy_alpha' })).status, 202);
    await eventually(async () => assert.equal((await api(s.url, cat, 'GET', `/api/v1/accounts/relationships?id[]=${alpha}`)).body[0].following, true));
  });

  it('files an announced Page as a post of the community, shown as the Group’s boost with its title and link', async () => {
    const create = fixture('activities/create_or_update/create_page.json');
    await announced(create);
    const page = create.object;
    const post = await postRow(page.id);
    assert.deepEqual(post && { ...post, id: 0 }, {
      id: 0,
      community_id: await communityId(),
      name: 'test post',
      url: 'https://lemmy.ml/pictrs/image/xl8W7FZfk9.jpg',
      body: 'test body',
      nsfw: false,
      upvotes: 0,
      downvotes: 0,
      score: 0,
      comments: 0,
    });
    const feed = await home(ann);
    const boosts = feed.filter((x) => x.reblog?.uri === page.id);
    assert.equal(boosts.length, 1, 'the Group’s boost is in the follower’s home');
    assert.equal(boosts[0].account.acct, `main@${peer.host}`);
    assert.equal(boosts[0].account.group, true, 'Mastodon clients see a group');
    const shown = boosts[0].reblog;
    assert.equal(shown.account.acct, `lemmy_alpha@${peer.host}`);
    assert.match(shown.content, /^<p><strong>test post<\/strong><\/p><p><a href="https:\/\/lemmy\.ml\/pictrs\/image\/xl8W7FZfk9\.jpg"/);
    assert.match(shown.content, /<p>test body<\/p>/);
    assert.equal(shown.language, 'ko');
    assert.equal(shown.visibility, 'public');
  });

  it('stores the post once when Lemmy announces it again in the compat form (the Page, then its id)', async () => {
    const page = fixture('activities/create_or_update/create_page.json').object;
    await announced(page);
    await announced(page.id);
    const statuses = await q('SELECT id FROM statuses WHERE uri = $1', [page.id]);
    assert.equal(statuses.length, 1);
    assert.equal((await q('SELECT count(*)::int AS n FROM lemmy_posts WHERE status_id = $1', [statuses[0].id]))[0].n, 1);
    const boosts = await q('SELECT count(*)::int AS n FROM statuses WHERE reblog_of_id = $1 AND account_id = $2 AND deleted_at IS NULL', [
      statuses[0].id,
      groupAccount,
    ]);
    assert.equal(boosts[0].n, 1, 'one boost by the Group');
    assert.equal((await home(ann)).filter((x) => x.reblog?.uri === page.id).length, 1);
    const shown = (await api(s.url, ann, 'GET', `/api/v1/statuses/${statuses[0].id}`)).body;
    assert.equal(shown.reblogs_count, 1, 'Mastodon clients count the one boost');
    assert.equal(shown.favourites_count, 0);
  });

  it('stores one post and one boost when both Announces of a post arrive at once', async () => {
    const create = fixture('activities/create_or_update/create_page.json', 'both');
    const forms = [announce(peer, groupId, create), announce(peer, groupId, create.object), announce(peer, groupId, create.object.id)];
    const sent = await Promise.all(forms.map((a) => peer.signedPost(`${s.url}/inbox`, a, { actor: 'main' })));
    assert.deepEqual(
      sent.map((r) => r.status),
      [202, 202, 202],
    );
    await eventually(async () =>
      assert.equal((await q('SELECT 1 FROM inbox_jobs WHERE activity_id = ANY($1) AND processed_at IS NOT NULL', [forms.map((a) => a.id)])).length, 3),
    );
    const [st] = await q('SELECT id FROM statuses WHERE uri = $1', [create.object.id]);
    assert.ok(st);
    assert.equal((await q('SELECT count(*)::int AS n FROM lemmy_posts WHERE status_id = $1', [st.id]))[0].n, 1);
    assert.equal((await q('SELECT count(*)::int AS n FROM statuses WHERE reblog_of_id = $1 AND deleted_at IS NULL', [st.id]))[0].n, 1);
  });

  it('files Lemmy’s own announce_create_page.json verbatim (no audience, no body)', async () => {
    const a = fixture('activities/community/announce_create_page.json');
    await announced(a.object);
    const post = await postRow(a.object.object.id);
    assert.equal(post?.name, 'post 4');
    assert.equal(post?.url, null);
    assert.equal(post?.community_id, await communityId());
  });

  it('keeps the community’s posts out of the home feed of a member who follows neither it nor the author', async () => {
    const page = fixture('activities/create_or_update/create_page.json').object;
    const feed = await home(bob);
    assert.deepEqual(
      feed.filter((x) => x.uri === page.id || x.reblog?.uri === page.id),
      [],
    );
    assert.ok(
      (await home(ann)).some((x) => x.reblog?.uri === page.id),
      'while the follower sees it',
    );
    // Still readable by address, as any public post.
    const st = await statusRow(page.id);
    assert.equal((await api(s.url, bob, 'GET', `/api/v1/statuses/${st.id}`)).status, 200);
  });

  it('files comments under their post and their parent comment, with Lemmy’s path', async () => {
    const c1 = fixture('activities/create_or_update/create_note.json');
    await announced(c1);
    const post = await postRow(fixture('activities/create_or_update/create_page.json').object.id);
    const first = await commentRow(c1.object.id);
    assert.ok(first, 'the comment is filed');
    assert.equal(first.post_id, post!.id);
    assert.equal(first.path, `0.${first.id}`);
    assert.equal(first.body, 'hello');
    // A reply to the comment (objects/note.json, picard answering it).
    const note = fixture('objects/note.json');
    const reply = { ...note, inReplyTo: c1.object.id };
    await announced({ ...c1, id: peer.newId('activities/create'), actor: note.attributedTo, object: reply });
    const second = await commentRow(note.id);
    assert.equal(second?.post_id, post!.id);
    assert.equal(second?.path, `0.${first.id}.${second?.id}`);
    assert.equal(second?.body, 'first comment!');
    assert.equal((await postRow(fixture('activities/create_or_update/create_page.json').object.id))?.comments, 2);
    const shown = (await api(s.url, ann, 'GET', `/api/v1/statuses/${(await statusRow(note.id)).id}`)).body;
    assert.equal(shown.in_reply_to_id, (await statusRow(c1.object.id)).id);
    // A comment is not a post: no boost by the Group.
    assert.equal((await q('SELECT count(*)::int AS n FROM statuses WHERE reblog_of_id = $1', [(await statusRow(note.id)).id]))[0].n, 0);
  });

  it('counts votes on the community’s word and takes them back on Undo', async () => {
    const pageId = fixture('activities/create_or_update/create_page.json').object.id;
    const commentId = fixture('activities/create_or_update/create_note.json').object.id;
    const undoLike = fixture('activities/voting/undo_like_note.json');
    await announced(undoLike.object); // the Like the Undo takes back (voting/undo_like_note.json's object)
    assert.deepEqual(await commentRow(commentId).then((c) => [c?.upvotes, c?.downvotes, c?.score]), [1, 0, 1]);
    const dislike = fixture('activities/voting/dislike_page.json');
    await announced(dislike);
    assert.deepEqual(await postRow(pageId).then((p) => [p?.upvotes, p?.downvotes, p?.score]), [0, 1, -1]);
    await announced(undoLike);
    assert.deepEqual(await commentRow(commentId).then((c) => [c?.upvotes, c?.score]), [0, 0]);
    const undoDislike = fixture('activities/voting/undo_dislike_page.json');
    await announced({ ...undoDislike, object: dislike });
    assert.deepEqual(await postRow(pageId).then((p) => [p?.downvotes, p?.score]), [0, 0]);
    // Someone else's Undo of a vote does not remove it.
    await announced(dislike);
    await announced({
      ...undoDislike,
      id: peer.newId('activities/undo'),
      actor: peer.actor('picard').id,
      object: { ...dislike, actor: peer.actor('picard').id },
    });
    assert.equal((await postRow(pageId))?.downvotes, 1);
  });

  it('takes back no vote in the community on another Group’s word', async () => {
    const pageId = fixture('activities/create_or_update/create_page.json').object.id;
    const dislike = fixture('activities/voting/dislike_page.json'); // lemmy_alpha's, counted by the test above
    assert.equal((await postRow(pageId))?.downvotes, 1);
    const evil = await addLemmyCommunity(peer, 'evil', [peer.actor('picard').id]);
    const found = await api(s.url, bob, 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(`evil@${peer.host}`)}`);
    const evilAccount = found.body.accounts[0].id;
    assert.equal((await api(s.url, bob, 'POST', `/api/v1/accounts/${evilAccount}/follow`)).status, 200);
    const follow = (await peer.waitForPost((r) => r.path === '/users/evil/inbox' && r.body?.['type'] === 'Follow')).body!;
    const accept = { ...fixture('activities/following/accept.json', 'evil'), actor: evil, to: [follow['actor']], object: follow };
    assert.equal((await peer.signedPost(`${s.url}/inbox`, accept, { actor: 'evil' })).status, 202);
    await eventually(async () => assert.equal((await api(s.url, bob, 'GET', `/api/v1/accounts/relationships?id[]=${evilAccount}`)).body[0].following, true));
    const undo = fixture('activities/voting/undo_dislike_page.json', 'evil');
    // By the vote's own id, and (as Lemmy sends it) with a fresh id: neither is the evil Group's to take back.
    await announced({ ...undo, object: dislike }, peer, 'evil');
    await announced({ ...undo, id: peer.newId('activities/undo'), object: { ...dislike, id: peer.newId('activities/dislike') } }, peer, 'evil');
    assert.equal((await postRow(pageId))?.downvotes, 1);
  });

  it('applies an announced Update to the status and the post', async () => {
    const update = fixture('activities/create_or_update/update_page.json');
    await announced(update);
    const post = await postRow(update.object.id);
    assert.equal(post?.name, 'test post 1');
    const st = await statusRow(update.object.id);
    const shown = (await api(s.url, ann, 'GET', `/api/v1/statuses/${st.id}`)).body;
    assert.match(shown.content, /<strong>test post 1<\/strong>/);
    assert.equal(shown.edited_at, '2021-10-29T15:11:35.976Z');
    // A comment's edit changes its body.
    const c1 = fixture('activities/create_or_update/create_note.json');
    const edited = {
      ...c1,
      id: peer.newId('activities/update'),
      type: 'Update',
      object: {
        ...c1.object,
        content: '<p>hello again</p>',
        source: { content: 'hello *again*', mediaType: 'text/markdown' },
        updated: new Date().toISOString(),
      },
    };
    await announced(edited);
    assert.equal((await commentRow(c1.object.id))?.body, 'hello *again*');
    assert.match((await statusRow(c1.object.id)).content, /hello again/);
  });

  it('applies a moderator’s removal and the author’s Delete announced by the Group', async () => {
    const remove = fixture('activities/deletion/remove_note.json');
    const held = await commentRow(remove.object);
    const counted = async () => (await q('SELECT comments FROM lemmy_posts WHERE id = $1', [held?.post_id]))[0]?.comments;
    const before = await counted();
    await announced(remove);
    const comment = await statusRow(remove.object);
    assert.ok(comment.deleted_at, 'the comment is removed');
    assert.equal(await counted(), before - 1, 'and counts no more in its post');
    const del = fixture('activities/deletion/delete_page.json');
    await announced(del);
    const page = await statusRow(del.object);
    assert.ok(page.deleted_at, 'the post is deleted');
    assert.equal((await api(s.url, ann, 'GET', `/api/v1/statuses/${page.id}`)).status, 404);
    assert.equal((await home(ann)).filter((x) => x.reblog?.uri === del.object).length, 0);
  });

  it('fetches an object of another origin from there rather than trusting the embedded copy', async () => {
    const mallory = other.actor('mallory').id;
    const id = `${other.url}/post/900`;
    const genuine = {
      ...fixture('objects/page.json'),
      id,
      attributedTo: mallory,
      audience: groupId,
      name: 'genuine title',
      content: '<p>genuine</p>',
      source: { content: 'genuine', mediaType: 'text/markdown' },
    };
    other.serve(genuine);
    const forged = { ...genuine, name: 'forged title', content: '<p>forged</p>', source: { content: 'forged', mediaType: 'text/markdown' } };
    await announced({ ...fixture('activities/create_or_update/create_page.json', 'x1'), actor: mallory, object: forged });
    const post = await postRow(id);
    assert.equal(post?.name, 'genuine title');
    assert.equal(post?.body, 'genuine');
    assert.match((await statusRow(id)).content, /genuine/);
    assert.doesNotMatch((await statusRow(id)).content, /forged/);
    // An object its origin does not serve is not stored at all.
    const missing = { ...forged, id: `${other.url}/post/901` };
    await announced({ ...fixture('activities/create_or_update/create_page.json', 'x2'), actor: mallory, object: missing });
    assert.equal(await statusRow(missing.id), undefined);
  });

  it('files no status of another origin that does not name the Group, and deletes none on its word', async () => {
    const mallory = other.actor('mallory').id;
    const plain = {
      id: `${other.url}/statuses/950`,
      type: 'Note',
      attributedTo: mallory,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${mallory}/followers`],
      content: '<p>an ordinary status</p>',
      published: '2026-01-01T00:00:00Z',
    };
    other.serve(plain);
    const found = await api(s.url, bob, 'GET', `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(plain.id)}`);
    assert.equal(found.body.statuses?.length, 1, found.text);
    const create = fixture('activities/create_or_update/create_page.json', 'claim');
    await announced({ ...create, actor: mallory, object: plain });
    assert.equal(await postRow(plain.id), undefined, 'the existing status stays plain');
    // Nor is a fresh one of another origin filed when it names no community.
    const fresh = { ...plain, id: `${other.url}/statuses/951` };
    other.serve(fresh);
    await announced({ ...fixture('activities/create_or_update/create_page.json', 'claim2'), actor: mallory, object: fresh });
    assert.equal(await statusRow(fresh.id), undefined);
    await announced({ ...fixture('activities/deletion/delete_page.json', 'claim3'), actor: mallory, object: plain.id });
    assert.equal((await statusRow(plain.id))?.deleted_at, null, 'the status stays');
  });

  it('fetches the ancestors of a comment whose thread it does not hold, without boosting the old post', async () => {
    const post = { ...fixture('objects/page.json', 'old'), id: `${peer.url}/post/77`, name: 'an older post' };
    const parent = { ...fixture('objects/note.json', 'old'), id: `${peer.url}/comment/77`, inReplyTo: post.id };
    peer.serve(post);
    peer.serve(parent);
    const reply = {
      ...fixture('objects/note.json', 'old'),
      id: `${peer.url}/comment/78`,
      inReplyTo: parent.id,
      content: '<p>late reply</p>',
      source: undefined,
    };
    await announced({ ...fixture('activities/create_or_update/create_note.json', 'old'), actor: reply.attributedTo, object: reply });
    const p = await postRow(post.id);
    assert.equal(p?.name, 'an older post');
    const c1 = await commentRow(parent.id);
    const c2 = await commentRow(reply.id);
    assert.equal(c1?.path, `0.${c1?.id}`);
    assert.equal(c2?.path, `0.${c1?.id}.${c2?.id}`);
    assert.equal(c2?.body, 'late reply', 'the body from the HTML when there is no markdown source');
    assert.equal((await q('SELECT count(*)::int AS n FROM statuses WHERE reblog_of_id = $1', [(await statusRow(post.id)).id]))[0].n, 0);
  });

  it('boosts a member’s own post the community announces back, once', async () => {
    const own = (await api(s.url, ann, 'POST', '/api/v1/statuses', { status: 'a post of ours in the community' })).body;
    await q(`INSERT INTO lemmy_posts (status_id, community_id, name, published, newest_comment_time) VALUES ($1, $2, 'ours', now(), now())`, [
      own.id,
      await communityId(),
    ]);
    const create = fixture('activities/create_or_update/create_page.json', 'ours');
    await announced({ ...create, actor: own.account.url, object: { ...create.object, id: own.uri, attributedTo: own.account.url } });
    await announced(own.uri);
    assert.equal((await q('SELECT count(*)::int AS n FROM statuses WHERE reblog_of_id = $1 AND account_id = $2', [own.id, groupAccount]))[0].n, 1);
  });

  it('takes an announced Update of the Group as the community’s new description', async () => {
    const update = fixture('activities/community/update_community.json', 'grp');
    // The Group's document as its server serves it (its own key), with the fixture's changes and NSFW set.
    const doc = { ...peer.document('main'), ...groupExtra(peer, 'main'), name: update.object.name, summary: update.object.summary, sensitive: true };
    await announced({ ...update, object: doc });
    const [c] = await q('SELECT nsfw FROM lemmy_communities WHERE account_id = $1', [groupAccount]);
    assert.equal(c.nsfw, true);
    assert.equal((await api(s.url, ann, 'GET', `/api/v1/accounts/${groupAccount}`)).body.display_name, 'The Updated Community');
  });

  it('hides from a member the boosts of posts by authors on a domain they block', async () => {
    const genuine = `${other.url}/post/900`;
    assert.ok(
      (await home(ann)).some((x) => x.reblog?.uri === genuine),
      'the Group’s boost of the other origin’s post',
    );
    assert.equal((await api(s.url, ann, 'POST', '/api/v1/domain_blocks', { domain: other.host })).status, 200);
    assert.equal((await home(ann)).filter((x) => x.reblog?.uri === genuine).length, 0);
    assert.ok(
      (await home(ann)).some((x) => x.reblog),
      'the community’s other posts stay',
    );
  });

  it('files once a post its author delivered first, and promotes one held as remote history', async () => {
    const direct = fixture('activities/create_or_update/create_page.json', 'direct');
    // Delivered by its author (cat follows them): an ordinary post, not yet in the community's records.
    assert.equal((await peer.signedPost(`${s.url}/inbox`, direct, { actor: 'lemmy_alpha' })).status, 202);
    await eventually(async () => assert.ok(await statusRow(direct.object.id)));
    assert.equal(await postRow(direct.object.id), undefined);
    // Held as remote history (out of every feed) until the community's Announce arrives.
    await q('UPDATE statuses SET history = true WHERE uri = $1', [direct.object.id]);
    await announced(direct);
    assert.equal((await q('SELECT count(*)::int AS n FROM statuses WHERE uri = $1 AND NOT history', [direct.object.id]))[0].n, 1);
    assert.equal((await postRow(direct.object.id))?.community_id, await communityId());
    assert.ok((await home(ann)).some((x) => x.reblog?.uri === direct.object.id));
  });

  it('does not count a suspended account’s vote', async () => {
    const pageId = `${other.url}/post/900`;
    const before = await postRow(pageId);
    const [beta] = await q('SELECT id::text FROM accounts WHERE uri = $1', [peer.actor('lemmy_beta').id]);
    const r = await api(s.url, operator, 'POST', `/api/v1/admin/accounts/${beta.id}/action`, { type: 'suspend' });
    assert.equal(r.status, 200, r.text);
    await announced({ ...fixture('activities/voting/dislike_page.json', 'susp'), object: pageId });
    assert.equal((await postRow(pageId))?.downvotes, before?.downvotes);
    // While another member's vote on it counts.
    await announced({ ...fixture('activities/voting/dislike_page.json', 'susp2'), actor: peer.actor('picard').id, object: pageId });
    assert.equal((await postRow(pageId))?.downvotes, (before?.downvotes ?? 0) + 1);
  });

  it('refuses posts and votes from a suspended domain, announced by a community elsewhere', async () => {
    const r = await api(s.url, operator, 'POST', '/api/v1/admin/domain_blocks', { domain: other.host, severity: 'suspend' });
    assert.equal(r.status, 200, r.text);
    const id = `${other.url}/post/902`;
    const page = { ...fixture('objects/page.json'), id, attributedTo: other.actor('mallory').id, audience: groupId };
    other.serve(page);
    await announced({ ...fixture('activities/create_or_update/create_page.json', 'x3'), actor: other.actor('mallory').id, object: page });
    assert.equal(await statusRow(id), undefined);
    const genuine = `${other.url}/post/900`;
    const before = (await postRow(genuine))?.upvotes;
    await announced({ ...fixture('activities/voting/like_note.json', 'x4'), actor: other.actor('mallory').id, object: genuine });
    assert.equal((await postRow(genuine))?.upvotes, before);
  });

  it('files every Page shape it stores in the community that announced it, and none named for another community', async () => {
    const lonely = peer.actor('lonely').id;
    let n = 0;
    const link = fc.oneof(
      fc.constant({}),
      fc.webUrl().map((href) => ({ attachment: [{ type: 'Link', href }] })),
      fc.webUrl().map((url) => ({ url })),
      fc.webUrl().map((href) => ({ url: [{ type: 'Link', href }] })),
      fc.webUrl().map((url) => ({ attachment: [{ type: 'Image', url }] })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            name: fc.string({ maxLength: 250 }),
            content: fc.string({ maxLength: 200 }).map((t) => `<p>${t.replace(/[<&]/g, '')}</p>`),
            source: fc.string({ maxLength: 200 }).map((content) => ({ content, mediaType: 'text/markdown' })),
            sensitive: fc.boolean(),
            audience: fc.constantFrom(groupId, lonely, `${peer.url}/users/nobody`),
          },
          { requiredKeys: [] },
        ),
        link,
        async (fields, linkForm) => {
          n += 1;
          const create = fixture('activities/create_or_update/create_page.json', `prop${n}`);
          const { attachment: _a, audience: _au, name: _n, content: _c, source: _s, sensitive: _se, ...bare } = create.object;
          const page = { ...bare, ...fields, ...linkForm };
          await announced({ ...create, object: page });
          const stored = await statusRow(page.id);
          const post = await postRow(page.id);
          if (fields.audience !== undefined && fields.audience !== groupId) {
            assert.equal(stored, undefined, 'named for another community, or for none that resolves');
            return;
          }
          assert.ok(stored, 'stored');
          assert.equal(post?.community_id, await communityId(), 'filed in the announcing community');
          assert.ok(post.name.trim().length > 0 && [...post.name].length <= 200);
          assert.equal(post.nsfw, fields.sensitive === true);
        },
      ),
      { seed: 37, numRuns: 12 },
    );
  });

  it('keeps nothing a community announces when no one here follows it', async () => {
    const create = fixture('activities/create_or_update/create_page.json', 'x5');
    create.object.audience = peer.actor('lonely').id;
    await announced(create, peer, 'lonely');
    assert.equal(await statusRow(create.object.id), undefined);
    // The Group itself is known (its key was fetched) and filed as a community.
    assert.equal((await q('SELECT 1 FROM lemmy_communities c JOIN accounts a ON a.id = c.account_id WHERE a.uri = $1', [peer.actor('lonely').id])).length, 1);
  });
});
