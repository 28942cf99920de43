// What a member does in a link-aggregator community (CommunityActions, for the /api/v3 adapter): posts, comments,
// edits, deletes, votes, follows and saves. A post or comment is a local public status whose content is its markdown
// rendered (text/markdown.ts), filed in the link aggregator's records in the SAME transaction as the status and its
// queued activity (the house's transactional outbox, as status-service.ts). What is sent is Lemmy 0.19's shape
// (federation/community-documents.ts): Create/Update/Delete to the community's inbox and the author's followers,
// votes to the community's inbox only (it re-announces them).
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config/schema.js';
import { ApiError, Errors } from '../errors.js';
import { actorUri } from '../federation/activities.js';
import { communityDeleteActivity, createOrUpdateActivity, undoVoteActivity, voteActivity } from '../federation/community-documents.js';
import type { LocalNotes } from '../federation/local-notes.js';
import type { Publisher } from '../federation/publisher.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { CommunityRulesStore } from '../store/community-rules.js';
import type { Transactor } from '../store/db.js';
import type { FollowStore } from '../store/follows.js';
import type { InteractionStore } from '../store/interactions.js';
import type { CommentRecord, LinkAggregatorStore, LinkPostRecord } from '../store/link-aggregator.js';
import type { Notifier } from '../store/notifications.js';
import type { Status, StatusStore } from '../store/statuses.js';
import { markdownHtml } from '../text/markdown.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { CommunityActions, CommunityPostEdit, NewComment, NewCommunityPost, SubscribedType, VoteTarget } from './community-actions.js';
import type { FollowService } from './follow-service.js';

/** Lemmy's limits: a title of 1 to 200 characters on one line; a body or comment of 10,000 at most. */
export const MAX_TITLE = 200;
export const MAX_BODY = 10_000;

export interface CommunityServiceDeps {
  readonly config: Config;
  readonly db: Transactor;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly follows: FollowStore;
  readonly interactions: InteractionStore;
  readonly links: LinkAggregatorStore;
  readonly rules: CommunityRulesStore;
  readonly notifier: Notifier;
  readonly notes: LocalNotes;
  readonly publisher: Publisher;
  readonly uris: LocalUris;
  readonly followService: FollowService;
  /** The operator's federation policy: nothing is posted to, or voted in, a community on a suspended domain. */
  readonly suspended: (host: string) => Promise<boolean>;
}

export class CommunityService implements CommunityActions {
  constructor(private readonly d: CommunityServiceDeps) {}

  /** Lemmy's local_site.enable_downvotes, from LINK_DOWNVOTES: the site view shows it, vote() obeys it. */
  downvotesEnabled(): boolean {
    return this.d.config.linkAggregator.downvotes;
  }

  async follow(me: Account, communityId: number, follow: boolean): Promise<SubscribedType> {
    const group = await this.group(communityId);
    try {
      if (!follow) {
        await this.d.followService.unfollow(me, group);
        return 'NotSubscribed';
      }
      await this.d.followService.follow(me, group);
    } catch (e) {
      throw lemmyRefusal(e);
    }
    // Remote: pending until the Group's Accept arrives (inbox-handlers.ts turns the request into a follow).
    return (await this.d.follows.find('follows', me.id, group.id)) ? 'Subscribed' : 'Pending';
  }

  async createPost(me: Account, p: NewCommunityPost): Promise<LinkPostRecord> {
    const name = checkTitle(p.name);
    const url = checkUrl(p.url);
    const body = checkBody(p.body);
    const group = await this.group(p.communityId);
    if (!(await this.d.rules.mayPost(p.communityId, me.id))) throw Errors.lemmy(400, 'only_mods_can_post_in_community');
    return this.d.db.tx(async () => {
      const { status } = await this.d.statuses.create({
        accountId: me.id,
        uri: null,
        url: null,
        text: body,
        content: markdownHtml(body),
        spoilerText: '',
        visibility: 'public',
        sensitive: p.nsfw,
        language: null,
        inReplyToId: null,
        inReplyToAccountId: null,
        inReplyToUri: null,
        local: true,
        mentionIds: [],
        tags: [],
        applicationId: p.applicationId,
      });
      const post = await this.d.links.recordPost({
        statusId: status.id,
        communityId: p.communityId,
        name,
        url,
        body,
        nsfw: p.nsfw,
        published: status.createdAt,
      });
      await this.ownVote(status, me);
      await this.d.notifier.newPost(status);
      await this.federate(status, me, group, 'Create');
      return post;
    });
  }

  async editPost(me: Account, postId: number, e: CommunityPostEdit): Promise<LinkPostRecord> {
    const post = await this.d.links.postById(postId);
    const status = post && (await this.live(post.statusId));
    if (!post || !status) throw Errors.lemmy(404, 'couldnt_find_post');
    if (status.accountId !== me.id) throw Errors.lemmy(400, 'no_post_edit_allowed');
    const name = e.name === undefined ? post.name : checkTitle(e.name);
    const url = e.url === undefined ? post.url : checkUrl(e.url);
    const body = e.body === undefined ? post.body : checkBody(e.body);
    const nsfw = e.nsfw ?? status.sensitive;
    if (name === post.name && url === post.url && body === post.body && nsfw === status.sensitive) return post;
    const group = await this.group(post.communityId);
    return this.d.db.tx(async () => {
      const { outcome } = await this.d.statuses.edit(status.id, {
        text: body,
        content: markdownHtml(body),
        spoilerText: '',
        sensitive: nsfw,
        language: status.language,
        mentionIds: [],
        tags: [],
      });
      if (outcome === 'not_found') throw Errors.lemmy(404, 'couldnt_find_post');
      // A title or link alone changed: the status's text did not, but the post was edited all the same.
      if (outcome === 'unchanged') await this.d.rules.markEdited(status.id, new Date());
      await this.d.links.editPost(status.id, name, url, body, nsfw);
      const edited = await this.live(status.id);
      if (!edited) throw Errors.lemmy(404, 'couldnt_find_post');
      await this.federate(edited, me, group, 'Update');
      return { ...post, name, url, body };
    });
  }

  async deletePost(me: Account, postId: number): Promise<void> {
    const post = await this.d.links.postById(postId);
    const status = post && (await this.live(post.statusId));
    if (!post || !status) throw Errors.lemmy(404, 'couldnt_find_post');
    if (status.accountId !== me.id) throw Errors.lemmy(400, 'no_post_edit_allowed');
    await this.remove(me, status, await this.group(post.communityId));
  }

  async createComment(me: Account, c: NewComment): Promise<CommentRecord> {
    const content = checkComment(c.content);
    const post = await this.d.links.postById(c.postId);
    const postStatus = post && (await this.live(post.statusId));
    if (!post || !postStatus) throw Errors.lemmy(404, 'couldnt_find_post');
    if ((await this.d.rules.postFlags(post.id))?.locked) throw Errors.lemmy(400, 'locked');
    let parent: CommentRecord | null = null;
    let parentStatus = postStatus;
    if (c.parentId !== null) {
      parent = (await this.d.links.commentById(c.parentId)) ?? null;
      const s = parent && parent.postId === post.id ? await this.live(parent.statusId) : undefined;
      if (!parent || !s) throw Errors.lemmy(404, 'couldnt_find_comment');
      parentStatus = s;
    }
    const group = await this.group(post.communityId);
    return this.d.db.tx(async () => {
      const { status } = await this.d.statuses.create({
        accountId: me.id,
        uri: null,
        url: null,
        text: content,
        content: markdownHtml(content),
        spoilerText: '',
        visibility: 'public',
        sensitive: false,
        language: null,
        inReplyToId: parentStatus.id,
        inReplyToAccountId: parentStatus.accountId,
        inReplyToUri: null,
        local: true,
        mentionIds: [],
        tags: [],
        applicationId: c.applicationId,
      });
      const comment = await this.d.links.recordComment(status.id, post.id, parent, content, status.createdAt);
      await this.ownVote(status, me);
      await this.d.notifier.newPost(status);
      await this.federate(status, me, group, 'Create');
      return comment;
    });
  }

  async editComment(me: Account, commentId: number, content: string): Promise<CommentRecord> {
    const text = checkComment(content);
    const { comment, status, group } = await this.ownComment(me, commentId);
    if (text === status.text) return comment;
    return this.d.db.tx(async () => {
      const { status: edited } = await this.d.statuses.edit(status.id, {
        text,
        content: markdownHtml(text),
        spoilerText: '',
        sensitive: status.sensitive,
        language: status.language,
        mentionIds: [],
        tags: [],
      });
      if (!edited) throw Errors.lemmy(404, 'couldnt_find_comment');
      await this.d.links.editComment(status.id, text);
      await this.federate(edited, me, group, 'Update');
      return comment;
    });
  }

  async deleteComment(me: Account, commentId: number): Promise<void> {
    const { status, group } = await this.ownComment(me, commentId);
    await this.remove(me, status, group);
  }

  async vote(me: Account, target: VoteTarget, score: -1 | 0 | 1): Promise<void> {
    if (score === -1 && !this.downvotesEnabled()) throw Errors.lemmy(400, 'downvotes_are_disabled');
    const { status, group } = await this.target(target);
    const objectId = await this.objectId(status);
    const actor = this.d.uris.actor(me.username);
    const audience = group.uri!;
    await this.d.db.tx(async () => {
      const now = await this.d.rules.voteOf(status.id, me.id);
      if ((now?.score ?? 0) === score) return; // the same vote again: nothing changes, nothing is sent
      const id = score === 0 ? null : `${actor}#votes/${status.id}-${randomBytes(6).toString('hex')}`;
      const { previous, previousUri } = await this.d.links.vote(status.id, me.id, score, id);
      if (id) {
        // A changed vote is the new vote alone, as Lemmy sends it: a vote replaces the person's vote there. An Undo
        // of the old one as well could overtake it (deliveries to one host run side by side) and Lemmy's Undo
        // removes whatever vote the person has, so the new vote would be lost.
        await this.d.publisher.sendTo(voteActivity(id, score === 1 ? 'Like' : 'Dislike', actor, objectId, audience), me, group);
      } else if (previous !== 0 && previousUri) {
        const old = voteActivity(previousUri, previous === 1 ? 'Like' : 'Dislike', actor, objectId, audience);
        await this.d.publisher.sendTo(undoVoteActivity(old), me, group);
      }
    });
  }

  async save(me: Account, target: VoteTarget, save: boolean): Promise<void> {
    const { status } = await this.target(target);
    if (save) await this.d.interactions.bookmark(me.id, status.id);
    else await this.d.interactions.unbookmark(me.id, status.id);
  }

  /**
   * The author's own upvote of a new post or comment, as Lemmy gives it (and as every Lemmy receiving the Create
   * counts it): stored, not sent. Its id is what an Undo of it names, should the author take it back.
   */
  private async ownVote(s: Status, me: Account): Promise<void> {
    await this.d.links.vote(s.id, me.id, 1, `${this.d.uris.actor(me.username)}#votes/${s.id}-own`);
  }

  /** The community's Group account; 404 couldnt_find_community when there is none (or it is gone). */
  private async group(communityId: number): Promise<Account> {
    const accountId = await this.d.links.communityAccount(communityId);
    const group = accountId ? await this.d.accounts.byId(accountId) : undefined;
    if (!group || group.deletedAt || group.suspendedAt || !group.uri) throw Errors.lemmy(404, 'couldnt_find_community');
    // A community whose server the operator suspended is gone for members, as its posts are (store/visibility.ts).
    if (group.domain && (await this.d.suspended(group.domain))) throw Errors.lemmy(404, 'couldnt_find_community');
    return group;
  }

  private async live(statusId: string): Promise<Status | undefined> {
    const s = await this.d.statuses.byId(statusId);
    return s && !s.deletedAt ? s : undefined;
  }

  private async ownComment(me: Account, commentId: number): Promise<{ comment: CommentRecord; status: Status; group: Account }> {
    const comment = await this.d.links.commentById(commentId);
    const status = comment && (await this.live(comment.statusId));
    const post = comment && (await this.d.links.postById(comment.postId));
    if (!comment || !status || !post) throw Errors.lemmy(404, 'couldnt_find_comment');
    if (status.accountId !== me.id) throw Errors.lemmy(400, 'no_comment_edit_allowed');
    return { comment, status, group: await this.group(post.communityId) };
  }

  /** A post's or comment's status and community; Lemmy's 404 for each when it is unknown or deleted. */
  private async target(t: VoteTarget): Promise<{ status: Status; group: Account }> {
    if ('postId' in t) {
      const post = await this.d.links.postById(t.postId);
      const status = post && (await this.live(post.statusId));
      if (!post || !status) throw Errors.lemmy(404, 'couldnt_find_post');
      return { status, group: await this.group(post.communityId) };
    }
    const comment = await this.d.links.commentById(t.commentId);
    const status = comment && (await this.live(comment.statusId));
    const post = comment && (await this.d.links.postById(comment.postId));
    if (!comment || !status || !post) throw Errors.lemmy(404, 'couldnt_find_comment');
    return { status, group: await this.group(post.communityId) };
  }

  private async objectId(s: Status): Promise<string> {
    if (s.uri) return s.uri;
    const author = await this.d.accounts.byId(s.accountId);
    if (!author) throw Errors.lemmy(404, 'couldnt_find_post');
    return this.d.uris.status(author.username, s.id);
  }

  private async remove(me: Account, status: Status, group: Account): Promise<void> {
    const { note, parentAuthor } = await this.d.notes.note(status, me);
    await this.d.db.tx(async () => {
      if (!(await this.d.statuses.softDelete(status.id))) return;
      const cc = parentAuthor && parentAuthor.id !== me.id ? [actorUri(parentAuthor, this.d.uris)] : [];
      const activity = communityDeleteActivity(note['id'] as string, this.d.uris.actor(me.username), group.uri!, cc);
      await this.d.publisher.sendToAudience(activity, me, true, this.remoteAudience(group, parentAuthor, me));
    });
  }

  /** Create and Update: the object as its document (a Page or comment Note), to followers, the community, the parent's author. */
  private async federate(s: Status, me: Account, group: Account, kind: 'Create' | 'Update'): Promise<void> {
    const { note, parentAuthor } = await this.d.notes.note(s, me);
    const activity = createOrUpdateActivity(kind, note, this.d.uris.actor(me.username), group.uri!);
    await this.d.publisher.sendToAudience(activity, me, true, this.remoteAudience(group, parentAuthor, me));
  }

  private remoteAudience(group: Account, parentAuthor: Account | undefined, me: Account): Account[] {
    return parentAuthor?.domain && parentAuthor.id !== me.id ? [group, parentAuthor] : [group];
  }
}

function checkTitle(name: string): string {
  // Lemmy's is_valid_post_title: something other than whitespace, no line break, 200 characters at most.
  if (!/\S/.test(name) || /[\r\n]/.test(name) || [...name].length > MAX_TITLE) throw Errors.lemmy(400, 'invalid_post_title');
  return name;
}

function checkUrl(url: string | null | undefined): string | null {
  if (url === null || url === undefined || url === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw Errors.lemmy(400, 'invalid_url');
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || url.length > 2000) throw Errors.lemmy(400, 'invalid_url');
  return parsed.href;
}

function checkBody(body: string): string {
  if ([...body].length > MAX_BODY) throw Errors.lemmy(400, 'invalid_body_field');
  return body;
}

function checkComment(content: string): string {
  if (!/\S/.test(content)) throw Errors.lemmy(400, 'couldnt_create_comment');
  return checkBody(content);
}

/**
 * The follow service's refusals, in Mastodon's words, as Lemmy's codes: a block either way (community_is_blocked), a
 * domain the member blocks (domain_blocked), a Group gone (couldnt_find_community). Lemmy's own codes pass.
 */
function lemmyRefusal(e: unknown): unknown {
  // Lemmy's codes are snake_case words; Mastodon's texts are sentences.
  if (!(e instanceof ApiError) || /^[a-z_]+$/.test(e.error) || e.status === 401 || e.status === 429 || e.status >= 500) return e;
  if (e.status === 404) return Errors.lemmy(404, 'couldnt_find_community');
  return Errors.lemmy(400, /block/i.test(e.error) ? 'community_is_blocked' : 'domain_blocked');
}
