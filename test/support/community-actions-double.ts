// A test double of CommunityActions (the community service is another part's work): what a member does, stored
// through the real stores and SQL with nothing federated, so the /api/v3 write routes can be driven end to end.
// Authorship and downvote rules are the contract's (services/community-actions.ts).
import { Errors } from '../../src/errors.js';
import type { CommunityActions, SubscribedType } from '../../src/services/community-actions.js';
import type { Account } from '../../src/store/accounts.js';
import type { Database } from '../../src/store/db.js';
import { LinkAggregatorStore } from '../../src/store/link-aggregator.js';

export class CommunityActionsDouble implements CommunityActions {
  private store: { db: Database; links: LinkAggregatorStore } | undefined;
  enableDownvotes = true;
  /** Every call, in order, as `method:arg`. */
  readonly calls: string[] = [];

  /** Connects the double to the server's database once it has started. */
  attach(db: Database): void {
    this.store = { db, links: new LinkAggregatorStore(db) };
  }

  private get s() {
    if (!this.store) throw new Error('CommunityActionsDouble used before attach()');
    return this.store;
  }

  private async newStatus(me: Account, replyTo: string | null): Promise<string> {
    return (await this.s.db.one<{ id: string }>(
      `INSERT INTO statuses (account_id, content, visibility, local, in_reply_to_id) VALUES ($1, '<p>x</p>', 0, true, $2) RETURNING id::text`,
      [me.id, replyTo],
    ))!.id;
  }

  private async authorOf(statusId: string): Promise<string> {
    return (await this.s.db.one<{ a: string }>('SELECT account_id::text AS a FROM statuses WHERE id = $1', [statusId]))!.a;
  }

  async follow(me: Account, communityId: number, follow: boolean): Promise<SubscribedType> {
    this.calls.push(`follow:${communityId}`);
    const group = await this.s.links.communityAccount(communityId);
    if (!group) throw Errors.lemmy(404, 'couldnt_find_community');
    if (follow) await this.s.db.exec('INSERT INTO follows (account_id, target_account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [me.id, group]);
    else await this.s.db.exec('DELETE FROM follows WHERE account_id = $1 AND target_account_id = $2', [me.id, group]);
    return follow ? 'Subscribed' : 'NotSubscribed';
  }

  async createPost(me: Account, p: Parameters<CommunityActions['createPost']>[1]) {
    this.calls.push(`createPost:${p.name}`);
    const statusId = await this.newStatus(me, null);
    return this.s.links.recordPost({ statusId, communityId: p.communityId, name: p.name, url: p.url, body: p.body, nsfw: p.nsfw, published: new Date() });
  }

  async editPost(me: Account, postId: number, e: Parameters<CommunityActions['editPost']>[2]) {
    this.calls.push(`editPost:${postId}`);
    const post = (await this.s.links.postById(postId))!;
    if ((await this.authorOf(post.statusId)) !== me.id) throw Errors.lemmy(400, 'no_post_edit_allowed');
    const nsfw = (await this.s.db.one<{ nsfw: boolean }>('SELECT nsfw FROM lemmy_posts WHERE id = $1', [postId]))!.nsfw;
    await this.s.links.editPost(post.statusId, e.name ?? post.name, e.url === undefined ? post.url : e.url, e.body ?? post.body, e.nsfw ?? nsfw);
    await this.s.db.exec('UPDATE statuses SET edited_at = now() WHERE id = $1', [post.statusId]);
    return (await this.s.links.postById(postId))!;
  }

  async deletePost(me: Account, postId: number): Promise<void> {
    this.calls.push(`deletePost:${postId}`);
    const post = (await this.s.links.postById(postId))!;
    if ((await this.authorOf(post.statusId)) !== me.id) throw Errors.lemmy(400, 'no_post_edit_allowed');
    await this.s.db.exec('UPDATE statuses SET deleted_at = now() WHERE id = $1', [post.statusId]);
  }

  async createComment(me: Account, c: Parameters<CommunityActions['createComment']>[1]) {
    this.calls.push(`createComment:${c.content}`);
    const post = (await this.s.links.postById(c.postId))!;
    const parent = c.parentId === null ? null : ((await this.s.links.commentById(c.parentId)) ?? null);
    const statusId = await this.newStatus(me, parent?.statusId ?? post.statusId);
    return this.s.links.recordComment(statusId, c.postId, parent, c.content, new Date());
  }

  async editComment(me: Account, commentId: number, content: string) {
    this.calls.push(`editComment:${commentId}`);
    const c = (await this.s.links.commentById(commentId))!;
    if ((await this.authorOf(c.statusId)) !== me.id) throw Errors.lemmy(400, 'no_comment_edit_allowed');
    await this.s.links.editComment(c.statusId, content);
    await this.s.db.exec('UPDATE statuses SET edited_at = now() WHERE id = $1', [c.statusId]);
    return c;
  }

  async deleteComment(me: Account, commentId: number): Promise<void> {
    this.calls.push(`deleteComment:${commentId}`);
    const c = (await this.s.links.commentById(commentId))!;
    if ((await this.authorOf(c.statusId)) !== me.id) throw Errors.lemmy(400, 'no_comment_edit_allowed');
    await this.s.db.exec('UPDATE statuses SET deleted_at = now() WHERE id = $1', [c.statusId]);
  }

  private async statusOf(target: Parameters<CommunityActions['vote']>[1]): Promise<string> {
    const r = 'postId' in target ? await this.s.links.postById(target.postId) : await this.s.links.commentById(target.commentId);
    return r!.statusId;
  }

  async vote(me: Account, target: Parameters<CommunityActions['vote']>[1], score: -1 | 0 | 1): Promise<void> {
    this.calls.push(`vote:${score}`);
    if (score === -1 && !this.enableDownvotes) throw Errors.lemmy(400, 'downvotes_are_disabled');
    await this.s.links.vote(await this.statusOf(target), me.id, score, null);
  }

  async save(me: Account, target: Parameters<CommunityActions['save']>[1], save: boolean): Promise<void> {
    this.calls.push(`save:${save}`);
    const statusId = await this.statusOf(target);
    if (save) await this.s.db.exec('INSERT INTO bookmarks (account_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [me.id, statusId]);
    else await this.s.db.exec('DELETE FROM bookmarks WHERE account_id = $1 AND status_id = $2', [me.id, statusId]);
  }
}
