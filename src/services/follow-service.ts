// Relationship changes our members make (the client API calls these): follow, unfollow, answering follow requests,
// and announcing profile changes. Local targets change at once; remote ones also get the matching activity.
import { Errors } from '../errors.js';
import type { Account } from '../store/accounts.js';
import type { BlockStore } from '../store/blocks.js';
import type { AccountDomainBlockStore } from '../store/account-domain-blocks.js';
import type { FollowOptions, FollowStore } from '../store/follows.js';
import type { Notifier } from '../store/notifications.js';
import { randomBytes } from 'node:crypto';
import { answerFollowActivity, blockActivity, followActivity, undoBlockActivity, undoFollowActivity, updateActorActivity } from '../federation/activities.js';
import type { LocalActors } from '../federation/local-actors.js';
import type { Publisher } from '../federation/publisher.js';

export class FollowService {
  constructor(
    private readonly follows: FollowStore,
    private readonly blocks: BlockStore,
    private readonly actors: LocalActors,
    private readonly publisher: Publisher,
    private readonly notifier: Notifier,
    private readonly domainBlocks?: Pick<AccountDomainBlockStore, 'blocks'>,
  ) {}

  /** Follows (or asks to); following again changes the options (boosts in home, post notifications, languages). */
  async follow(me: Account, target: Account, options: FollowOptions = {}): Promise<void> {
    if (me.id === target.id) throw Errors.forbidden('You cannot follow yourself');
    if (target.instanceActor || target.deletedAt || (target.domain === null && !target.hasUser)) throw Errors.notFound();
    if (await this.blocks.isBlocked(me.id, target.id)) throw Errors.forbidden('You are blocked by this account');
    if (await this.blocks.isBlocked(target.id, me.id)) throw Errors.forbidden('You are blocking this account');
    // Mastodon's following_not_allowed?: no follows of an account on a domain the member blocks.
    if (await this.domainBlocks?.blocks(me.id, target.domain)) throw Errors.forbidden('This action is not allowed');
    if (await this.follows.find('follows', me.id, target.id)) return this.follows.setOptions(me.id, target.id, options);
    if (target.domain === null) {
      if (target.locked) {
        await this.follows.request(me.id, target.id, null, options);
        await this.notifier.notify(target.id, 'follow_request', me.id);
      } else {
        await this.follows.follow(me.id, target.id, null, options);
        await this.notifier.notify(target.id, 'follow', me.id);
      }
      return;
    }
    // Remote: pending until their Accept arrives. Asking again re-sends the same Follow (same id), which a server
    // that lost it treats as new and one that has it ignores.
    const pending = await this.follows.find('follow_requests', me.id, target.id);
    if (pending) await this.follows.setOptions(me.id, target.id, options);
    const request = pending ?? (await this.follows.request(me.id, target.id, null, options));
    const activity = followActivity(this.actors.uris, me, target, request.id);
    if (request.uri !== activity.id) await this.follows.setRequestUri(request.id, activity.id);
    await this.publisher.sendTo(activity, me, target);
  }

  async unfollow(me: Account, target: Account): Promise<void> {
    const removed = (await this.follows.remove('follows', me.id, target.id)) ?? (await this.follows.remove('follow_requests', me.id, target.id));
    await this.notifier.withdraw(target.id, 'follow', me.id);
    await this.notifier.withdraw(target.id, 'follow_request', me.id);
    if (removed && target.domain !== null) {
      await this.publisher.sendTo(undoFollowActivity(this.actors.uris, me, target, removed.id, removed.uri), me, target);
    }
  }

  /** Approves a follow request made to `me`; false when there was none. */
  async authorize(me: Account, requester: Account): Promise<boolean> {
    const request = await this.follows.find('follow_requests', requester.id, me.id);
    if (!request) return false;
    const row = await this.follows.follow(requester.id, me.id, request.uri);
    if (requester.domain !== null) {
      await this.publisher.sendTo(answerFollowActivity('Accept', this.actors.uris, me, requester, request.uri, row.id), me, requester);
    }
    return true;
  }

  async reject(me: Account, requester: Account): Promise<boolean> {
    const request = await this.follows.remove('follow_requests', requester.id, me.id);
    if (!request) return false;
    if (requester.domain !== null) {
      await this.publisher.sendTo(answerFollowActivity('Reject', this.actors.uris, me, requester, request.uri, request.id), me, requester);
    }
    return true;
  }

  /**
   * Removes `follower` from `me`'s followers (Mastodon's RemoveFromFollowersService); a remote follower's server is
   * sent a Reject of its Follow, so that it stops showing `me` as followed. False when it was not following.
   */
  async removeFollower(me: Account, follower: Account): Promise<boolean> {
    const removed = await this.follows.remove('follows', follower.id, me.id);
    if (!removed) return false;
    if (follower.domain !== null) {
      await this.publisher.sendTo(answerFollowActivity('Reject', this.actors.uris, me, follower, removed.uri, removed.id), me, follower);
    }
    return true;
  }

  /** Blocks an account: follows both ways end, and a remote account's server is told (it hides us from them). */
  async block(me: Account, target: Account): Promise<void> {
    if (me.id === target.id) throw Errors.forbidden('You cannot block yourself');
    if (target.instanceActor) throw Errors.notFound();
    const activity = target.domain !== null ? blockActivity(this.actors.uris, me, target, randomBytes(8).toString('hex')) : null;
    await this.blocks.block(me.id, target.id, activity?.id ?? null);
    await this.notifier.withdraw(me.id, 'follow', target.id);
    if (activity) await this.publisher.sendTo(activity, me, target);
  }

  async unblock(me: Account, target: Account): Promise<void> {
    const uri = await this.blocks.blockUri(me.id, target.id);
    if ((await this.blocks.unblock(me.id, target.id)) && target.domain !== null && uri) {
      await this.publisher.sendTo(undoBlockActivity(this.actors.uris, me, target, uri), me, target);
    }
  }

  /** Sends the member's current actor document to every connected server (profile edits, identity statements). */
  async announceProfile(me: Account): Promise<void> {
    const doc = await this.actors.document(me);
    await this.publisher.sendToConnected(updateActorActivity(this.actors.uris, me, doc), me);
  }
}
