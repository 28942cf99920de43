// What a community (a remote Group: Lemmy 0.19, PieFed, Mbin) announces to its followers here: Announce of a
// Create/Update/Delete/Like/Dislike/Undo of a Page (a post) or a Note (a comment), and Lemmy's compat form
// Announce{Page} of the same post. Posts and comments become statuses filed in the link aggregator's records, votes
// its counts; Mastodon clients see each post as the Group's boost (one per post, whichever Announce came first).
//
// Trust (docs/decisions/0053-community-inbound.md): the signer is the Group. An inner activity whose actor and object
// are on the Group's origin is taken as embedded (that server speaks for its users); an object of another origin is
// fetched by id from that origin; a vote or a Delete is taken on the community's word (it rules its own threads),
// a vote keyed by the vote activity's id so that its Undo finds it.
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Transactor } from '../store/db.js';
import type { FollowStore } from '../store/follows.js';
import type { CommentRecord, LinkAggregatorStore, LinkPostRecord } from '../store/link-aggregator.js';
import type { MediaStore } from '../store/media.js';
import type { Notifier } from '../store/notifications.js';
import type { PollStore } from '../store/polls.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { LocalUris } from '../urls/local-uris.js';
import { activitySchema, actorSchema, isRecord, typeName, type ActivityDoc } from './as2.js';
import { FetchError } from './fetch-errors.js';
import type { HttpClient, Signer } from './http-client.js';
import { boostStatus, noteStatus, storeNoteParts } from './note-handlers.js';
import { NOTE_TYPES, noteSchema, visibilityOf, type NoteDoc } from './note-schema.js';
import { postBody, postHtml, postTitle } from './page-parts.js';
import { sameOrigin, type RemoteActors } from './remote-actors.js';

/** Mentions looked up per comment at most. */
const MAX_MENTIONS = 20;
/** Ancestors of a comment fetched at most when its thread is not held (joined late, or a reply deep down). */
const MAX_ANCESTORS = 8;

export interface CommunityInboxDeps {
  readonly log: Logger;
  readonly db: Transactor;
  readonly accounts: AccountStore;
  readonly follows: Pick<FollowStore, 'hasLocalFollowers'>;
  readonly statuses: StatusStore;
  readonly remote: RemoteActors;
  readonly links: LinkAggregatorStore;
  readonly media: MediaStore;
  readonly polls: PollStore;
  readonly notifier: Notifier;
  readonly uris: LocalUris;
  readonly http: HttpClient;
  readonly signer: Signer;
  /** The operator's federation policy: true when that host (`host:port`) is suspended. */
  readonly suspended: (host: string) => Promise<boolean>;
  /** LINK_DOWNVOTES: when off, incoming Dislikes are not counted (as Lemmy 0.19 with enable_downvotes off). */
  readonly downvotes: boolean;
}

/** A post or comment as a community carries it: the parsed object and its type. */
interface Piece {
  readonly note: NoteDoc;
  readonly type: string;
}

const rawObjectSchema = z.record(z.string(), z.unknown());

export class CommunityInbox {
  constructor(private readonly d: CommunityInboxDeps) {}

  /**
   * An Announce by a Group. Nothing is kept unless someone here follows the community (as Mastodon keeps no boost of
   * an account nobody follows). Returns false when the Announce is not a community's (a plain boost of a Note), for
   * the ordinary boost path.
   */
  async onAnnounced(a: ActivityDoc, group: Account): Promise<boolean> {
    const inner = isRecord(a.object) ? activitySchema.safeParse(a.object) : undefined;
    const activity = inner?.success && !NOTE_TYPES.some((t) => t === inner.data.type) ? inner.data : null;
    if (!activity) return this.compatAnnounced(a, group);
    if (!(await this.d.follows.hasLocalFollowers(group.id))) return true;
    switch (activity.type) {
      case 'Create':
      case 'Update': {
        if (activity.objectType === 'Group' || activity.objectId === group.uri) {
          await this.groupUpdated(activity, group);
          return true;
        }
        if (activity.objectId && this.d.uris.isLocal(activity.objectId)) {
          // A member's own post, announced back by the community: the Group's boost is what it adds.
          const ours = await this.statusByUri(activity.objectId);
          const post = ours && (await this.d.links.postByStatus(ours.id));
          if (post && post.communityId === (await this.d.links.communityOf(group.id))) await this.boosted(group, post.statusId, a.id, 'public');
          return true;
        }
        const piece = await this.pieceOf(activity.object, activity.objectId, group, activity.actor);
        if (!piece || piece.note.attributedTo !== activity.actor) return true;
        if (activity.type === 'Update' && (await this.edited(piece, group))) return true;
        await this.file(piece, group, a.id);
        return true;
      }
      case 'Like':
      case 'Dislike':
        await this.voted(activity, group);
        return true;
      case 'Undo':
        await this.undone(activity, group);
        return true;
      case 'Delete':
        await this.deleted(activity, group);
        return true;
      default:
        // Lock, Add/Remove (featured, moderators), Block, Flag: not kept here.
        return true;
    }
  }

  /**
   * The compat form: the Page itself (or its id) announced, for servers that do not read Announce{Create}. Lemmy sends
   * it beside Announce{Create} for the same post. Another object (a Note) is an ordinary boost: false.
   */
  private async compatAnnounced(a: ActivityDoc, group: Account): Promise<boolean> {
    if (!a.objectId || (isRecord(a.object) && a.objectType !== 'Page')) return false;
    const followed = await this.d.follows.hasLocalFollowers(group.id);
    const held = await this.postOf(a.objectId);
    if (held) {
      // Its other Announce filed it already: the Group's one boost is all that may be missing.
      if (followed && held.communityId === (await this.d.links.communityOf(group.id))) await this.boosted(group, held.statusId, a.id, 'public');
      return true;
    }
    // An id nobody here follows the Group for: the ordinary boost path decides (it keeps nothing either).
    if (!followed) return isRecord(a.object);
    const piece = await this.pieceOf(a.object, a.objectId, group, group.uri!);
    if (piece?.type !== 'Page') return !!piece && isRecord(a.object);
    await this.file(piece, group, a.id);
    return true;
  }

  /**
   * An Update of the Group itself (a moderator's edit of the community, update_community.json): the Group's own
   * document, stored as an actor Update from its origin is.
   */
  private async groupUpdated(u: ActivityDoc, group: Account): Promise<void> {
    const doc = isRecord(u.object) ? actorSchema.safeParse(u.object) : undefined;
    if (doc?.success && doc.data.id === group.uri) await this.d.remote.storeReceived(doc.data, group);
    else await this.d.remote.byUri(group.uri!, { refresh: true });
  }

  /** The Group's boost of a post, once: the store keeps one live boost per account and status, whichever Announce came first. */
  private async boosted(group: Account, statusId: string, announceId: string, visibility: 'public' | 'unlisted'): Promise<void> {
    await this.d.statuses.create(boostStatus(group.id, announceId, statusId, visibility));
  }

  /**
   * The post or comment an activity carries: embedded when it and the activity's actor are on the Group's origin,
   * else fetched by id from its own origin. Always on its author's origin.
   */
  private async pieceOf(object: ActivityDoc['object'], objectId: string | null, group: Account, actor: string): Promise<Piece | null> {
    if (!objectId) return null;
    let piece: Piece | null = null;
    if (isRecord(object) && sameOrigin(objectId, group.uri!) && sameOrigin(actor, group.uri!)) piece = pieceFrom(object);
    else if (!this.d.uris.isLocal(objectId)) piece = await this.fetchPiece(objectId);
    if (!piece || piece.note.id !== objectId || !sameOrigin(piece.note.id, piece.note.attributedTo)) return null;
    return piece;
  }

  /** A post or comment fetched from its origin (signed as the instance actor); null when it is not one. */
  private async fetchPiece(uri: string): Promise<Piece | null> {
    if (this.d.uris.isLocal(uri)) return null;
    const { value, url } = await this.d.http.getJson(uri, rawObjectSchema, { sign: this.d.signer });
    const piece = pieceFrom(value);
    if (piece && !sameOrigin(piece.note.id, url)) throw new FetchError('unsupported', 'origin_mismatch', uri);
    return piece;
  }

  /** An author or voter whose posts and votes count here: resolved, not suspended, nor on a suspended domain. */
  private async heard(uri: string): Promise<Account | null> {
    if (this.d.uris.isLocal(uri)) return null; // our members' own actions are recorded when they act
    if (await this.d.suspended(new URL(uri).host.toLowerCase())) return null;
    const a = await this.d.remote.byUri(uri);
    return a.suspendedAt || a.deletedAt ? null : a;
  }

  /**
   * An `audience` other than the announcing Group: another community's post is not this Group's to announce. Lemmy
   * sometimes names the author there instead (its create_note.json does); that, once resolved, is no community.
   */
  private async audienceIsNoCommunity(uri: string): Promise<boolean> {
    if (this.d.uris.isLocal(uri)) return false;
    try {
      return (await this.d.remote.byUri(uri)).actorType !== 'Group';
    } catch (e) {
      this.d.log.debug({ err: e, audience: uri }, 'community post naming an audience that does not resolve');
      return false;
    }
  }

  /**
   * A post (no inReplyTo) or a comment (in reply to a post or comment of this community), stored once. A post the
   * Group announced now (announceId) is shown as its boost; an ancestor fetched for a comment is not.
   */
  private async file(piece: Piece, group: Account, announceId: string | null, depth = 0): Promise<void> {
    const { note } = piece;
    if (note.audience && note.audience !== group.uri && !(await this.audienceIsNoCommunity(note.audience))) return;
    // A piece of another origin than the Group's is this community's only when it says so itself (it was fetched from
    // its origin): else any Group could claim anyone's status as its post, and then delete it.
    if (!sameOrigin(note.id, group.uri!) && !namesGroup(note, group.uri!)) return;
    const author = await this.heard(note.attributedTo);
    if (!author) return;
    const visibility = visibilityOf(note, author.followersUrl);
    if (visibility !== 'public' && visibility !== 'unlisted') return;
    const communityId = await this.d.links.communityId(group.id);
    if (note.inReplyTo) await this.fileComment(note, author, group, communityId, visibility, depth);
    else await this.filePost(note, author, group, communityId, announceId, visibility);
  }

  private async filePost(note: NoteDoc, author: Account, group: Account, communityId: number, announceId: string | null, visibility: 'public' | 'unlisted') {
    const filed = await this.d.db.tx(async (q) => {
      // Both forms of the double announce may be processed at once: one post.
      await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`community-post:${note.id}`]);
      const status = await this.statusFor(note, author, undefined, visibility, postHtml(note));
      if (!status) return null;
      const held = await this.d.links.postByStatus(status.id);
      if (held && held.communityId !== communityId) return null; // filed by another community first
      await this.d.links.recordPost({
        statusId: status.id,
        communityId,
        name: postTitle(note),
        url: note.link,
        body: postBody(note),
        nsfw: note.sensitive,
        published: status.createdAt,
      });
      return status.id;
    });
    if (filed && announceId) await this.boosted(group, filed, announceId, visibility);
  }

  private async fileComment(note: NoteDoc, author: Account, group: Account, communityId: number, visibility: 'public' | 'unlisted', depth: number) {
    let parent = await this.statusByUri(note.inReplyTo!);
    if (!parent && depth < MAX_ANCESTORS && !this.d.uris.isLocal(note.inReplyTo!)) {
      // The thread began before anyone here followed the community: its ancestors, from their origins.
      const above = await this.fetchPiece(note.inReplyTo!);
      if (above && above.note.id === note.inReplyTo && sameOrigin(above.note.id, above.note.attributedTo)) await this.file(above, group, null, depth + 1);
      parent = await this.statusByUri(note.inReplyTo!);
    }
    if (!parent || parent.deletedAt) {
      this.d.log.debug({ comment: note.id, parent: note.inReplyTo }, 'community comment on a post not held');
      return;
    }
    const thread = await this.threadOf(parent);
    if (!thread || thread.post.communityId !== communityId) return;
    await this.d.db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`community-post:${note.id}`]);
      const status = await this.statusFor(note, author, parent, visibility, note.content);
      if (!status) return;
      await this.d.links.recordComment(status.id, thread.post.id, thread.comment, postBody(note), status.createdAt);
    });
  }

  /** The post a status is, or the post and comment it is a comment of. */
  private async threadOf(s: Pick<Status, 'id'>): Promise<{ post: LinkPostRecord; comment: CommentRecord | null } | null> {
    const post = await this.d.links.postByStatus(s.id);
    if (post) return { post, comment: null };
    const comment = await this.d.links.commentByStatus(s.id);
    const owner = comment && (await this.d.links.postById(comment.postId));
    return owner ? { post: owner, comment: comment! } : null;
  }

  /**
   * The status of a post or comment: held already (a history copy promoted, or one this community filed), or stored
   * now. A status held as an ordinary one stays so: a community's announce does not take it over.
   */
  private async statusFor(note: NoteDoc, author: Account, parent: Status | undefined, visibility: 'public' | 'unlisted', content: string) {
    const held = await this.d.statuses.byUri(note.id);
    if (held) {
      if (held.accountId !== author.id || held.deletedAt) return undefined;
      if (!held.history && !(await this.filed(held))) return undefined;
      if (held.history) await this.d.statuses.promote(held.id);
      return held;
    }
    const mentioned = await this.localMentions(note);
    const { status, created } = await this.d.statuses.create({
      ...noteStatus({ ...note, content }, author.id, visibility, parent, undefined),
      mentionIds: mentioned.map((m) => m.id),
    });
    if (created) {
      await storeNoteParts(this.d, note, author.id, status.id);
      for (const m of mentioned) await this.d.notifier.notify(m.id, 'mention', author.id, status.id);
      await this.d.notifier.newPost(status);
    }
    return status;
  }

  /** True when a status is filed as a post or comment of some community (whose, the caller checks). */
  private async filed(s: Status): Promise<boolean> {
    return !!(await this.d.links.postByStatus(s.id)) || !!(await this.d.links.commentByStatus(s.id));
  }

  /** An edit of a post or comment we hold (true), else false: an Update of one we never saw files it. */
  private async edited(piece: Piece, group: Account): Promise<boolean> {
    const { note } = piece;
    const s = await this.d.statuses.byUri(note.id);
    if (!s) return false;
    const author = await this.d.accounts.byUri(note.attributedTo);
    if (!author || s.accountId !== author.id || s.deletedAt) return true;
    const thread = await this.threadOf(s);
    const communityId = await this.d.links.communityOf(group.id);
    if (!thread || thread.post.communityId !== communityId) return true;
    const isPost = thread.comment === null;
    await this.d.db.tx(async () => {
      await this.d.statuses.edit(s.id, {
        text: '',
        content: isPost ? postHtml(note) : note.content,
        spoilerText: note.summary,
        sensitive: note.sensitive || note.summary !== '',
        language: note.language,
        mentionIds: s.mentionIds,
        tags: note.hashtags.slice(0, 20),
        editedAt: note.updated && note.updated.getTime() <= Date.now() ? note.updated : undefined,
      });
      if (isPost) await this.d.links.editPost(s.id, postTitle(note), note.link, postBody(note), note.sensitive);
      else await this.d.links.editComment(s.id, postBody(note));
    });
    return true;
  }

  /** A vote on a post or comment of this community, on its word; keyed by the vote's id for its Undo. */
  private async voted(v: ActivityDoc, group: Account): Promise<void> {
    if (!v.objectId || (v.type === 'Dislike' && !this.d.downvotes)) return;
    const s = await this.statusByUri(v.objectId);
    if (!s || s.deletedAt || !(await this.inCommunity(s, group))) return;
    const voter = await this.heard(v.actor);
    if (!voter) return;
    await this.d.links.vote(s.id, voter.id, v.type === 'Dislike' ? -1 : 1, v.id);
  }

  /**
   * An Undo of a vote (by the voter); other Undos (of a Delete, a Block) are not kept here. Only a vote on this
   * community's post or comment: a Group has no word on votes in another community.
   */
  private async undone(u: ActivityDoc, group: Account): Promise<void> {
    const inner = isRecord(u.object) ? activitySchema.safeParse(u.object) : undefined;
    if (inner?.success && (inner.data.actor !== u.actor || (inner.data.type !== 'Like' && inner.data.type !== 'Dislike'))) return;
    const voteId = inner?.success ? inner.data.id : u.objectId;
    const voter = await this.d.accounts.byUri(u.actor);
    if (!voter) return;
    const votedOn = voteId ? await this.d.links.voteStatusByUri(voteId, voter.id) : undefined;
    if (votedOn) {
      if (await this.inCommunity({ id: votedOn }, group)) await this.d.links.unvoteByUri(voteId!, voter.id);
      return;
    }
    // Lemmy 0.19's UndoVote embeds a vote with a fresh id, not the one it sent: it takes back whatever vote the voter
    // holds on that object, and so do we.
    const target = inner?.success ? inner.data.objectId : null;
    const s = target ? await this.statusByUri(target) : undefined;
    if (s && (await this.inCommunity(s, group))) await this.d.links.vote(s.id, voter.id, 0, null);
  }

  /** A Delete of a post or comment of this community: by its author, or a moderator's removal the Group announces. */
  private async deleted(del: ActivityDoc, group: Account): Promise<void> {
    if (!del.objectId) return;
    const s = await this.d.statuses.byUri(del.objectId);
    if (!s || s.deletedAt || !(await this.inCommunity(s, group))) return;
    await this.d.statuses.softDelete(s.id);
  }

  private async inCommunity(s: Pick<Status, 'id'>, group: Account): Promise<boolean> {
    const thread = await this.threadOf(s);
    return !!thread && thread.post.communityId === (await this.d.links.communityOf(group.id));
  }

  private async postOf(uri: string): Promise<LinkPostRecord | undefined> {
    const s = await this.statusByUri(uri);
    return s && (await this.d.links.postByStatus(s.id));
  }

  /** Local members a comment mentions (Lemmy tags the author it replies to). */
  private async localMentions(note: NoteDoc): Promise<Account[]> {
    const out: Account[] = [];
    for (const uri of note.mentions.slice(0, MAX_MENTIONS)) {
      const name = this.d.uris.usernameOf(uri);
      const a = name ? await this.d.accounts.byHandle(name, null) : undefined;
      if (a?.hasUser && !a.instanceActor && !out.some((o) => o.id === a.id)) out.push(a);
    }
    return out;
  }

  private async statusByUri(uri: string): Promise<Status | undefined> {
    const localId = this.d.uris.statusIdOf(uri);
    return localId ? this.d.statuses.byId(localId) : this.d.statuses.byUri(uri);
  }
}

/** The piece names the Group as its community: its `audience`, or among its addressees. */
function namesGroup(note: NoteDoc, groupUri: string): boolean {
  return note.audience === groupUri || note.to.includes(groupUri) || note.cc.includes(groupUri);
}

/** A Page, Note or other post type, parsed; null when it is not one. */
export function pieceFrom(raw: Record<string, unknown>): Piece | null {
  const parsed = noteSchema.safeParse(raw);
  const type = typeName(raw['type']);
  return parsed.success && type ? { note: parsed.data, type } : null;
}
