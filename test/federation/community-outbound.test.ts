// What a member's actions in a Lemmy community send (services/community-service.ts), against a hand-written Group
// on loopback (test/support/fake-actor-peer.ts, nothing of Stoa's federation code): the Follow and the Group's
// Accept, a post as Lemmy 0.19's Page, a comment as its Note, votes as Like/Dislike/Undo to the community's inbox,
// edits as Update, deletes as Delete naming Public; every POST signed hs2019 over `(request-target) content-type
// date digest host` and checked here with node:crypto against the member's published key. The documents are also
// served at the status's address. Downvotes are refused, with nothing sent, when LINK_DOWNVOTES=false.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Account } from '../../src/store/accounts.js';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, verifyReceived, type FakePeer, type PeerRequest } from '../support/fake-actor-peer.js';
import { announce } from '../support/lemmy-fixtures.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const LEMMY_CONTEXT = ['https://join-lemmy.org/context.json', 'https://www.w3.org/ns/activitystreams'];

/** A Lemmy-style community on the peer: a Group whose documents Stoa fetches. */
async function community(peer: FakePeer, name: string): Promise<string> {
  const a = await peer.addActor(name, { extra: { type: 'Group', name: `The ${name} community`, postingRestrictedToMods: false } });
  return a.id;
}

async function errorOf(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { status?: number; message: string };
    return { status: err.status ?? 0, message: err.message };
  }
  throw new Error('expected a refusal');
}

describe('a member in a Lemmy community: what is sent', () => {
  let s: TestServer;
  let peer: FakePeer;
  let group: string;
  let groupAccount: Account;
  let alice: Account;
  let bob: Account;
  let communityId: number;
  let alicePem: string;
  let bobPem: string;
  let members: LocalMembers;
  let seen = 0;

  /** The next POST the community's server receives that matches, after the ones already taken. */
  async function next(type: string, pred: (b: Json) => boolean = () => true): Promise<PeerRequest & { body: Json }> {
    let found: PeerRequest | undefined;
    await eventually(() => {
      const posts = peer.posts();
      const i = posts.findIndex((p, k) => k >= seen && p.body?.['type'] === type && pred(p.body as Json));
      assert.ok(i >= 0, `a ${type} reached the community's server`);
      found = posts[i];
      seen = i + 1;
    });
    return found as PeerRequest & { body: Json };
  }

  function assertSigned(req: PeerRequest, who = 'alice'): void {
    const { signature, signatureValid, digestValid } = verifyReceived(req, who === 'alice' ? alicePem : bobPem);
    assert.equal(signature.algorithm, 'hs2019');
    assert.deepEqual(signature.headers, ['(request-target)', 'content-type', 'date', 'digest', 'host']);
    assert.equal(signature.keyId, `${s.url}/users/${who}#main-key`);
    assert.ok(signatureValid, 'the signature verifies with the member’s published key');
    assert.ok(digestValid, 'the Digest is the body’s');
    assert.equal(req.headers['content-type'], 'application/activity+json');
    // What Lemmy's verifier checks besides the signature: the Host signed is the inbox's, the Date within its hour.
    assert.equal(req.headers['host'], peer.host);
    assert.ok(Math.abs(Date.parse(req.headers['date'] ?? '') - Date.now()) < 60_000, 'a current Date');
  }

  before(async () => {
    peer = await startFakeActorPeer();
    group = await community(peer, 'tenforward');
    s = await startTestServer(FED_ENV);
    members = await createMembers(s, ['alice', 'bob']);
    const accounts = s.app.federation.accounts;
    alice = (await accounts.byHandle('alice', null))!;
    bob = (await accounts.byHandle('bob', null))!;
    groupAccount = await s.app.federation.remote.byUri(group);
    communityId = await s.app.federation.links.communityId(groupAccount.id);
    const pem = async (name: string) =>
      ((await (await fetch(`${s.url}/users/${name}`, { headers: { Accept: 'application/activity+json' } })).json()) as Json)['publicKey']['publicKeyPem'];
    alicePem = await pem('alice');
    bobPem = await pem('bob');
  });

  after(async () => {
    await s?.stop();
    await peer?.stop();
  });

  it('follows: a Follow to the Group, Pending until its Accept, Subscribed after, NotSubscribed after an unfollow', async () => {
    const c = s.app.federation.communities;
    assert.equal(await c.follow(alice, communityId, true), 'Pending');
    const follow = await next('Follow');
    assertSigned(follow);
    assert.equal(follow.body['object'], group);
    const accept = { '@context': 'https://www.w3.org/ns/activitystreams', id: peer.newId('accept'), type: 'Accept', actor: group, object: follow.body };
    const answer = await peer.signedPost(`${s.url}/inbox`, accept, { actor: 'tenforward' });
    assert.ok(answer.status < 300, `the Accept is taken (${answer.status})`);
    await eventually(async () => assert.equal(await c.follow(alice, communityId, true), 'Subscribed'));
    assert.equal(await c.follow(bob, communityId, true), 'Pending');
    await next('Follow', (b) => b['actor'] === `${s.url}/users/bob`);
    assert.equal(await c.follow(bob, communityId, false), 'NotSubscribed');
    const undo = await next('Undo', (b) => b['actor'] === `${s.url}/users/bob`);
    assert.equal(undo.body['object']['type'], 'Follow');
  });

  let postId: number;
  let postStatusId: string;
  let pageId: string;

  it('posts: a Create of a Page shaped as Lemmy 0.19’s, to the community, signed as Lemmy verifies', async () => {
    const c = s.app.federation.communities;
    const post = await c.createPost(alice, {
      communityId,
      name: 'Warp cores, compared',
      url: 'https://example.com/warp?x=1',
      body: 'A **bold** claim <script>alert(1)</script> and [a trap](javascript:alert(1))',
      nsfw: false,
      applicationId: null,
    });
    postId = post.id;
    postStatusId = post.statusId;
    pageId = `${s.url}/users/alice/statuses/${post.statusId}`;
    const create = await next('Create', (b) => b['object']?.['type'] === 'Page');
    assertSigned(create);
    const a = create.body;
    assert.deepEqual(a['@context'], LEMMY_CONTEXT);
    assert.equal(a['actor'], `${s.url}/users/alice`);
    assert.deepEqual(a['to'], [PUBLIC]);
    assert.deepEqual(a['cc'], [group]);
    assert.equal(a['audience'], group);
    const page = a['object'];
    assert.equal(page['id'], pageId);
    assert.equal(page['type'], 'Page');
    assert.equal(page['attributedTo'], `${s.url}/users/alice`);
    assert.deepEqual(page['to'], [group, PUBLIC]);
    assert.deepEqual(page['cc'], []);
    assert.equal(page['audience'], group);
    assert.equal(page['name'], 'Warp cores, compared');
    assert.deepEqual(page['attachment'], [{ type: 'Link', href: 'https://example.com/warp?x=1' }]);
    assert.equal(page['url'], 'https://example.com/warp?x=1');
    assert.equal(page['mediaType'], 'text/html');
    assert.deepEqual(page['source'], {
      content: 'A **bold** claim <script>alert(1)</script> and [a trap](javascript:alert(1))',
      mediaType: 'text/markdown',
    });
    assert.match(page['content'], /<strong>bold<\/strong>/);
    assert.doesNotMatch(page['content'], /<script|href="javascript/i);
    assert.match(page['content'], /&lt;script&gt;/, 'raw HTML stays text');
    assert.equal(page['sensitive'], false);
    assert.ok(!Number.isNaN(Date.parse(page['published'])));
    // The Group's shared inbox: Lemmy takes a community's activities at its instance's inbox too.
    assert.equal(create.path, '/inbox');
  });

  it('serves the Page at the status’s address', async () => {
    const res = await fetch(pageId, { headers: { Accept: 'application/activity+json' } });
    assert.equal(res.status, 200);
    const doc = (await res.json()) as Json;
    assert.deepEqual(doc['@context'], LEMMY_CONTEXT);
    assert.equal(doc['type'], 'Page');
    assert.equal(doc['name'], 'Warp cores, compared');
    assert.equal(doc['audience'], group);
    assert.deepEqual(doc['attachment'], [{ type: 'Link', href: 'https://example.com/warp?x=1' }]);
    // The same Page by the address people share, and in the member's outbox.
    const shared = (await (await fetch(`${s.url}/@alice/${postStatusId}`, { headers: { Accept: 'application/activity+json' } })).json()) as Json;
    assert.deepEqual(shared, doc);
    const outbox = (await (await fetch(`${s.url}/users/alice/outbox?page=true`, { headers: { Accept: 'application/activity+json' } })).json()) as Json;
    const item = (outbox['orderedItems'] as Json[]).find((i) => i['object']?.['id'] === pageId);
    assert.equal(item?.['object']?.['type'], 'Page');
    assert.equal(item?.['object']?.['audience'], group);
  });

  let commentId: number;
  let noteId: string;

  it('comments: a Note in reply to the post, to Public, cc the community; a reply names its parent', async () => {
    const c = s.app.federation.communities;
    const comment = await c.createComment(alice, { postId, parentId: null, content: 'First, _obviously_.', applicationId: null });
    commentId = comment.id;
    noteId = `${s.url}/users/alice/statuses/${comment.statusId}`;
    const create = await next('Create', (b) => b['object']?.['type'] === 'Note');
    assertSigned(create);
    const note = create.body['object'];
    assert.equal(note['id'], noteId);
    assert.equal(note['inReplyTo'], pageId);
    assert.deepEqual(note['to'], [PUBLIC]);
    // The parent's author is named and mentioned, the commenter included (as Lemmy's note.json).
    assert.deepEqual(note['cc'], [group, `${s.url}/users/alice`]);
    assert.deepEqual(note['tag'], [{ type: 'Mention', href: `${s.url}/users/alice`, name: `@alice@${new URL(s.url).host}` }]);
    assert.equal(note['audience'], group);
    assert.equal(note['content'], '<p>First, <em>obviously</em>.</p>\n');
    assert.deepEqual(note['source'], { content: 'First, _obviously_.', mediaType: 'text/markdown' });
    assert.equal(note['mediaType'], 'text/html');
    assert.deepEqual(create.body['to'], [PUBLIC]);
    assert.equal(create.body['audience'], group);
    assert.match(comment.path, new RegExp(`^0\\.${comment.id}$`));

    const reply = await c.createComment(bob, { postId, parentId: commentId, content: 'Agreed.', applicationId: null });
    assert.equal(reply.path, `0.${commentId}.${reply.id}`);
    const replyCreate = await next('Create', (b) => b['object']?.['inReplyTo'] === noteId);
    const r = replyCreate.body['object'];
    assert.deepEqual(r['cc'], [group, `${s.url}/users/alice`]);
    assert.deepEqual(r['tag'], [{ type: 'Mention', href: `${s.url}/users/alice`, name: `@alice@${new URL(s.url).host}` }]);

    const served = (await (await fetch(noteId, { headers: { Accept: 'application/activity+json' } })).json()) as Json;
    assert.equal(served['type'], 'Note');
    assert.equal(served['inReplyTo'], pageId);
    assert.equal(served['audience'], group);
  });

  const voteOf = async (who: Account, statusId: string) =>
    (await s.app.db.one<{ score: number }>('SELECT score::int AS score FROM lemmy_votes WHERE account_id = $1 AND status_id = $2', [who.id, statusId]))
      ?.score ?? 0;

  it('votes: Like, then Dislike in its place, then Undo, each to the community’s own inbox', async () => {
    const c = s.app.federation.communities;
    const inbox = new URL(peer.actor('tenforward').inbox).pathname;
    // The author's own upvote, as Lemmy gives it: counted, not sent (Lemmy counts it on receiving the Create).
    assert.equal(await voteOf(alice, postStatusId), 1);
    await c.vote(alice, { postId }, 1);
    await c.vote(bob, { postId }, 1);
    const like = await next('Like');
    assertSigned(like, 'bob');
    assert.equal(like.path, inbox);
    assert.deepEqual(like.body['@context'], LEMMY_CONTEXT);
    assert.equal(like.body['object'], pageId);
    assert.equal(like.body['audience'], group);
    assert.equal(like.body['actor'], `${s.url}/users/bob`);
    assert.equal(peer.posts().filter((p) => p.body?.['type'] === 'Like').length, 1, 'the author’s own vote again sent nothing');

    await c.vote(bob, { postId }, 1); // the same vote again sends nothing
    // A changed vote is the new vote alone (Lemmy's own way: it replaces the old one there; no Undo that could
    // overtake it and erase it).
    await c.vote(bob, { postId }, -1);
    const dislike = await next('Dislike');
    assertSigned(dislike, 'bob');
    assert.equal(dislike.path, inbox);
    assert.equal(dislike.body['object'], pageId);
    assert.equal(dislike.body['audience'], group);
    assert.equal(peer.posts().filter((p) => p.body?.['type'] === 'Like').length, 1, 'no second Like');
    assert.equal(peer.posts().filter((p) => p.body?.['type'] === 'Undo' && (p.body as Json)['object']?.['type'] === 'Like').length, 0, 'no Undo of the Like');
    assert.equal(await voteOf(bob, postStatusId), -1);

    await c.vote(bob, { commentId }, 1);
    const commentLike = await next('Like');
    assert.equal(commentLike.body['object'], noteId);

    await c.vote(bob, { postId }, 0);
    const undoDislike = await next('Undo', (b) => b['object']?.['type'] === 'Dislike');
    assertSigned(undoDislike, 'bob');
    assert.equal(undoDislike.path, inbox);
    assert.deepEqual(undoDislike.body['object'], { id: dislike.body['id'], type: 'Dislike', actor: `${s.url}/users/bob`, object: pageId, audience: group });
    assert.equal(undoDislike.body['audience'], group);
    assert.equal(await voteOf(bob, postStatusId), 0);

    // The author takes back their own upvote: an Undo of a Like (Lemmy removes the person's vote, whatever its id).
    await c.vote(alice, { postId }, 0);
    const undoOwn = await next('Undo', (b) => b['actor'] === `${s.url}/users/alice`);
    assertSigned(undoOwn);
    assert.equal(undoOwn.body['object']['type'], 'Like');
    assert.equal(undoOwn.body['object']['object'], pageId);
    assert.equal(await voteOf(alice, postStatusId), 0);
  });

  it('edits: an Update carrying the new Page; only the author may', async () => {
    const c = s.app.federation.communities;
    const refused = await errorOf(c.editPost(bob, postId, { name: 'Mine now' }));
    assert.deepEqual(refused, { status: 400, message: 'no_post_edit_allowed' });
    const edited = await c.editPost(alice, postId, { name: 'Warp cores, compared again', url: null });
    assert.equal(edited.name, 'Warp cores, compared again');
    assert.equal(edited.url, null);
    const update = await next('Update', (b) => b['object']?.['type'] === 'Page');
    assertSigned(update);
    assert.deepEqual(update.body['to'], [PUBLIC]);
    assert.equal(update.body['object']['id'], pageId);
    assert.equal(update.body['object']['name'], 'Warp cores, compared again');
    assert.deepEqual(update.body['object']['attachment'], []);
    assert.equal(update.body['object']['url'], undefined);
    assert.ok(update.body['object']['updated'], 'the edit is dated');

    assert.deepEqual(await errorOf(c.editComment(bob, commentId, 'not yours')), { status: 400, message: 'no_comment_edit_allowed' });
    await c.editComment(alice, commentId, 'First, *edited*.');
    const noteUpdate = await next('Update', (b) => b['object']?.['type'] === 'Note');
    assert.equal(noteUpdate.body['object']['content'], '<p>First, <em>edited</em>.</p>\n');
    assert.equal(noteUpdate.body['object']['source']['content'], 'First, *edited*.');
  });

  it('an edit through the Mastodon API reaches the community too, as the Page', async () => {
    const edited = await api(s.url, members.token['alice'], 'PUT', `/api/v1/statuses/${postStatusId}`, { status: 'Edited from a Mastodon app' });
    assert.equal(edited.status, 200);
    const update = await next('Update', (b) => b['object']?.['id'] === pageId);
    assertSigned(update);
    assert.equal(update.path, '/inbox');
    assert.equal(update.body['object']['type'], 'Page');
    assert.match(update.body['object']['content'], /Edited from a Mastodon app/);
    assert.equal(update.body['object']['source']['content'], 'Edited from a Mastodon app', 'source and content agree');
    assert.equal(update.body['object']['name'], 'Warp cores, compared again');
    assert.deepEqual(update.body['object']['to'], [group, PUBLIC]);
  });

  it('stores and queues in one transaction: a failure of either leaves neither', async () => {
    const c = s.app.federation.communities;
    const count = async () =>
      (await s.app.db.one<{ statuses: number; posts: number; deliveries: number }>(
        `SELECT (SELECT count(*)::int FROM statuses WHERE account_id = $1) AS statuses, (SELECT count(*)::int FROM lemmy_posts) AS posts,
                (SELECT count(*)::int FROM deliveries) AS deliveries`,
        [alice.id],
      ))!;
    const newPost = () => c.createPost(alice, { communityId, name: 'Doomed', url: null, body: 'never', nsfw: false, applicationId: null });
    await eventually(async () => assert.equal((await count()).deliveries, 0, 'earlier deliveries are done'));
    const before = await count();
    for (const table of ['lemmy_posts', 'deliveries']) {
      await s.app.db.exec(`CREATE OR REPLACE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`);
      await s.app.db.exec(`CREATE TRIGGER test_refuse BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION test_refuse()`);
      try {
        await assert.rejects(newPost(), /refused/);
      } finally {
        await s.app.db.exec(`DROP TRIGGER test_refuse ON ${table}`);
      }
      assert.deepEqual(await count(), before, `a refused ${table} row leaves no status, post or delivery`);
    }
    assert.ok(!peer.posts().some((p) => (p.body as Json | null)?.['object']?.['name'] === 'Doomed'));
  });

  it('saves: the member’s bookmark of the post', async () => {
    const c = s.app.federation.communities;
    await c.save(bob, { postId }, true);
    const marked = await s.app.db.one<{ n: number }>('SELECT count(*)::int AS n FROM bookmarks WHERE account_id = $1 AND status_id = $2', [
      bob.id,
      postStatusId,
    ]);
    assert.equal(marked?.n, 1);
    await c.save(bob, { postId }, false);
    const after = await s.app.db.one<{ n: number }>('SELECT count(*)::int AS n FROM bookmarks WHERE account_id = $1', [bob.id]);
    assert.equal(after?.n, 0);
  });

  it('refuses what Lemmy refuses, and sends nothing', async () => {
    const c = s.app.federation.communities;
    const before = peer.posts().length;
    const post = (name: string, url: string | null = null, body = '') =>
      c.createPost(alice, { communityId, name, url, body, nsfw: false, applicationId: null });
    assert.deepEqual(await errorOf(post('')), { status: 400, message: 'invalid_post_title' });
    assert.deepEqual(await errorOf(post('   ')), { status: 400, message: 'invalid_post_title' });
    assert.deepEqual(await errorOf(post('x'.repeat(201))), { status: 400, message: 'invalid_post_title' });
    assert.deepEqual(await errorOf(post('two\nlines')), { status: 400, message: 'invalid_post_title' });
    assert.deepEqual(await errorOf(post('ok', 'javascript:alert(1)')), { status: 400, message: 'invalid_url' });
    assert.deepEqual(await errorOf(post('ok', 'ftp://example.com/x')), { status: 400, message: 'invalid_url' });
    assert.deepEqual(await errorOf(post('ok', null, 'y'.repeat(10_001))), { status: 400, message: 'invalid_body_field' });
    assert.deepEqual(await errorOf(c.createPost(alice, { communityId: 987654, name: 'x', url: null, body: '', nsfw: false, applicationId: null })), {
      status: 404,
      message: 'couldnt_find_community',
    });
    assert.deepEqual(await errorOf(c.editPost(alice, 987654, { name: 'x' })), { status: 404, message: 'couldnt_find_post' });
    assert.deepEqual(await errorOf(c.vote(alice, { postId: 987654 }, 1)), { status: 404, message: 'couldnt_find_post' });
    assert.deepEqual(await errorOf(c.vote(alice, { commentId: 987654 }, 1)), { status: 404, message: 'couldnt_find_comment' });
    assert.deepEqual(await errorOf(c.createComment(alice, { postId, parentId: 987654, content: 'x', applicationId: null })), {
      status: 404,
      message: 'couldnt_find_comment',
    });
    // Whatever a client sends, the title, link and body rules decide alone (an unknown community is only looked up
    // for input that passes them).
    const NOWHERE = 987_654;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 210 }), fc.constantFrom('', ' ', '\t', 'a\nb', 'x'.repeat(200), 'é'.repeat(201))),
        fc.oneof(
          fc.constant(null),
          fc.webUrl(),
          fc.string({ maxLength: 30 }),
          fc.constantFrom('javascript:alert(1)', 'ftp://x.example/', 'data:,x', 'HTTPS://A.EXAMPLE/'),
        ),
        fc.oneof(fc.string({ maxLength: 50 }), fc.constant('z'.repeat(10_001))),
        async (name, url, body) => {
          const titleOk = /\S/.test(name) && !/[\r\n]/.test(name) && [...name].length <= 200;
          let urlOk = url === null || url === '';
          try {
            urlOk ||= ['http:', 'https:'].includes(new URL(url!).protocol);
          } catch {}
          const bodyOk = [...body].length <= 10_000;
          const expected = !titleOk ? 'invalid_post_title' : !urlOk ? 'invalid_url' : !bodyOk ? 'invalid_body_field' : 'couldnt_find_community';
          const got = await errorOf(c.createPost(alice, { communityId: NOWHERE, name, url, body, nsfw: false, applicationId: null }));
          assert.equal(got.message, expected);
          assert.equal(got.status, expected === 'couldnt_find_community' ? 404 : 400);
        },
      ),
      { seed: 37, numRuns: 150 },
    );
    // Only moderators may post: the community says so.
    await s.app.db.exec('UPDATE lemmy_communities SET posting_restricted_to_mods = true WHERE id = $1', [communityId]);
    assert.deepEqual(await errorOf(post('restricted')), { status: 400, message: 'only_mods_can_post_in_community' });
    await s.app.db.exec('INSERT INTO lemmy_community_moderators (community_id, account_id) VALUES ($1, $2)', [communityId, alice.id]);
    const modPost = await post('a moderator may');
    await next('Create', (b) => b['object']?.['name'] === 'a moderator may');
    await s.app.db.exec('UPDATE lemmy_communities SET posting_restricted_to_mods = false WHERE id = $1', [communityId]);
    // A locked post takes no comments.
    await s.app.db.exec('UPDATE lemmy_posts SET locked = true WHERE id = $1', [modPost.id]);
    assert.deepEqual(await errorOf(c.createComment(bob, { postId: modPost.id, parentId: null, content: 'x', applicationId: null })), {
      status: 400,
      message: 'locked',
    });
    // Nothing else reached the community's server.
    assert.equal(peer.posts().length, before + 1);
  });

  it('deletes: a Delete naming Public, to the community; only the author may; the status is gone', async () => {
    const c = s.app.federation.communities;
    assert.deepEqual(await errorOf(c.deleteComment(bob, commentId)), { status: 400, message: 'no_comment_edit_allowed' });
    await c.deleteComment(alice, commentId);
    const delNote = await next('Delete', (b) => b['object'] === noteId);
    assertSigned(delNote);
    assert.deepEqual(delNote.body['to'], [PUBLIC]);
    assert.ok((delNote.body['cc'] as string[]).includes(group));

    assert.deepEqual(await errorOf(c.deletePost(bob, postId)), { status: 400, message: 'no_post_edit_allowed' });
    await c.deletePost(alice, postId);
    const del = await next('Delete', (b) => b['object'] === pageId);
    assertSigned(del);
    assert.deepEqual(del.body['@context'], LEMMY_CONTEXT);
    assert.deepEqual(del.body['to'], [PUBLIC]);
    assert.equal(del.body['audience'], group);
    assert.equal((await fetch(pageId, { headers: { Accept: 'application/activity+json' } })).status, 404);
    assert.deepEqual(await errorOf(c.deletePost(alice, postId)), { status: 404, message: 'couldnt_find_post' });
    assert.deepEqual(await errorOf(c.vote(alice, { postId }, 1)), { status: 404, message: 'couldnt_find_post' });
  });
});

describe('LINK_DOWNVOTES=false', () => {
  let s: TestServer;
  let peer: FakePeer;

  before(async () => {
    peer = await startFakeActorPeer();
    s = await startTestServer({ ...FED_ENV, LINK_DOWNVOTES: 'false' });
  });

  after(async () => {
    await s?.stop();
    await peer?.stop();
  });

  it('refuses a suspended community: couldnt_find_community, nothing sent', async () => {
    const banned = await s.app.federation.remote.byUri(await community(peer, 'banned'));
    const bannedId = await s.app.federation.links.communityId(banned.id);
    await s.app.db.exec('UPDATE accounts SET suspended_at = now() WHERE id = $1', [banned.id]);
    await createMembers(s, ['erin']);
    const erin = (await s.app.federation.accounts.byHandle('erin', null))!;
    const sent = peer.posts().length;
    const c = s.app.federation.communities;
    const gone = { status: 404, message: 'couldnt_find_community' };
    assert.deepEqual(await errorOf(c.createPost(erin, { communityId: bannedId, name: 'Hello?', url: null, body: '', nsfw: false, applicationId: null })), gone);
    assert.deepEqual(await errorOf(c.follow(erin, bannedId, true)), gone);
    assert.equal(peer.posts().length, sent);
  });

  it('counts no Dislike a community announces', async () => {
    const group = await community(peer, 'downless');
    const groupAccount = await s.app.federation.remote.byUri(group);
    const cid = await s.app.federation.links.communityId(groupAccount.id);
    const mm = await createMembers(s, ['fred']);
    const fred = (await s.app.federation.accounts.byHandle('fred', null))!;
    await s.app.db.exec('INSERT INTO follows (account_id, target_account_id) VALUES ($1, $2)', [fred.id, groupAccount.id]);
    const post = await s.app.federation.communities.createPost(fred, {
      communityId: cid,
      name: 'Downless',
      url: null,
      body: '',
      nsfw: false,
      applicationId: null,
    });
    const uri = (await api(s.url, mm.token['fred'], 'GET', `/api/v1/statuses/${post.statusId}`)).body.uri as string;
    assert.ok(uri);
    const voter = await peer.addActor('voter');
    const a = announce(peer, group, { id: peer.newId('activities/dislike'), type: 'Dislike', actor: voter.id, object: uri });
    assert.equal((await peer.signedPost(`${s.url}/inbox`, a, { actor: 'downless' })).status, 202);
    await eventually(async () => assert.ok(await s.app.db.one('SELECT 1 FROM inbox_jobs WHERE activity_id = $1 AND processed_at IS NOT NULL', [a.id])));
    const row = await s.app.db.one<{ downvotes: number }>('SELECT downvotes FROM lemmy_posts WHERE id = $1', [post.id]);
    assert.equal(row?.downvotes, 0);
    await s.app.db.exec('DELETE FROM lemmy_votes WHERE status_id = $1', [post.statusId]);
    await s.app.db.exec('DELETE FROM follows WHERE account_id = $1', [fred.id]);
  });

  it('refuses a member’s −1 with downvotes_are_disabled, storing and sending nothing; +1 still goes', async () => {
    const group = await community(peer, 'nodown');
    await createMembers(s, ['carol', 'dave']);
    const carol = (await s.app.federation.accounts.byHandle('carol', null))!;
    const dave = (await s.app.federation.accounts.byHandle('dave', null))!;
    const groupAccount = await s.app.federation.remote.byUri(group);
    const communityId = await s.app.federation.links.communityId(groupAccount.id);
    const c = s.app.federation.communities;
    assert.equal(c.downvotesEnabled(), false);
    const post = await c.createPost(carol, { communityId, name: 'No downvotes here', url: null, body: '', nsfw: false, applicationId: null });
    await eventually(() => assert.ok(peer.posts().some((p) => p.body?.['type'] === 'Create')));
    assert.deepEqual(await errorOf(c.vote(dave, { postId: post.id }, -1)), { status: 400, message: 'downvotes_are_disabled' });
    // Not even the author may turn their own upvote into a downvote.
    assert.deepEqual(await errorOf(c.vote(carol, { postId: post.id }, -1)), { status: 400, message: 'downvotes_are_disabled' });
    const votes = await s.app.db.rows<{ account_id: string; score: number }>('SELECT account_id::text, score::int AS score FROM lemmy_votes');
    assert.deepEqual(votes, [{ account_id: carol.id, score: 1 }]);
    await c.vote(dave, { postId: post.id }, 1);
    await eventually(() => assert.ok(peer.posts().some((p) => p.body?.['type'] === 'Like')));
    assert.equal(peer.posts().filter((p) => p.body?.['type'] === 'Dislike').length, 0);

    // The operator suspends the community's server: it is gone for members, and nothing more is sent there.
    const admin = await adminToken(s, 'admin:write');
    const blocked = await api(s.url, admin, 'POST', '/api/v1/admin/domain_blocks', { domain: peer.host.split(':')[0], severity: 'suspend' });
    assert.equal(blocked.status, 200, blocked.text);
    const sent = peer.posts().length;
    const gone = { status: 404, message: 'couldnt_find_community' };
    assert.deepEqual(await errorOf(c.createPost(carol, { communityId, name: 'Into the void', url: null, body: '', nsfw: false, applicationId: null })), gone);
    assert.deepEqual(await errorOf(c.vote(dave, { postId: post.id }, 0)), gone);
    assert.deepEqual(await errorOf(c.createComment(dave, { postId: post.id, parentId: null, content: 'hello?', applicationId: null })), gone);
    assert.equal(peer.posts().length, sent);
  });
});
