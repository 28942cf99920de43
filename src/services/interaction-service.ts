// A member's interactions with statuses and what they send: a favourite is a Like to the author's server, a boost
// an Announce to our followers and the author; undoing either sends an Undo with the original embedded. Bookmarks
// and pins stay here. Each action and the activity it sends commit together (db.tx): a crash cannot keep one without
// the other.
import { randomBytes } from 'node:crypto';
import { Errors } from '../errors.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Transactor } from '../store/db.js';
import type { InteractionStore } from '../store/interactions.js';
import type { Notifier } from '../store/notifications.js';
import { newBoost, type Status, type StatusStore, type Visibility } from '../store/statuses.js';
import { actorUri } from '../federation/activities.js';
import type { LocalNotes } from '../federation/local-notes.js';
import type { LocalUris } from '../urls/local-uris.js';
import { announceActivity, emojiReactActivity, likeActivity, undoActivity } from '../federation/note-document.js';
import type { ReactionEmoji, ReactionStore } from '../store/reactions.js';
import type { Publisher } from '../federation/publisher.js';

export interface InteractionServiceDeps {
  readonly db: Transactor;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly interactions: InteractionStore;
  readonly publisher: Publisher;
  readonly uris: LocalUris;
  readonly notifier: Notifier;
  readonly reactions: ReactionStore;
  /** A local status as its Note (embedded in the Announce of a private self-boost). */
  readonly notes: LocalNotes;
}

export class InteractionService {
  constructor(private readonly d: InteractionServiceDeps) {}

  async favourite(me: Account, s: Status): Promise<void> {
    return this.d.db.tx(async () => {
      const author = await this.author(s);
      const like = likeActivity(
        `${this.d.uris.actor(me.username)}#likes/${s.id}-${randomBytes(4).toString('hex')}`,
        this.d.uris.actor(me.username),
        this.uriOf(s, author),
      );
      if (await this.d.interactions.favourite(me.id, s.id, like.id)) {
        await this.d.notifier.notify(author.id, 'favourite', me.id, s.id);
        if (author.domain) await this.d.publisher.sendTo(like, me, author);
      }
    });
  }

  async unfavourite(me: Account, s: Status): Promise<void> {
    return this.d.db.tx(async () => {
      const removed = await this.d.interactions.unfavourite(me.id, s.id);
      const author = await this.author(s);
      if (removed) await this.d.notifier.withdraw(author.id, 'favourite', me.id, s.id);
      if (removed?.uri && author.domain) {
        await this.d.publisher.sendTo(undoActivity(likeActivity(removed.uri, this.d.uris.actor(me.username), this.uriOf(s, author))), me, author);
      }
    });
  }

  /** Reacts with an emoji; false when the member already has too many different reactions on the status. */
  async react(me: Account, s: Status, emoji: ReactionEmoji): Promise<boolean> {
    return this.d.db.tx(async () => {
      const author = await this.author(s);
      const actor = this.d.uris.actor(me.username);
      const activity = emojiReactActivity(`${actor}#reactions/${s.id}-${randomBytes(4).toString('hex')}`, actor, this.uriOf(s, author), emoji);
      if (!(await this.d.reactions.add(me.id, s.id, emoji, activity.id))) return false;
      if (author.domain) await this.d.publisher.sendTo(activity, me, author);
      return true;
    });
  }

  async unreact(me: Account, s: Status, name: string): Promise<void> {
    return this.d.db.tx(async () => {
      const removed = await this.d.reactions.remove(me.id, s.id, name);
      const author = await this.author(s);
      if (removed?.uri && author.domain) {
        await this.d.publisher.sendTo(
          undoActivity(emojiReactActivity(removed.uri, this.d.uris.actor(me.username), this.uriOf(s, author), removed.emoji)),
          me,
          author,
        );
      }
    });
  }

  /**
   * Boosts a public or unlisted status, or one's own followers-only one (to the same followers, as Mastodon's
   * StatusPolicy#reblog? allows); returns the boost (an existing one when boosted already).
   */
  async reblog(me: Account, s: Status, asked: Visibility): Promise<Status> {
    return this.d.db.tx(async () => {
      const ownPrivate = s.visibility === 'private' && s.accountId === me.id;
      if (s.visibility !== 'public' && s.visibility !== 'unlisted' && !ownPrivate) throw Errors.forbidden('This status cannot be boosted');
      if (asked === 'direct') throw Errors.validation('A boost cannot be direct');
      const visibility = ownPrivate ? 'private' : asked;
      const existing = await this.d.statuses.reblogBy(me.id, s.id);
      if (existing) return existing;
      const { status: boost, created } = await this.d.statuses.create(newBoost({ accountId: me.id, uri: null, reblogOfId: s.id, visibility, local: true }));
      if (created) {
        await this.d.notifier.notify(s.accountId, 'reblog', me.id, s.id);
        await this.announce(me, boost, s, false);
      }
      return boost;
    });
  }

  async unreblog(me: Account, s: Status): Promise<void> {
    return this.d.db.tx(async () => {
      const boost = await this.d.statuses.reblogBy(me.id, s.id);
      if (boost && (await this.d.statuses.softDelete(boost.id))) {
        await this.d.notifier.withdraw(s.accountId, 'reblog', me.id, s.id);
        await this.announce(me, boost, s, true);
      }
    });
  }

  private async announce(me: Account, boost: Status, s: Status, undo: boolean): Promise<void> {
    const author = await this.author(s);
    // A followers-only post cannot be fetched by whoever gets the Announce: it travels inside it, as Mastodon sends it.
    const object = s.visibility === 'private' ? (await this.d.notes.note(s, author)).note : this.uriOf(s, author);
    const announce = announceActivity(this.d.uris, me, boost, object, actorUri(author, this.d.uris));
    await this.d.publisher.sendToAudience(undo ? undoActivity(announce) : announce, me, true, author.domain ? [author] : []);
  }

  private async author(s: Status): Promise<Account> {
    const a = await this.d.accounts.byId(s.accountId);
    if (!a) throw Errors.notFound();
    return a;
  }

  private uriOf(s: Status, author: Account): string {
    return s.uri ?? this.d.uris.status(author.username, s.id);
  }
}
