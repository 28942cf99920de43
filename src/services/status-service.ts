// What happens when a member posts, edits or deletes: mentions resolved (remote handles over WebFinger), text rendered to
// safe HTML, then in ONE transaction the status stored (with its idempotency record), its media, poll, mentions and
// notifications, and the Create, Update or Delete queued for the status's audience (a transactional outbox): a crash
// at any instant leaves either the whole post, delivered by whichever node runs next, or nothing acknowledged.
import type { Config } from '../../config/schema.js';
import { Errors } from '../errors.js';
import type { Transactor } from '../store/db.js';
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { mixesVideo, type MediaAttributes, type MediaStore } from '../store/media.js';
import type { PollStore } from '../store/polls.js';
import type { Notifier } from '../store/notifications.js';
import type { QuotePolicy, Status, StatusStore, Visibility } from '../store/statuses.js';
import { extractHashtags, extractMentions, statusHtml, type ResolvedMention } from '../text/status-text.js';
import { FetchError } from '../federation/fetch-errors.js';
import type { LocalUris } from '../urls/local-uris.js';
import type { LocalNotes } from '../federation/local-notes.js';
import { createNoteActivity, deleteNoteActivity, updateNoteActivity } from '../federation/note-document.js';
import type { Publisher } from '../federation/publisher.js';
import type { RemoteActors } from '../federation/remote-actors.js';

/** Remote handles resolved over the network for one post, at most (the rest stay plain text). */
const MAX_REMOTE_LOOKUPS = 10;
const MAX_MENTIONS = 50;

export interface NewPost {
  readonly text: string;
  readonly visibility: Visibility;
  readonly spoilerText: string;
  readonly sensitive: boolean;
  readonly language: string | null;
  readonly inReplyTo: Status | null;
  readonly idempotencyKey?: string;
  /** The member's unattached uploads, in order. */
  readonly mediaIds?: readonly string[];
  /** The status this one quotes. */
  readonly quote?: Status | null;
  readonly poll?: { readonly options: readonly string[]; readonly expiresInSeconds: number; readonly multiple: boolean; readonly hideTotals: boolean };
  /** The OAuth app the member posts through. */
  readonly applicationId?: string;
  /** Who may quote it (Mastodon 4.5's quote_approval_policy); default public. */
  readonly quotePolicy?: QuotePolicy;
}

/** An edit: the whole post as it is to be (Mastodon's PUT /api/v1/statuses/:id). */
export interface PostEdit extends Pick<NewPost, 'text' | 'spoilerText' | 'sensitive' | 'language'> {
  /** The attachments, in order: ones the post has (or had) and the member's free uploads. */
  readonly mediaIds: readonly string[];
  readonly mediaAttributes: readonly MediaAttributes[];
  /** null: no poll. */
  readonly poll: NewPost['poll'] | null;
}

const MEDIA_REFUSED = 'media_ids must name your own uploads not attached to another status';
/** Mastodon's words (media_attachments.validations.images_and_video). */
// Mastodon's words (media_attachments.validations.not_ready) for an upload still being processed.
const MEDIA_NOT_READY = 'Cannot attach files that have not finished processing. Try again in a moment!';
const MEDIA_FAILED = 'Cannot attach files that could not be processed';
const MEDIA_MIXED = 'Cannot attach a video to a post that already contains images';

export interface StatusServiceDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly db: Transactor;
  readonly statuses: StatusStore;
  readonly accounts: AccountStore;
  readonly remote: RemoteActors;
  readonly publisher: Publisher;
  readonly uris: LocalUris;
  readonly notifier: Notifier;
  readonly media: MediaStore;
  readonly polls: PollStore;
  readonly notes: LocalNotes;
}

export class StatusService {
  private readonly hostingDomain: string;

  constructor(private readonly d: StatusServiceDeps) {
    this.hostingDomain = new URL(d.config.baseUrl).host.toLowerCase();
  }

  async post(me: Account, p: NewPost): Promise<Status> {
    const mediaIds = [...new Set(p.mediaIds ?? [])];
    const mentioned = await this.resolveMentions(p.text);
    const links = new Map<string, ResolvedMention>();
    for (const [acct, a] of mentioned) links.set(acct, { url: a.domain ? (a.url ?? a.uri!) : this.d.uris.profile(a.username), username: a.username });
    const accounts = [...new Map([...mentioned.values()].map((a) => [a.id, a])).values()];
    const quoteUri = p.quote ? await this.uriOf(p.quote) : null;
    return this.d.db.tx(async () => {
      const { status, created } = await this.d.statuses.create(
        {
          accountId: me.id,
          uri: null,
          url: null,
          text: p.text,
          content: statusHtml(p.text, links, (t) => this.d.uris.tag(t)),
          spoilerText: p.spoilerText,
          visibility: p.visibility,
          sensitive: p.sensitive || p.spoilerText !== '',
          language: p.language,
          inReplyToId: p.inReplyTo?.id ?? null,
          inReplyToAccountId: p.inReplyTo?.accountId ?? null,
          inReplyToUri: null,
          reblogOfId: null,
          local: true,
          quoteOfId: p.quote?.id ?? null,
          quoteUri,
          mentionIds: accounts.filter((a) => a.id !== me.id).map((a) => a.id),
          tags: extractHashtags(p.text),
          applicationId: p.applicationId ?? null,
          quotePolicy: p.quotePolicy,
        },
        p.idempotencyKey,
      );
      if (created) {
        // The uploads are checked here, after the idempotency record: a retry of a post that was stored (its answer
        // lost) finds its uploads attached, and must get that post back, not a refusal. A throw rolls it all back.
        if (mediaIds.length) {
          const types = await this.d.media.usable(me.id, mediaIds);
          if (!types) throw Errors.validation(MEDIA_REFUSED);
          if (mixesVideo(types)) throw Errors.validation(MEDIA_MIXED);
          const unready = await this.d.media.unready(mediaIds);
          if (unready) throw Errors.unprocessable(unready === 'failed' ? MEDIA_FAILED : MEDIA_NOT_READY);
          if (!(await this.d.media.attach(me.id, status.id, mediaIds))) throw Errors.validation(MEDIA_REFUSED);
        }
        if (p.poll) {
          await this.d.polls.create({
            statusId: status.id,
            accountId: me.id,
            options: p.poll.options,
            multiple: p.poll.multiple,
            hideTotals: p.poll.hideTotals,
            expiresAt: new Date(status.createdAt.getTime() + p.poll.expiresInSeconds * 1000),
          });
        }
        for (const id of status.mentionIds) await this.d.notifier.notify(id, 'mention', me.id, status.id);
        if (p.quote && (await this.d.statuses.canSee(status, p.quote.accountId))) await this.d.notifier.notify(p.quote.accountId, 'quote', me.id, status.id);
        await this.d.notifier.newPost(status);
        await this.federate(status, me, 'create');
      }
      // A retry whose first status has since been deleted: that status is gone, as for any other read.
      else if (status.deletedAt) throw Errors.notFound();
      return status;
    });
  }

  /**
   * Edits a member's status as Mastodon does: the request is the whole new post (text, content warning, sensitivity,
   * language, the ordered attachments with any new descriptions, the poll); visibility and thread stay. An edit
   * that changes nothing is answered with the status as it is and sent nowhere.
   */
  async edit(me: Account, s: Status, p: PostEdit): Promise<Status> {
    const mentioned = await this.resolveMentions(p.text);
    const links = new Map<string, ResolvedMention>();
    for (const [acct, a] of mentioned) links.set(acct, { url: a.domain ? (a.url ?? a.uri!) : this.d.uris.profile(a.username), username: a.username });
    const before = new Set(s.mentionIds);
    return this.d.db.tx(async () => {
      const { outcome, status: edited } = await this.d.statuses.edit(s.id, {
        text: p.text,
        content: statusHtml(p.text, links, (t) => this.d.uris.tag(t)),
        spoilerText: p.spoilerText,
        sensitive: p.sensitive || p.spoilerText !== '',
        language: p.language,
        mentionIds: [...new Set([...mentioned.values()].map((a) => a.id))].filter((id) => id !== me.id),
        tags: extractHashtags(p.text),
        media: { ids: [...new Set(p.mediaIds)], attributes: p.mediaAttributes },
        poll: p.poll && {
          options: p.poll.options,
          multiple: p.poll.multiple,
          hideTotals: p.poll.hideTotals,
          expiresAt: new Date(Date.now() + p.poll.expiresInSeconds * 1000),
        },
      });
      if (outcome === 'media_refused') throw Errors.validation(MEDIA_REFUSED);
      if (outcome === 'media_mixed') throw Errors.validation(MEDIA_MIXED);
      if (outcome === 'media_unready') throw Errors.unprocessable(MEDIA_NOT_READY);
      if (!edited) throw Errors.notFound();
      if (outcome === 'unchanged') return edited;
      if (p.poll) this.d.polls.onDue(); // the poll closer learns the new end
      for (const id of edited.mentionIds) if (!before.has(id)) await this.d.notifier.notify(id, 'mention', me.id, edited.id);
      for (const id of await this.d.statuses.localBoosters(edited.id)) await this.d.notifier.notify(id, 'update', me.id, edited.id);
      await this.federate(edited, me, 'update');
      return edited;
    });
  }

  async remove(me: Account, s: Status): Promise<void> {
    await this.d.db.tx(async () => {
      if (await this.d.statuses.softDelete(s.id)) await this.federate(s, me, 'delete');
    });
  }

  private async uriOf(s: Status): Promise<string | null> {
    if (s.uri) return s.uri;
    const author = await this.d.accounts.byId(s.accountId);
    return author ? this.d.uris.status(author.username, s.id) : null;
  }

  /**
   * An Update of a local poll's Question (its counts now, `closed` once ended) to the audience its Create had, and to
   * the remote accounts that voted (their servers hold a copy and tell their voters when it ends).
   */
  async federatePoll(s: Status, author: Account, voters: readonly Account[]): Promise<void> {
    await this.federate(s, author, 'update', voters);
  }

  private async federate(s: Status, author: Account, kind: 'create' | 'update' | 'delete', extra: readonly Account[] = []): Promise<void> {
    const { note, mentions, parentAuthor, community } = await this.d.notes.note(s, author);
    const activity =
      kind === 'create'
        ? createNoteActivity(note, this.d.uris, author)
        : kind === 'update'
          ? updateNoteActivity(note, this.d.uris, author)
          : deleteNoteActivity(note, this.d.uris, author);
    // The author of a remote post we reply to hears of the reply (unless the reply is direct and does not mention them).
    const audience = parentAuthor?.domain && s.visibility !== 'direct' ? [...mentions, parentAuthor] : [...mentions];
    // A community post or comment edited or deleted through the Mastodon API: its community hears of it too.
    if (community) audience.push(community);
    // The author of a remote post we quote hears of a public or unlisted quote, as Mastodon delivers it.
    const quoted = await this.quotedAuthor(s);
    const open = s.visibility === 'public' || s.visibility === 'unlisted';
    if (quoted?.domain && open) audience.push(quoted);
    // Servers that hold a copy because one of theirs boosted, favourited, reacted, replied or voted hear of its edits
    // (of a public or unlisted post: its text goes with them) and of its deletion (which carries nothing of it).
    if (kind === 'delete' || (kind === 'update' && open)) audience.push(...(await this.d.accounts.byIds(await this.d.statuses.remoteReach(s.id))));
    await this.d.publisher.sendToAudience(activity, author, s.visibility !== 'direct', [...audience, ...extra]);
  }

  private async quotedAuthor(s: Status): Promise<Account | undefined> {
    const quoted = s.quoteOfId ? await this.d.statuses.byId(s.quoteOfId) : undefined;
    return quoted && this.d.accounts.byId(quoted.accountId);
  }

  /** The accounts a text mentions, keyed by the handle as written (lower-cased); unknown handles are left out. */
  private async resolveMentions(text: string): Promise<Map<string, Account>> {
    const out = new Map<string, Account>();
    let lookups = 0;
    for (const m of extractMentions(text).slice(0, MAX_MENTIONS)) {
      const local = m.domain === null || m.domain === this.d.config.localDomain || m.domain === this.hostingDomain;
      let a = await this.d.accounts.byHandle(m.username, local ? null : m.domain);
      if (local && a && (!a.hasUser || a.instanceActor)) a = undefined;
      if (!a && !local && lookups < MAX_REMOTE_LOOKUPS) {
        lookups++;
        try {
          a = await this.d.remote.byHandle(m.username, m.domain!);
        } catch (e) {
          if (!(e instanceof FetchError)) throw e;
          this.d.log.info({ acct: m.acct, reason: e.reason }, 'mention not resolved');
        }
      }
      if (a && !a.deletedAt) out.set(m.acct.toLowerCase(), a);
    }
    return out;
  }
}
