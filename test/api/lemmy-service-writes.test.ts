// The /api/v3 write routes against the node's own community service (services/community-service.ts), not a test
// double: a member posts, votes, saves, comments, replies, edits and deletes in a remote community through
// lemmy-js-client 0.19.9, and every answer and listing shows it as Lemmy would. (What is sent to the community is the
// community service's tests' concern.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LemmyHttp } from 'lemmy-js-client';
import { lemmySeed } from '../support/lemmy-seed.js';
import { assertLemmyShape } from '../support/lemmy-shapes.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let m: LocalMembers;
let seed: ReturnType<typeof lemmySeed>;

const client = (token?: string): LemmyHttp => {
  const c = new LemmyHttp(s.url, { fetchFunction: fetch });
  if (token) c.setHeaders({ Authorization: `Bearer ${token}` });
  return c;
};

before(async () => {
  s = await startTestServer({ LINK_DOWNVOTES: 'true' });
  seed = lemmySeed(s.app.db);
  m = await createMembers(s, ['alice', 'bob']);
});
after(() => s.stop());

describe('writes through the community service', () => {
  it('a post, its votes and save, a thread of comments, edits and deletes, as Lemmy clients read them', async () => {
    const c = await seed.community('real', 'lemmy.test');
    await s.app.db.exec(`UPDATE accounts SET inbox_url = uri || '/inbox' WHERE id = $1`, [c.accountId]);
    const alice = client(m.token['alice']);
    const bob = client(m.token['bob']);

    const made = await alice.createPost({ name: 'Through the service', community_id: c.id, url: 'https://example.net/a', body: '**hi**' });
    assertLemmyShape('PostResponse', made);
    const post = made.post_view.post.id;
    assert.equal(made.post_view.post.body, '**hi**');
    assert.equal(made.post_view.post.url, 'https://example.net/a');
    assert.equal(made.post_view.creator.name, 'alice');
    // The author's own upvote, as Lemmy gives it.
    assert.equal(made.post_view.my_vote, 1);
    assert.equal(made.post_view.counts.score, 1);

    assert.equal((await bob.likePost({ post_id: post, score: 1 })).post_view.counts.upvotes, 2);
    const changed = (await alice.likePost({ post_id: post, score: -1 })).post_view;
    assert.deepEqual([changed.my_vote, changed.counts.upvotes, changed.counts.downvotes, changed.counts.score], [-1, 1, 1, 0]);
    assert.equal((await bob.savePost({ post_id: post, save: true })).post_view.saved, true);
    assert.deepEqual(
      (await bob.getPosts({ saved_only: true })).posts.map((p) => p.post.id),
      [post],
    );

    const top = (await bob.createComment({ post_id: post, content: 'a *reply*' })).comment_view;
    assert.equal(top.comment.path, `0.${top.comment.id}`);
    const reply = (await alice.createComment({ post_id: post, parent_id: top.comment.id, content: 'thanks' })).comment_view;
    assert.equal(reply.comment.path, `0.${top.comment.id}.${reply.comment.id}`);
    assert.equal((await alice.likeComment({ comment_id: top.comment.id, score: 1 })).comment_view.my_vote, 1);
    assert.equal((await bob.editComment({ comment_id: top.comment.id, content: 'a reply, edited' })).comment_view.comment.content, 'a reply, edited');
    await assert.rejects(alice.editComment({ comment_id: top.comment.id, content: 'not mine' }), { message: 'no_comment_edit_allowed' });

    const tree = await client().getComments({ post_id: post, max_depth: 8 });
    assertLemmyShape('GetCommentsResponse', tree);
    assert.deepEqual(
      tree.comments.map((x) => [x.comment.path, x.counts.child_count, x.counts.score]),
      [
        // bob's own upvote and alice's; alice's own on her reply
        [`0.${top.comment.id}`, 1, 2],
        [`0.${top.comment.id}.${reply.comment.id}`, 0, 1],
      ],
    );
    assert.equal((await client().getPost({ id: post })).post_view.counts.comments, 2);

    const gone = await bob.deleteComment({ comment_id: top.comment.id, deleted: true });
    assert.equal(gone.comment_view.comment.deleted, true);
    const after = (await client().getComments({ post_id: post, max_depth: 8 })).comments;
    assert.deepEqual(
      after.map((x) => [x.comment.id, x.comment.deleted, x.comment.content]),
      [
        [top.comment.id, true, ''],
        [reply.comment.id, false, 'thanks'],
      ],
    );

    const edited = await alice.editPost({ post_id: post, name: 'Through the service, edited' });
    assert.equal(edited.post_view.post.name, 'Through the service, edited');
    await assert.rejects(bob.editPost({ post_id: post, name: 'mine' }), { message: 'no_post_edit_allowed' });
    assert.equal((await alice.deletePost({ post_id: post, deleted: true })).post_view.post.deleted, true);
    assert.deepEqual(
      (await client().getPosts({ community_id: c.id, sort: 'New' })).posts.map((p) => p.post.id),
      [],
    );
    await assert.rejects(client().getPost({ id: post }), { message: 'couldnt_find_post' });
  });
});
