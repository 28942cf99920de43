// What a verified incoming activity does, one handler per event. The signer (the key owner, already checked to be
// the activity's actor) is trusted; everything the activity names is checked against our own records.
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { BlockStore } from '../store/blocks.js';
import type { FollowStore } from '../store/follows.js';
import type { AccountDomainBlockStore } from '../store/account-domain-blocks.js';
import type { InboxJob } from '../store/inbox-jobs.js';
import type { Notifier } from '../store/notifications.js';
import type { ReportStore } from '../store/reports.js';
import type { StatusStore } from '../store/statuses.js';
import { answerFollowActivity } from './activities.js';
import { activitySchema, actorSchema, asArray, idOf, type ActivityDoc } from './as2.js';
import type { CommunityInbox } from './community-inbox.js';
import { FetchError } from './fetch-errors.js';
import type { LocalActors } from './local-actors.js';
import type { NoteHandlers } from './note-handlers.js';
import { NOTE_TYPES } from './note-schema.js';
import type { Publisher } from './publisher.js';
import type { RemoteActors } from './remote-actors.js';

export interface InboxHandlerDeps {
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly blocks: BlockStore;
  readonly remote: RemoteActors;
  readonly actors: LocalActors;
  readonly publisher: Publisher;
  readonly notes: NoteHandlers;
  readonly notifier: Notifier;
  readonly reports: ReportStore;
  readonly statuses: StatusStore;
  /** The operator's federation policy: true when reports from that host (`host:port`) are rejected (reject_reports). */
  readonly rejectsReportsFrom: (host: string) => Promise<boolean>;
  /** Members' own domain blocks: a Follow from a domain the member blocks is rejected, as Mastodon's is. */
  readonly domainBlocks?: Pick<AccountDomainBlockStore, 'blocks'>;
  /** What a community (a Group) announces: posts, comments, votes (community-inbox.ts). */
  readonly communities?: Pick<CommunityInbox, 'onAnnounced'>;
}

export class InboxHandlers {
  constructor(private readonly d: InboxHandlerDeps) {}

  async process(job: InboxJob): Promise<void> {
    const parsed = activitySchema.safeParse(job.body);
    if (!parsed.success || !job.signerId) return;
    const signer = await this.d.accounts.byId(job.signerId);
    if (!signer || signer.deletedAt) return;
    try {
      await this.dispatch(parsed.data, signer, job.body, job.raw);
    } catch (e) {
      // A refusal (a forged or invalid document) will not change on retry; network trouble may.
      if (e instanceof FetchError && e.kind !== 'transient' && e.kind !== 'rate_limited') {
        this.d.log.info({ activity: job.activityId, reason: e.reason, err: e.message }, 'inbox activity refused');
        return;
      }
      throw e;
    }
  }

  private async dispatch(a: ActivityDoc, signer: Account, raw: unknown, text: string | null): Promise<void> {
    switch (a.type) {
      case 'Follow':
        return this.onFollowed(a, signer);
      case 'Undo':
        return this.onUndone(a, signer);
      case 'Accept':
        return this.onFollowAnswered(a, signer, true);
      case 'Reject':
        return this.onFollowAnswered(a, signer, false);
      case 'Update':
        return this.onUpdated(a, signer, text);
      case 'Delete':
        return this.onDeleted(a, signer);
      case 'Block':
        return this.onBlocked(a, signer);
      case 'Create':
        return this.d.notes.onCreated(a, signer);
      case 'Like':
      case 'EmojiReact':
        return this.d.notes.onLiked(a, signer, raw);
      case 'Announce':
        if (signer.actorType === 'Group' && this.d.communities && (await this.d.communities.onAnnounced(a, signer))) return;
        return this.d.notes.onAnnounced(a, signer);
      case 'Flag':
        return this.onFlagged(a, signer, raw);
      default:
        // Accepted and ignored: posts, likes and the rest arrive with later features.
        return;
    }
  }

  /** A member of ours, named by actor URI; never the instance actor. */
  private async localMember(uri: string | null): Promise<Account | undefined> {
    if (!uri) return undefined;
    const name = this.d.actors.uris.usernameOf(uri);
    if (!name) return undefined;
    const a = await this.d.accounts.byHandle(name, null);
    return a?.hasUser && !a.instanceActor ? a : undefined;
  }

  private async onFollowed(a: ActivityDoc, follower: Account): Promise<void> {
    const target = await this.localMember(a.objectId);
    if (!target) return;
    if ((await this.d.blocks.isBlocked(follower.id, target.id)) || (await this.d.domainBlocks?.blocks(target.id, follower.domain))) {
      await this.answer('Reject', target, follower, a.id, `r${Date.now()}`);
      return;
    }
    const existing = await this.d.follows.find('follows', follower.id, target.id);
    if (existing) {
      // A repeated Follow (the other side lost our Accept): confirm it again.
      await this.answer('Accept', target, follower, a.id, existing.id);
      return;
    }
    if (target.locked) {
      await this.d.follows.request(follower.id, target.id, a.id);
      await this.d.notifier.notify(target.id, 'follow_request', follower.id);
      return;
    }
    const row = await this.d.follows.follow(follower.id, target.id, a.id);
    await this.d.notifier.notify(target.id, 'follow', follower.id);
    await this.answer('Accept', target, follower, a.id, row.id);
  }

  private async onUndone(a: ActivityDoc, actor: Account): Promise<void> {
    const inner = typeof a.object === 'object' && a.object ? activitySchema.safeParse(a.object) : undefined;
    const type = a.objectType ?? (inner?.success ? inner.data.type : null);
    if (type === 'Follow' || type === null) {
      // By embedded object, or by the Follow's id when only the id is sent.
      const target = inner?.success ? await this.localMember(inner.data.objectId) : undefined;
      if (target) {
        await this.d.follows.remove('follows', actor.id, target.id);
        await this.d.follows.remove('follow_requests', actor.id, target.id);
        await this.d.notifier.withdraw(target.id, 'follow', actor.id);
        await this.d.notifier.withdraw(target.id, 'follow_request', actor.id);
        return;
      }
      if (a.objectId) {
        for (const table of ['follows', 'follow_requests'] as const) {
          const row = await this.d.follows.findByUri(table, a.objectId);
          if (row && row.accountId === actor.id) await this.d.follows.remove(table, row.accountId, row.targetAccountId);
        }
      }
      return;
    }
    if ((type === 'Like' || type === 'Announce' || type === 'EmojiReact') && (inner?.success ? inner.data.id : a.objectId)) {
      return this.d.notes.onUndone(type, inner?.success ? inner.data.id : a.objectId!, actor);
    }
    if (type === 'Block' && inner?.success) {
      const target = await this.localMember(inner.data.objectId);
      if (target) await this.d.blocks.unblock(actor.id, target.id);
    }
  }

  /** Accept or Reject of a Follow one of our members sent to `actor`. */
  private async onFollowAnswered(a: ActivityDoc, actor: Account, accepted: boolean): Promise<void> {
    let follower: Account | undefined;
    const inner = typeof a.object === 'object' && a.object ? activitySchema.safeParse(a.object) : undefined;
    if (inner?.success && inner.data.type === 'Follow' && inner.data.objectId === actor.uri) follower = await this.localMember(inner.data.actor);
    if (!follower && a.objectId) {
      const row = (await this.d.follows.findByUri('follow_requests', a.objectId)) ?? (await this.d.follows.findByUri('follows', a.objectId));
      if (row && row.targetAccountId === actor.id) follower = await this.d.accounts.byId(row.accountId);
    }
    if (!follower) return;
    if (accepted) {
      const request = await this.d.follows.find('follow_requests', follower.id, actor.id);
      if (request) await this.d.follows.follow(follower.id, actor.id, request.uri);
      return;
    }
    // A Reject ends a pending request, and also an established follow (the remote side removed us as a follower).
    await this.d.follows.remove('follow_requests', follower.id, actor.id);
    await this.d.follows.remove('follows', follower.id, actor.id);
  }

  private async onUpdated(a: ActivityDoc, actor: Account, text: string | null): Promise<void> {
    if (a.objectId !== actor.uri) {
      if (a.objectType && NOTE_TYPES.some((t) => t === a.objectType)) await this.d.notes.onUpdated(a, actor);
      return;
    }
    const doc = typeof a.object === 'object' && a.object ? actorSchema.safeParse(a.object) : undefined;
    if (doc?.success) await this.d.remote.storeReceived(doc.data, actor, text === null ? undefined : { text, path: ['object', 'attachment'] });
    else await this.d.remote.byUri(actor.uri!, { refresh: true });
  }

  private async onDeleted(a: ActivityDoc, actor: Account): Promise<void> {
    if (a.objectId !== actor.uri) {
      if (a.objectId) await this.d.notes.onDeleted(a.objectId, actor);
      return;
    }
    await this.d.accounts.markDeleted(actor.id);
    await this.d.statuses.softDeleteAllOf(actor.id);
    this.d.log.info({ actor: actor.uri }, 'remote actor deleted');
  }

  /** A report from another server about one of our members (and some of their statuses), for our moderators. */
  private async onFlagged(a: ActivityDoc, reporter: Account, raw: unknown): Promise<void> {
    if (reporter.domain !== null && (await this.d.rejectsReportsFrom(reporter.domain))) {
      this.d.log.info({ activity: a.id, domain: reporter.domain }, 'report from a domain whose reports are rejected');
      return;
    }
    const objects = asArray((raw as { object?: unknown }).object)
      .slice(0, 100)
      .map(idOf)
      .filter((x): x is string => typeof x === 'string');
    let target: Account | undefined;
    for (const uri of objects) if (!target) target = await this.localMember(uri);
    if (!target) return;
    const statusIds = objects.map((uri) => this.d.actors.uris.statusIdOf(uri)).filter((x): x is string => !!x);
    const own = (await this.d.statuses.byIds(statusIds)).filter((s) => s.accountId === target.id).map((s) => s.id);
    const content = (raw as { content?: unknown }).content;
    const report = await this.d.reports.create({
      accountId: reporter.id,
      targetAccountId: target.id,
      statusIds: own,
      comment: typeof content === 'string' ? content.slice(0, 5000) : '',
      category: 'other',
      forwarded: false,
      uri: a.id,
    });
    // A repeated Flag (same id) files nothing and notifies no one again.
    if (report) await this.d.notifier.reportFiled(report);
  }

  private async onBlocked(a: ActivityDoc, actor: Account): Promise<void> {
    const target = await this.localMember(a.objectId);
    if (target) await this.d.blocks.block(actor.id, target.id, a.id);
  }

  private async answer(kind: 'Accept' | 'Reject', me: Account, follower: Account, followUri: string, rowId: string): Promise<void> {
    await this.d.publisher.sendTo(answerFollowActivity(kind, this.d.actors.uris, me, follower, followUri, rowId), me, follower);
  }
}
