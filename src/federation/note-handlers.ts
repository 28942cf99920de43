// Posts from other servers: a Create of a Note is stored when it concerns someone here (a local member follows the
// author, is mentioned or addressed, or it replies to or quotes a local post); a Delete of it hides it. The signer is
// the activity's actor (checked by the inbox); the Note must be theirs and live on their origin. A remote history post
// (imported from an outbox, kept out of every feed) that then arrives by Create, Update or Announce is promoted: it is
// listed from then on and told as the delivery would have told it, in the transaction that promotes it.
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Transactor } from '../store/db.js';
import type { FollowStore } from '../store/follows.js';
import type { InteractionStore } from '../store/interactions.js';
import type { MediaStore, MediaType, RemoteMedia } from '../store/media.js';
import type { PollSpec, PollStore } from '../store/polls.js';
import type { ReactionStore } from '../store/reactions.js';
import type { Notifier } from '../store/notifications.js';
import { newBoost, type NewStatus, type Status, type StatusStore } from '../store/statuses.js';
import { AS_PUBLIC, type ActivityDoc } from './as2.js';
import { reactionOf } from './emoji-reactions.js';
import { FetchError } from './fetch-errors.js';
import type { HttpClient, Signer } from './http-client.js';
import type { LocalUris } from '../urls/local-uris.js';
import { noteSchema, visibilityOf, type NoteDoc } from './note-schema.js';
import { sameOrigin, type RemoteActors } from './remote-actors.js';

/** Mentions and addressees looked up per post at most (a post naming thousands of accounts is not our problem). */
const MAX_RECIPIENTS = 100;

export interface NoteHandlerDeps {
  readonly log: Logger;
  /** A post with its media, poll and notifications, or a promotion with its notifications, commits as one. */
  readonly db: Transactor;
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly statuses: StatusStore;
  readonly interactions: InteractionStore;
  readonly remote: RemoteActors;
  readonly notifier: Notifier;
  readonly media: MediaStore;
  readonly polls: PollStore;
  readonly reactions: ReactionStore;
  readonly uris: LocalUris;
  readonly http: HttpClient;
  readonly signer: Signer;
}

export class NoteHandlers {
  constructor(private readonly d: NoteHandlerDeps) {}

  async onCreated(a: ActivityDoc, author: Account): Promise<void> {
    const note = await this.noteOf(a);
    if (!note) return;
    if (note.attributedTo !== author.uri || !sameOrigin(note.id, author.uri!)) throw new FetchError('unsupported', 'note_not_authors', note.id);
    const held = await this.d.statuses.byUri(note.id);
    // Delivered twice (shared inbox and personal inbox), or someone else's post under this id.
    if (held && (!held.history || held.accountId !== author.id || held.deletedAt)) return;
    const parent = note.inReplyTo ? await this.statusByUri(note.inReplyTo) : undefined;
    if (!held && parent && note.name !== null && note.content === '' && (await this.voted(note, author, parent.id))) return;
    const recipients = await this.localRecipients(note);
    const quoted = note.quote ? await this.statusByUri(note.quote) : undefined;
    if (!(await this.relevant(author, recipients, parent, quoted))) return;
    if (held) await this.promote(held, recipients);
    else await this.store(note, author, parent, recipients, quoted);
  }

  /** Whether a delivered post concerns someone here (else it is not kept, nor a held history post promoted). */
  private async relevant(author: Account, recipients: readonly Account[], parent: Status | undefined, quoted: Status | undefined): Promise<boolean> {
    return recipients.length > 0 || (parent?.local ?? false) || (!!quoted?.local && !quoted.deletedAt) || (await this.d.follows.hasLocalFollowers(author.id));
  }

  /**
   * A held history post arrived by delivery: listed from now on, and told as its delivery would have told it (its
   * mentions, the quoted member, followers who asked to be notified). Nothing if another inbox promoted it first.
   */
  private async promote(s: Status, recipients: readonly Account[]): Promise<void> {
    await this.d.db.tx(async () => {
      if (!(await this.d.statuses.promote(s.id))) return;
      const quoted = s.quoteOfId ? await this.d.statuses.byId(s.quoteOfId) : undefined;
      await this.tellOfNew(s, recipients, quoted);
    });
  }

  /** What a newly delivered post tells members: mentions, a quote, followers' `status` notifications. */
  private async tellOfNew(status: Status, recipients: readonly Pick<Account, 'id'>[], quoted: Status | undefined): Promise<void> {
    for (const r of recipients) await this.d.notifier.notify(r.id, 'mention', status.accountId, status.id);
    if (quoted && !quoted.deletedAt && (await this.d.statuses.canSee(status, quoted.accountId)))
      await this.d.notifier.notify(quoted.accountId, 'quote', status.accountId, status.id);
    await this.d.notifier.newPost(status);
  }

  private async store(note: NoteDoc, author: Account, parent: Status | undefined, known?: Account[], quotedKnown?: Status): Promise<Status> {
    const recipients = known ?? (await this.localRecipients(note));
    const quoted = quotedKnown ?? (note.quote ? await this.statusByUri(note.quote) : undefined);
    const remoteMentions = await this.knownRemote(note.mentions);
    // One transaction: the post never shows without its media or poll, nor is stored without its notifications.
    return this.d.db.tx(async () => {
      const { status, created } = await this.d.statuses.create({
        ...noteStatus(note, author.id, visibilityOf(note, author.followersUrl), parent, quoted),
        mentionIds: [...new Set([...recipients.map((r) => r.id), ...remoteMentions.map((r) => r.id)])],
      });
      if (created) {
        await storeNoteParts(this.d, note, author.id, status.id);
        await this.tellOfNew(status, recipients, quoted);
      }
      return status;
    });
  }

  /**
   * A Like of one of our statuses (or a remote one we hold) becomes a favourite; a Like carrying an emoji (Misskey)
   * and an EmojiReact become a reaction with that emoji, Unicode or custom (shown with its image).
   */
  async onLiked(a: ActivityDoc, actor: Account, raw: unknown): Promise<void> {
    const s = a.objectId ? await this.statusByUri(a.objectId) : undefined;
    if (!s || s.reblogOfId || !(await this.d.statuses.canSee(s, actor.id))) return;
    const emoji = reactionOf(raw);
    if (emoji) {
      await this.d.reactions.add(actor.id, s.id, emoji, a.id);
      return;
    }
    if (a.type !== 'Like') return; // an EmojiReact we cannot show (a custom emoji without its image)
    if (await this.d.interactions.favourite(actor.id, s.id, a.id)) {
      await this.d.notifier.notify(s.accountId, 'favourite', actor.id, s.id);
    }
  }

  /**
   * An Announce (boost) of a status we hold, or, when someone here follows the booster, of a public post we fetch
   * from its author's server; or an author's boost of their own followers-only post, which we hold when someone here
   * follows them (it reached us by its Create; the copy embedded in the Announce is not taken on its word).
   */
  async onAnnounced(a: ActivityDoc, actor: Account): Promise<void> {
    if (!a.objectId) return;
    let s = await this.statusByUri(a.objectId);
    if (!s && (await this.d.follows.hasLocalFollowers(actor.id))) s = await this.fetchPublic(a.objectId);
    if (!s || s.deletedAt || s.reblogOfId) return;
    const ownPrivate = s.visibility === 'private' && s.accountId === actor.id;
    if (s.visibility !== 'public' && s.visibility !== 'unlisted' && !ownPrivate) return;
    const toFollowers = actor.followersUrl !== null && [...a.to, ...a.cc].includes(actor.followersUrl);
    const visibility = ownPrivate ? (toFollowers ? 'private' : null) : a.to.includes(AS_PUBLIC) ? 'public' : a.cc.includes(AS_PUBLIC) ? 'unlisted' : null;
    if (!visibility) return;
    const boosted = s;
    await this.d.db.tx(async () => {
      // A held history post boosted to us arrives as a delivery would fetch it: promoted and told.
      if (boosted.history && (await this.d.statuses.promote(boosted.id))) {
        const quoted = boosted.quoteOfId ? await this.d.statuses.byId(boosted.quoteOfId) : undefined;
        await this.tellOfNew(
          boosted,
          boosted.mentionIds.map((id) => ({ id })),
          quoted,
        );
      }
      const { status: boost, created } = await this.d.statuses.create(boostStatus(actor.id, a.id, boosted.id, visibility));
      // The actor's boost may be held already as history (their outbox listed it): this delivery promotes it.
      const delivered =
        created || (boost.history && boost.accountId === actor.id && boost.reblogOfId === boosted.id && (await this.d.statuses.promote(boost.id)));
      if (delivered) await this.d.notifier.notify(boosted.accountId, 'reblog', actor.id, boosted.id);
    });
  }

  /** Undo of a Like or an Announce the actor sent earlier (by its id). */
  async onUndone(type: 'Like' | 'Announce' | 'EmojiReact', objectId: string, actor: Account): Promise<void> {
    // A Like may have been a reaction (Misskey): whichever it created goes.
    if (type !== 'Announce' && (await this.d.reactions.removeByUri(actor.id, objectId))) return;
    if (type === 'EmojiReact') return;
    if (type === 'Like') {
      const statusId = await this.d.interactions.unfavouriteByUri(actor.id, objectId);
      const s = statusId && (await this.d.statuses.byId(statusId));
      if (s) await this.d.notifier.withdraw(s.accountId, 'favourite', actor.id, s.id);
      return;
    }
    const boost = await this.d.statuses.byUri(objectId);
    if (boost && boost.accountId === actor.id && boost.reblogOfId && (await this.d.statuses.softDelete(boost.id))) {
      const s = await this.d.statuses.byId(boost.reblogOfId);
      if (s) await this.d.notifier.withdraw(s.accountId, 'reblog', actor.id, s.id);
    }
  }

  /** A public or unlisted post fetched by id, stored under its author (resolved; same origin as the post). */
  async fetchPublic(uri: string): Promise<Status | undefined> {
    if (this.d.uris.isLocal(uri)) return undefined;
    const { value: note, url } = await this.d.http.getJson(uri, noteSchema, { sign: this.d.signer });
    if (!sameOrigin(note.id, url) || !sameOrigin(note.id, note.attributedTo)) return undefined;
    const author = await this.d.remote.byUri(note.attributedTo);
    const visibility = visibilityOf(note, author.followersUrl);
    if (visibility !== 'public' && visibility !== 'unlisted') return undefined;
    const parent = note.inReplyTo ? await this.statusByUri(note.inReplyTo) : undefined;
    return this.store(note, author, parent);
  }

  /**
   * An Update of one of the signer's posts we hold. A poll takes the counts and end it carries. As in Mastodon, only
   * an Update saying the post was edited after the version we hold (`updated`) is an edit: its new text,
   * attachments and poll replace the old, the old kept as history (new poll options void the votes); otherwise (a
   * poll's new counts) nothing else changes.
   */
  async onUpdated(a: ActivityDoc, author: Account): Promise<void> {
    if (typeof a.object !== 'object' || a.object === null) return;
    const parsed = noteSchema.safeParse(a.object);
    if (!parsed.success) return;
    const note = parsed.data;
    if (note.attributedTo !== author.uri || !sameOrigin(note.id, author.uri!)) throw new FetchError('unsupported', 'note_not_authors', note.id);
    const s = await this.d.statuses.byUri(note.id);
    if (!s || s.accountId !== author.id || s.deletedAt) return;
    const recipients = await this.localRecipients(note);
    const remoteMentions = await this.knownRemote(note.mentions);
    // The Update of a held history post promotes it as its Create would have (when it concerns someone here), with
    // the edit in the same transaction; the members the promotion told are not told again of the edit's mentions.
    const promote =
      s.history &&
      (await this.relevant(
        author,
        recipients,
        s.inReplyToId ? await this.d.statuses.byId(s.inReplyToId) : undefined,
        s.quoteOfId ? await this.d.statuses.byId(s.quoteOfId) : undefined,
      ));
    await this.d.db.tx(async () => {
      const before = new Set(s.mentionIds);
      if (promote) {
        await this.promote(s, recipients);
        for (const r of recipients) before.add(r.id);
      }
      if (note.poll) await this.d.polls.setRemote(s.id, note.poll);
      if (!note.updated || (s.editedAt && note.updated.getTime() <= s.editedAt.getTime())) return;
      const { outcome } = await this.d.statuses.edit(s.id, {
        text: '',
        content: note.content,
        spoilerText: note.summary,
        sensitive: note.sensitive || note.summary !== '',
        language: note.language,
        mentionIds: [...new Set([...recipients.map((r) => r.id), ...remoteMentions.map((r) => r.id)])],
        tags: note.hashtags.slice(0, 20),
        editedAt: note.updated && note.updated.getTime() <= Date.now() ? note.updated : undefined,
        media: { remote: remoteMedia(note) },
        poll: remotePoll(note),
      });
      if (outcome !== 'edited') return;
      for (const r of recipients) if (!before.has(r.id)) await this.d.notifier.notify(r.id, 'mention', author.id, s.id);
      for (const id of await this.d.statuses.localBoosters(s.id)) await this.d.notifier.notify(id, 'update', author.id, s.id);
    });
  }

  /** A remote poll's Question fetched again from its server (signed): its counts and end, as from an Update. */
  async refreshPoll(s: Status): Promise<void> {
    if (!s.uri || this.d.uris.isLocal(s.uri)) return;
    const author = await this.d.accounts.byId(s.accountId);
    if (!author?.uri) return;
    const { value: note, url } = await this.d.http.getJson(s.uri, noteSchema, { sign: this.d.signer });
    if (note.id !== s.uri || !sameOrigin(note.id, url) || note.attributedTo !== author.uri) return;
    if (note.poll) await this.d.polls.setRemote(s.id, note.poll);
  }

  /** A vote in one of our members' polls (a Note named like an option); true when it was one. */
  private async voted(note: NoteDoc, voter: Account, statusId: string): Promise<boolean> {
    const poll = (await this.d.polls.ofStatuses([statusId])).get(statusId);
    if (!poll || poll.remote) return false;
    const choice = poll.options.indexOf(note.name!);
    if (choice < 0) return true; // a vote for no option: nothing to count, and not a post either
    const refused = await this.d.polls.vote(poll.id, voter.id, [choice], new Date(), [note.id]);
    if (refused) this.d.log.info({ poll: poll.id, voter: voter.uri, refused }, 'remote vote not counted');
    return true;
  }

  /** A Delete whose object is one of the signer's posts. */
  async onDeleted(objectId: string, author: Account): Promise<void> {
    const s = await this.d.statuses.byUri(objectId);
    if (s && s.accountId === author.id) await this.d.statuses.softDelete(s.id);
  }

  /** The embedded Note, or the one its id names (fetched signed, from the author's origin only). */
  private async noteOf(a: ActivityDoc): Promise<NoteDoc | null> {
    if (typeof a.object === 'object' && a.object !== null) {
      const parsed = noteSchema.safeParse(a.object);
      return parsed.success ? parsed.data : null;
    }
    if (!a.objectId || !sameOrigin(a.objectId, a.actor)) return null;
    return (await this.d.http.getJson(a.objectId, noteSchema, { sign: this.d.signer })).value;
  }

  /** Local members the note mentions or addresses. */
  private async localRecipients(n: NoteDoc): Promise<Account[]> {
    const names = new Set<string>();
    for (const uri of [...n.mentions, ...n.to, ...n.cc].slice(0, MAX_RECIPIENTS)) {
      const name = this.d.uris.usernameOf(uri);
      if (name) names.add(name.toLowerCase());
    }
    const out: Account[] = [];
    for (const name of names) {
      const a = await this.d.accounts.byHandle(name, null);
      if (a?.hasUser && !a.instanceActor) out.push(a);
    }
    return out;
  }

  /** Mentioned remote accounts we already know (no fetches for a post's mentions). */
  private async knownRemote(uris: readonly string[]): Promise<Account[]> {
    const out: Account[] = [];
    for (const uri of uris.slice(0, MAX_RECIPIENTS)) {
      if (this.d.uris.isLocal(uri)) continue;
      const a = await this.d.accounts.byUri(uri);
      if (a && !a.deletedAt) out.push(a);
    }
    return out;
  }

  private async statusByUri(uri: string) {
    const localId = this.d.uris.statusIdOf(uri);
    return localId ? this.d.statuses.byId(localId) : this.d.statuses.byUri(uri);
  }
}

/** The status a remote Note becomes, delivered or imported (its mentions are the caller's to resolve). */
export function noteStatus(
  note: NoteDoc,
  authorId: string,
  visibility: Status['visibility'],
  parent: Status | undefined,
  quoted: Status | undefined,
): Omit<NewStatus, 'mentionIds'> {
  return {
    accountId: authorId,
    uri: note.id,
    url: note.url,
    text: '',
    content: note.content,
    spoilerText: note.summary,
    visibility,
    sensitive: note.sensitive || note.summary !== '',
    language: note.language,
    inReplyToId: parent?.id ?? null,
    inReplyToAccountId: parent?.accountId ?? null,
    inReplyToUri: note.inReplyTo,
    reblogOfId: null,
    quoteOfId: quoted?.id ?? null,
    quoteUri: note.quote,
    local: false,
    // A date in the future is not believed (Mastodon does not backdate those either).
    createdAt: note.published && note.published.getTime() <= Date.now() ? note.published : undefined,
    tags: note.hashtags.slice(0, 20),
  };
}

/** A remote actor's boost (an Announce) of a status held here. */
export function boostStatus(accountId: string, uri: string, reblogOfId: string, visibility: 'public' | 'unlisted' | 'private'): NewStatus {
  return newBoost({ accountId, uri, reblogOfId, visibility, local: false });
}

/** A stored remote post's attachments (as remote media rows) and its poll. */
export async function storeNoteParts(d: { media: MediaStore; polls: PollStore }, note: NoteDoc, authorId: string, statusId: string): Promise<void> {
  for (const [i, m] of remoteMedia(note).entries()) {
    await d.media.create({ ...m, accountId: authorId, fileName: null, fileSize: null, focusX: 0, focusY: 0, remoteUrl: m.url }, statusId, i);
  }
  const poll = remotePoll(note);
  if (poll) {
    const { remote, ...spec } = poll;
    await d.polls.create({ statusId, accountId: authorId, ...spec, remoteCounts: [...remote.counts], remoteVoters: remote.voters });
  }
}

/** A remote post's attachments as we keep them (the files are fetched when someone views them). */
function remoteMedia(note: NoteDoc): RemoteMedia[] {
  return note.attachments.map((m) => ({
    url: m.url,
    type: mediaTypeOf(m.mediaType),
    contentType: m.mediaType ?? 'application/octet-stream',
    description: m.description,
    width: m.width,
    height: m.height,
  }));
}

/** A remote post's poll with the counts its server publishes. */
function remotePoll(note: NoteDoc): (PollSpec & { remote: NonNullable<PollSpec['remote']> }) | null {
  const p = note.poll;
  return p && { options: p.options, multiple: p.multiple, hideTotals: false, expiresAt: p.endTime, remote: { counts: p.counts, voters: p.voters } };
}

function mediaTypeOf(mediaType: string | null): MediaType {
  const top = mediaType?.split('/', 1)[0];
  return top === 'image' ? 'image' : top === 'video' ? 'video' : top === 'audio' ? 'audio' : 'unknown';
}
