// A local status as the Note (or Question) other servers read: its mentions, the post it answers, its media and
// its poll, loaded and handed to the document builder. Posting, the outbox, Note dereferencing and private boosts
// all render a Note through here.
import type { Config } from '../../config/schema.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { Media, MediaStore } from '../store/media.js';
import type { Poll, PollStore } from '../store/polls.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { LocalUris } from '../urls/local-uris.js';
import { noteDocument } from './note-document.js';

export interface LocalNoteDeps {
  readonly config: Config;
  readonly statuses: StatusStore;
  readonly accounts: AccountStore;
  readonly media: MediaStore;
  readonly polls: PollStore;
  readonly uris: LocalUris;
}

export interface LocalNote {
  readonly note: Record<string, unknown>;
  readonly mentions: Account[];
  /** The author of the status this one replies to, when it is held. */
  readonly parentAuthor?: Account;
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
    const media: Media[] = (await this.d.media.ofStatuses([s.id])).get(s.id) ?? [];
    const poll: Poll | undefined = (await this.d.polls.ofStatuses([s.id])).get(s.id);
    return { note: noteDocument({ status: s, author, mentions, inReplyTo, media, poll }, this.d.uris, this.d.config), mentions, parentAuthor };
  }
}
