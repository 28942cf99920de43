// The link-aggregator adapter end to end, as issue 37's proof asks: a fake Lemmy 0.19 community on loopback
// (test/support/fake-lemmy.ts, built from Lemmy's own fixtures, verifying signatures as Lemmy does) and two Stoa
// servers, A and B, each with its own database; everything their members do goes through lemmy-js-client 0.19.9, as
// Lemmy's own web UI and apps do. Both members follow the community; a Lemmy user's post reaches both once (Lemmy
// announces it twice); A's member comments and votes, the community re-announces, B sees A's comment (attributed to
// A's member, so fetched from A, the Announce being the community's) and the score; the Lemmy user's reply builds the
// tree on both; A's member's link post reaches the fake as Lemmy's Page, signed over content-type, and B; votes from
// B and from a Lemmy user (and Lemmy's Undo of it, a new Like) count on both; a downvote on A, where the operator
// turned downvotes off, is refused and nothing is sent; edits and deletes from both sides apply on both.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LemmyHttp, type CommentView, type PostView } from 'lemmy-js-client';
import { api, FED_ENV, type Json } from '../support/api.js';
import { LEMMY_SIGNED_HEADERS, startFakeLemmy, type FakeLemmy, type LemmyDelivery } from '../support/fake-lemmy.js';
import { deliveriesDone } from '../support/federation-wait.js';
import { createMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const PASSWORD = 'member-password-1';
const WAIT_MS = 15_000;

type Doc = Record<string, unknown>;

/** A Lemmy client signed in to `s` as `username`, as a Lemmy app is: POST user/login, then the jwt as a bearer token. */
async function signedIn(s: TestServer, username: string): Promise<LemmyHttp> {
  const client = new LemmyHttp(s.url, { fetchFunction: fetch });
  const { jwt } = await client.login({ username_or_email: username, password: PASSWORD });
  assert.ok(jwt, `${username} got a jwt`);
  client.setHeaders({ Authorization: `Bearer ${jwt}` });
  return client;
}

/** The link of a Page's `url`: a string or a Link object. */
const hrefOf = (x: unknown): string | undefined =>
  typeof x === 'string' ? x : Array.isArray(x) ? hrefOf(x[0]) : x && typeof x === 'object' ? (x as Doc)['href']?.toString() : undefined;

describe('a Lemmy community between two Stoa servers, driven by lemmy-js-client 0.19.9', () => {
  let lemmy: FakeLemmy;
  let a: TestServer;
  let b: TestServer;
  let wes: LemmyHttp; // A's member
  let geordi: LemmyHttp; // B's member
  let wesActor: string;
  let geordiActor: string;
  let geordiMastodon: string; // B's member's Mastodon API token
  let communityOnA: number;
  let communityOnB: number;
  // The Lemmy user's post, its ids on A and B; A's member's comment; the Lemmy user's reply; A's member's link post.
  let lemmyPost: string;
  let postOnA: PostView;
  let postOnB: PostView;
  let wesComment: CommentView;
  let picardReply: string;
  let wesPost: PostView;

  /** The post with this ap_id in the member's Subscribed list, once it is there; fails if it is listed twice. */
  const listed = async (client: LemmyHttp, apId: string, check: (p: PostView) => void = () => {}): Promise<PostView> => {
    let found: PostView | undefined;
    await eventually(async () => {
      const { posts } = await client.getPosts({ type_: 'Subscribed', sort: 'New', limit: 50 });
      const same = posts.filter((p) => p.post.ap_id === apId);
      assert.equal(same.length, 1, `${apId} listed once`);
      found = same[0]!;
      check(found);
    }, WAIT_MS);
    return found!;
  };
  /** The comment with this ap_id in the post's tree, once it is there and passes `check`. */
  const inTree = async (client: LemmyHttp, postId: number, apId: string, check: (c: CommentView) => void = () => {}): Promise<CommentView> => {
    let found: CommentView | undefined;
    await eventually(async () => {
      const { comments } = await client.getComments({ post_id: postId, max_depth: 8, sort: 'Old', type_: 'All' });
      found = comments.find((c) => c.comment.ap_id === apId);
      assert.ok(found, `${apId} in the tree`);
      check(found);
    }, WAIT_MS);
    return found!;
  };
  /** What the fake's inbox verified from `actor` of this type about this object (by id, embedded or not). */
  const receivedBy = (actor: string, type: string, objectId: string): Promise<LemmyDelivery> =>
    lemmy.waitForDelivery((d) => {
      const o = d.activity?.['object'];
      const id = typeof o === 'string' ? o : o && typeof o === 'object' ? (o as Doc)['id'] : undefined;
      return d.activity?.['type'] === type && d.activity['actor'] === actor && id === objectId;
    }, WAIT_MS);
  /** Verified as Lemmy verifies: the actor's key, Lemmy's headers signed (content-type among them), the Digest. */
  const assertVerified = (d: LemmyDelivery) => {
    assert.equal(d.refusal, null);
    assert.equal(d.status, 200);
    assert.equal(d.verified, true);
    for (const h of LEMMY_SIGNED_HEADERS) assert.ok(d.signedHeaders.includes(h), `${h} signed`);
  };

  before(async () => {
    [lemmy, a, b] = await Promise.all([startFakeLemmy(), startTestServer({ ...FED_ENV, LINK_DOWNVOTES: 'false' }), startTestServer(FED_ENV)]);
    const [, onB] = await Promise.all([createMembers(a, ['wes']), createMembers(b, ['geordi'])]);
    geordiMastodon = onB.token['geordi']!;
    [wes, geordi] = await Promise.all([signedIn(a, 'wes'), signedIn(b, 'geordi')]);
    wesActor = `${a.url}/users/wes`;
    geordiActor = `${b.url}/users/geordi`;
  });
  after(async () => {
    await Promise.all([lemmy?.stop(), a?.stop(), b?.stop()]);
  });

  it('a Lemmy client reads the site: the adapter, the signed-in member, downvotes as the operator set them', async () => {
    const site = await wes.getSite();
    assert.equal(typeof site.version, 'string');
    assert.ok(site.version.length > 0);
    assert.equal(site.site_view.local_site.enable_downvotes, false, 'LINK_DOWNVOTES=false on A');
    assert.equal(site.my_user?.local_user_view.person.name, 'wes');
    assert.deepEqual(site.my_user?.follows, []);
    const anonymous = await new LemmyHttp(a.url, { fetchFunction: fetch }).getSite();
    assert.equal(anonymous.my_user, undefined);
  });

  it('members of A and B find the community and follow it through the Lemmy API; the fake verifies both Follows', async () => {
    const follow = async (client: LemmyHttp): Promise<number> => {
      const resolved = await client.resolveObject({ q: `!${lemmy.communityHandle}` });
      const community = resolved.community!.community;
      assert.equal(community.actor_id, lemmy.community.id);
      assert.equal(community.name, 'tenforward');
      assert.equal(community.title, 'Ten Forward');
      assert.equal(community.local, false);
      assert.equal(typeof community.id, 'number');
      const got = await client.getCommunity({ name: lemmy.communityHandle });
      assert.equal(got.community_view.community.id, community.id);
      // The moderators collection (the Group's attributedTo) may be read after the Group itself.
      await eventually(async () => {
        const { moderators } = await client.getCommunity({ id: community.id });
        assert.deepEqual(
          moderators.map((m) => m.moderator.actor_id),
          [lemmy.user('picard').id],
        );
      }, WAIT_MS);
      const followed = await client.followCommunity({ community_id: community.id, follow: true });
      assert.ok(['Pending', 'Subscribed'].includes(followed.community_view.subscribed));
      return community.id;
    };
    [communityOnA, communityOnB] = await Promise.all([follow(wes), follow(geordi)]);
    assertVerified(await receivedBy(wesActor, 'Follow', lemmy.community.id));
    assertVerified(await receivedBy(geordiActor, 'Follow', lemmy.community.id));
    assert.deepEqual(lemmy.followers().sort(), [wesActor, geordiActor].sort());
    // The Accept arrives: Subscribed, and the site's my_user lists the follow.
    await eventually(async () => {
      assert.equal((await wes.getCommunity({ id: communityOnA })).community_view.subscribed, 'Subscribed');
      assert.equal((await geordi.getCommunity({ id: communityOnB })).community_view.subscribed, 'Subscribed');
    }, WAIT_MS);
    assert.deepEqual(
      (await wes.getSite()).my_user?.follows.map((f) => f.community.actor_id),
      [lemmy.community.id],
    );
  });

  it("a Lemmy user's post reaches both servers once (though Lemmy announces it twice), with its title, link and body", async () => {
    const url = 'https://example.com/warp-core';
    const body = 'The warp core is **stable**.\n\nFor now.';
    lemmyPost = (await lemmy.post('picard', { name: 'Warp core report', url, body })).id;
    for (const s of [a, b])
      assert.deepEqual(
        lemmy.sent.filter((x) => x.inbox === `${s.url}/inbox` && x.activity['type'] === 'Announce').map((x) => x.status),
        [202, 202],
        'Announce{Create{Page}} and Announce{Page}, both accepted',
      );
    const check = (p: PostView) => {
      assert.equal(p.post.name, 'Warp core report');
      assert.equal(p.post.url, url);
      assert.equal(p.post.body, body);
      assert.equal(p.post.local, false);
      assert.equal(p.post.deleted, false);
      assert.equal(p.creator.actor_id, lemmy.user('picard').id);
      assert.equal(p.community.actor_id, lemmy.community.id);
      assert.equal(p.subscribed, 'Subscribed');
      assert.equal(typeof p.post.id, 'number');
      assert.equal(typeof p.counts.score, 'number');
    };
    [postOnA, postOnB] = await Promise.all([listed(wes, lemmyPost, check), listed(geordi, lemmyPost, check)]);
    assert.equal(postOnA.post.community_id, communityOnA);
    assert.equal(postOnB.post.community_id, communityOnB);
    const full = await wes.getPost({ id: postOnA.post.id });
    assert.equal(full.post_view.post.ap_id, lemmyPost);
    assert.equal(full.community_view.community.actor_id, lemmy.community.id);
    assert.deepEqual(
      full.moderators.map((m) => m.moderator.actor_id),
      [lemmy.user('picard').id],
    );
    // A Mastodon client on B sees the post as the group's boost, one, whichever Announce came first.
    const group = (await api(b.url, geordiMastodon, 'GET', `/api/v1/accounts/lookup?acct=${lemmy.communityHandle}`)).body;
    await eventually(async () => {
      const boosts = (await api(b.url, geordiMastodon, 'GET', `/api/v1/accounts/${group.id}/statuses`)).body as Json[];
      assert.equal(boosts.filter((x) => x.reblog?.uri === lemmyPost).length, 1);
    }, WAIT_MS);
    const inCommunity = await geordi.getPosts({ community_id: communityOnB, sort: 'New' });
    assert.deepEqual(
      inCommunity.posts.filter((p) => p.post.ap_id === lemmyPost).map((p) => p.post.id),
      [postOnB.post.id],
    );
  });

  it("A's member comments and upvotes; the community re-announces; B sees A's comment, fetched from A, and the score", async () => {
    const before = (await geordi.getPost({ id: postOnB.post.id })).post_view.counts;
    const created = await wes.createComment({ post_id: postOnA.post.id, content: 'Engage.' });
    wesComment = created.comment_view;
    assert.equal(wesComment.comment.content, 'Engage.');
    assert.equal(wesComment.comment.path, `0.${wesComment.comment.id}`);
    assert.equal(wesComment.comment.local, true);
    assert.ok(wesComment.comment.ap_id.startsWith(a.url));
    const liked = await wes.likePost({ post_id: postOnA.post.id, score: 1 });
    assert.equal(liked.post_view.my_vote, 1);

    const note = await receivedBy(wesActor, 'Create', wesComment.comment.ap_id);
    assertVerified(note);
    const noteDoc = note.activity!['object'] as Doc;
    assert.equal(noteDoc['type'], 'Note');
    assert.equal(noteDoc['inReplyTo'], lemmyPost);
    assertVerified(await receivedBy(wesActor, 'Like', lemmyPost));
    assert.deepEqual(lemmy.counts(lemmyPost), { upvotes: 2, downvotes: 0, score: 2 }, "picard's own and wes's");

    const onB = await inTree(geordi, postOnB.post.id, wesComment.comment.ap_id);
    assert.equal(onB.comment.content, 'Engage.');
    assert.equal(onB.creator.actor_id, wesActor, "attributed to A's member: B took it from A, not from the community's word");
    assert.equal(onB.comment.path, `0.${onB.comment.id}`);
    assert.equal(onB.post.ap_id, lemmyPost);
    await eventually(async () => {
      const counts = (await geordi.getPost({ id: postOnB.post.id })).post_view.counts;
      assert.equal(counts.upvotes, before.upvotes + 1);
      assert.equal(counts.score, before.score + 1);
      assert.equal(counts.comments, before.comments + 1);
    }, WAIT_MS);
  });

  it("the Lemmy user replies to A's comment: the reply sits under it in the tree on A and on B", async () => {
    picardReply = (await lemmy.comment('picard', wesComment.comment.ap_id, 'Make it so, Number One.')).id;
    for (const client of [wes, geordi]) {
      const postId = client === wes ? postOnA.post.id : postOnB.post.id;
      const parent = await inTree(client, postId, wesComment.comment.ap_id);
      const reply = await inTree(client, postId, picardReply);
      assert.equal(reply.comment.path, `${parent.comment.path}.${reply.comment.id}`);
      assert.equal(reply.comment.content, 'Make it so, Number One.');
      assert.equal(reply.creator.actor_id, lemmy.user('picard').id);
      await inTree(client, postId, wesComment.comment.ap_id, (c) => assert.equal(c.counts.child_count, 1));
      const { comments } = await client.getComments({ post_id: postId, parent_id: parent.comment.id, max_depth: 8 });
      assert.ok(comments.some((c) => c.comment.ap_id === picardReply));
    }
  });

  it("A's member posts a link into the community: the fake gets Lemmy's Page, signed over content-type, and B sees it", async () => {
    const url = 'https://example.com/dilithium';
    const body = 'Dilithium crystals, *realigned*.';
    wesPost = (await wes.createPost({ name: 'Dilithium matrix', community_id: communityOnA, url, body })).post_view;
    assert.equal(wesPost.post.local, true);
    assert.equal(wesPost.post.url, url);
    assert.equal(wesPost.post.body, body);
    assert.equal(wesPost.community.actor_id, lemmy.community.id);

    const create = await receivedBy(wesActor, 'Create', wesPost.post.ap_id);
    assertVerified(create);
    const page = create.activity!['object'] as Doc;
    assert.equal(page['type'], 'Page');
    assert.equal(page['name'], 'Dilithium matrix');
    assert.ok(
      (page['attachment'] as Doc[]).some((x) => x['type'] === 'Link' && x['href'] === url),
      'the link as a Link attachment',
    );
    assert.equal(hrefOf(page['url']), url, 'and as url, for other servers');
    assert.deepEqual(page['source'], { content: body, mediaType: 'text/markdown' });
    assert.match(String(page['content']), /realigned/);
    assert.equal(page['audience'], lemmy.community.id);
    assert.ok([page['to'], page['cc']].flat().includes(lemmy.community.id));
    assert.ok([page['to'], page['cc']].flat().includes(PUBLIC));
    assert.equal(page['attributedTo'], wesActor);
    assert.ok(lemmy.object(wesPost.post.ap_id), 'the community holds it');

    const onB = await listed(geordi, wesPost.post.ap_id, (p) => {
      assert.equal(p.post.name, 'Dilithium matrix');
      assert.equal(p.post.url, url);
      assert.equal(p.post.body, body);
    });
    assert.equal(onB.creator.actor_id, wesActor);
    assert.equal(onB.community.actor_id, lemmy.community.id);
    const mine = await listed(wes, wesPost.post.ap_id);
    assert.equal(mine.post.id, wesPost.post.id, 'stored once on A, though the community announced it back');
  });

  it("a member of B votes on A's comment: counted by the community, and on A", async () => {
    const onB = await inTree(geordi, postOnB.post.id, wesComment.comment.ap_id);
    const before = (await inTree(wes, postOnA.post.id, wesComment.comment.ap_id)).counts.upvotes;
    const liked = await geordi.likeComment({ comment_id: onB.comment.id, score: 1 });
    assert.equal(liked.comment_view.my_vote, 1);
    assertVerified(await receivedBy(geordiActor, 'Like', wesComment.comment.ap_id));
    assert.equal(lemmy.counts(wesComment.comment.ap_id).upvotes, 2);
    await inTree(wes, postOnA.post.id, wesComment.comment.ap_id, (c) => assert.equal(c.counts.upvotes, before + 1));
  });

  it("a Lemmy user's vote on A's comment counts on A and B, and Lemmy's Undo of it (a new Like, not the vote) takes it back", async () => {
    const upvotes = async (): Promise<[number, number]> => [
      (await inTree(wes, postOnA.post.id, wesComment.comment.ap_id)).counts.upvotes,
      (await inTree(geordi, postOnB.post.id, wesComment.comment.ap_id)).counts.upvotes,
    ];
    const [onA, onB] = await upvotes();
    await lemmy.vote('picard', wesComment.comment.ap_id, 1);
    await eventually(async () => assert.deepEqual(await upvotes(), [onA + 1, onB + 1]), WAIT_MS);
    await lemmy.vote('picard', wesComment.comment.ap_id, 0);
    await eventually(async () => assert.deepEqual(await upvotes(), [onA, onB]), WAIT_MS);
  });

  it('a downvote on A, where downvotes are off, is refused with downvotes_are_disabled and nothing reaches the fake', async () => {
    await assert.rejects(wes.likePost({ post_id: postOnA.post.id, score: -1 }), { message: 'downvotes_are_disabled' });
    await assert.rejects(wes.likeComment({ comment_id: wesComment.comment.id, score: -1 }), { message: 'downvotes_are_disabled' });
    assert.equal((await wes.getPost({ id: postOnA.post.id })).post_view.my_vote, 1, 'the upvote stands');
    await deliveriesDone(a, lemmy.host, WAIT_MS);
    assert.ok(!lemmy.received.some((d) => d.activity?.['type'] === 'Dislike' && d.activity['actor'] === wesActor));
    assert.equal(lemmy.counts(lemmyPost).downvotes, 0);
  });

  it('a saved post is in the member’s saved list', async () => {
    const saved = await wes.savePost({ post_id: postOnA.post.id, save: true });
    assert.equal(saved.post_view.saved, true);
    const { posts } = await wes.getPosts({ saved_only: true, type_: 'All', sort: 'New' });
    assert.deepEqual(
      posts.map((p) => p.post.ap_id),
      [lemmyPost],
    );
  });

  it('edits from both sides apply on both servers', async () => {
    const edited = await wes.editPost({ post_id: wesPost.post.id, name: 'Dilithium matrix, realigned', body: 'Done.' });
    assert.equal(edited.post_view.post.name, 'Dilithium matrix, realigned');
    assertVerified(await receivedBy(wesActor, 'Update', wesPost.post.ap_id));
    await listed(geordi, wesPost.post.ap_id, (p) => {
      assert.equal(p.post.name, 'Dilithium matrix, realigned');
      assert.equal(p.post.body, 'Done.');
      assert.ok(p.post.updated);
    });

    const comment = await wes.editComment({ comment_id: wesComment.comment.id, content: 'Engage!' });
    assert.equal(comment.comment_view.comment.content, 'Engage!');
    assertVerified(await receivedBy(wesActor, 'Update', wesComment.comment.ap_id));
    await inTree(geordi, postOnB.post.id, wesComment.comment.ap_id, (c) => assert.equal(c.comment.content, 'Engage!'));

    await lemmy.edit('picard', lemmyPost, { name: 'Warp core report (revised)', body: 'Stable.' });
    await lemmy.edit('picard', picardReply, { text: 'Make it so.' });
    for (const [client, postId] of [
      [wes, postOnA.post.id],
      [geordi, postOnB.post.id],
    ] as const) {
      await listed(client, lemmyPost, (p) => {
        assert.equal(p.post.name, 'Warp core report (revised)');
        assert.equal(p.post.body, 'Stable.');
      });
      await inTree(client, postId, picardReply, (c) => assert.equal(c.comment.content, 'Make it so.'));
    }
  });

  it('deletes from both sides apply on both servers', async () => {
    const gone = (c: CommentView | undefined) => assert.ok(c === undefined || c.comment.deleted, 'deleted');
    const deleted = await wes.deleteComment({ comment_id: wesComment.comment.id, deleted: true });
    assert.equal(deleted.comment_view.comment.deleted, true);
    const del = await receivedBy(wesActor, 'Delete', wesComment.comment.ap_id);
    assertVerified(del);
    assert.ok([del.activity!['to'], del.activity!['cc']].flat().includes(PUBLIC), 'a Delete names Public');
    await eventually(async () => {
      const { comments } = await geordi.getComments({ post_id: postOnB.post.id, max_depth: 8, type_: 'All' });
      gone(comments.find((c) => c.comment.ap_id === wesComment.comment.ap_id));
    }, WAIT_MS);

    await wes.deletePost({ post_id: wesPost.post.id, deleted: true });
    assertVerified(await receivedBy(wesActor, 'Delete', wesPost.post.ap_id));
    await eventually(async () => {
      const { posts } = await geordi.getPosts({ type_: 'Subscribed', sort: 'New', limit: 50 });
      const p = posts.find((x) => x.post.ap_id === wesPost.post.ap_id);
      assert.ok(p === undefined || p.post.deleted);
    }, WAIT_MS);

    await lemmy.delete('picard', picardReply);
    for (const [client, postId] of [
      [wes, postOnA.post.id],
      [geordi, postOnB.post.id],
    ] as const) {
      await eventually(async () => {
        const { comments } = await client.getComments({ post_id: postId, max_depth: 8, type_: 'All' });
        gone(comments.find((c) => c.comment.ap_id === picardReply));
      }, WAIT_MS);
    }
  });
});
