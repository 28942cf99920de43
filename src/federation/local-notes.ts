// A local status as the Note (or Question) other servers read: its mentions, the post it answers, its media and
// its poll, loaded and handed to the document builder. Posting, the outbox, Note dereferencing and private boosts
// all render a Note through here. A member's post in a link-aggregator community is its Page, and a comment there its
// community Note (community-documents.ts), wherever it is rendered.
import type { Config } from '../../config/schema.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Media, MediaStore } from '../store/media.js';
import type { Poll, PollStore } from '../store/polls.js';
import type { LinkAggregatorStore } from '../store/link-aggregator.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { LocalUris } from '../urls/local-uris.js';
import { actorUri } from './activities.js';
import { commentDocument, pageDocument } from './community-documents.js';
import { noteDocument } from './note-document.js';

export interface LocalNoteDeps {
  readonly config: Config;
  readonly statuses: StatusStore;
  readonly accounts: AccountStore;
  readonly media: MediaStore;
  readonly polls: PollStore;
  readonly uris: LocalUris;
  /** The link aggregator's records: which statuses are community posts and comments. */
  readonly links?: LinkAggregatorStore;
}

export interface LocalNote {
  readonly note: Record<string, unknown>;
  readonly mentions: Account[];
  /** The author of the status this one replies to, when it is held. */
  readonly parentAuthor?: Account;
  /** The community (a remote Group) the status is a post or comment of. */
  readonly community?: Account;
}

export class LocalNotes {
  constructor(private readonly d: LocalNoteDeps) {}

  async note(s: Status, author: Account): Promise<LocalNote> {
    const mentions = await this.d.accounts.byIds(s.mentionIds);
    let inReplyTo: string | null = null;
    let parentAuthor: Account | undefined;
    if (s.inReplyToId) {
      const parent = await this.d.statuses.byId(s.inReplyToId);
      parentAuthor = parent && (await this.d.accounts.byId(parent.accountId));
      if (parent && parentAuthor) inReplyTo = parent.uri ?? this.d.uris.status(parentAuthor.username, parent.id);
    }
    const filed = await this.community(s, author, inReplyTo, parentAuthor);
    if (filed) return { note: filed.note, mentions, ...(parentAuthor ? { parentAuthor } : {}), community: filed.group };
    const media: Media[] = (await this.d.media.ofStatuses([s.id])).get(s.id) ?? [];
    const poll: Poll | undefined = (await this.d.polls.ofStatuses([s.id])).get(s.id);
    return { note: noteDocument({ status: s, author, mentions, inReplyTo, media, poll }, this.d.uris, this.d.config), mentions, parentAuthor };
  }

  /** The status as a community Page or comment Note, when it is filed as one (a top-level status can only be a post). */
  private async community(
    s: Status,
    author: Account,
    inReplyTo: string | null,
    parentAuthor: Account | undefined,
  ): Promise<{ note: Record<string, unknown>; group: Account } | undefined> {
    const links = this.d.links;
    if (!links || s.reblogOfId) return undefined;
    const id = this.d.uris.status(author.username, s.id);
    const actor = this.d.uris.actor(author.username);
    if (!s.inReplyToId) {
      const post = await links.postByStatus(s.id);
      const group = post && (await this.group(links, post.communityId));
      if (!post || !group) return undefined;
      // The source is the status's text: the markdown as written (lemmy_posts.body holds the same), or what an edit
      // through the Mastodon API wrote, so that `source` and `content` never disagree.
      return { group, note: pageDocument({ status: s, id, actor, group: group.uri!, name: post.name, url: post.url, source: s.text }) };
    }
    const comment = await links.commentByStatus(s.id);
    const post = comment && (await links.postById(comment.postId));
    const group = post && (await this.group(links, post.communityId));
    if (!group || !inReplyTo) return undefined;
    const parent = parentAuthor && {
      id: actorUri(parentAuthor, this.d.uris),
      handle: `@${parentAuthor.username}@${parentAuthor.domain ?? this.d.config.localDomain}`,
    };
    return { group, note: commentDocument({ status: s, id, actor, group: group.uri!, inReplyTo, parentAuthor: parent ?? null, source: s.text }) };
  }

  private async group(links: LinkAggregatorStore, communityId: number): Promise<Account | undefined> {
    const accountId = await links.communityAccount(communityId);
    const group = accountId ? await this.d.accounts.byId(accountId) : undefined;
    return group?.uri ? group : undefined;
  }
}
