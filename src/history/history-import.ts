// Storing what a history page yields (contract 5): a post as `history` (its id from its age, kept out of every feed),
// with its attachments and poll as a delivered one would have, but no notification, no fan-out, no delivery and no
// fetch: replies, quotes and mentions link to what is already here and nothing else (P23, P24). A post already held
// is left as it is (P26: a delivered post keeps its state). Runs inside the page's transaction.
import { boostStatus, noteStatus, storeNoteParts } from '../federation/note-handlers.js';
import type { NoteDoc } from '../federation/note-schema.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { MediaStore } from '../store/media.js';
import type { PollStore } from '../store/polls.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { LocalUris } from '../urls/local-uris.js';

/** Mentions looked up per post at most. */
const MAX_MENTIONS = 100;

export interface HistoryImportDeps {
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly media: MediaStore;
  readonly polls: PollStore;
  readonly uris: LocalUris;
}

export class HistoryImporter {
  constructor(private readonly d: HistoryImportDeps) {}

  /** A post held already (ours, delivered, or imported before)? */
  async held(uri: string): Promise<Status | undefined> {
    const localId = this.d.uris.statusIdOf(uri);
    return localId ? this.d.statuses.byId(localId) : this.d.statuses.byUri(uri);
  }

  /** Stores a post of `author`; true when it is new here. */
  async importPost(note: NoteDoc, visibility: 'public' | 'unlisted', author: Account): Promise<boolean> {
    if (await this.d.statuses.byUri(note.id)) return false;
    const parent = note.inReplyTo ? await this.held(note.inReplyTo) : undefined;
    const quoted = note.quote ? await this.held(note.quote) : undefined;
    const post = noteStatus(note, author.id, visibility, parent, quoted);
    const { status, created } = await this.d.statuses.create({
      ...post,
      // P25: a date before 1970 is no real post's: it sorts last, at the epoch (an id made from it stays positive).
      ...(post.createdAt && post.createdAt.getTime() < 0 && { createdAt: new Date(0) }),
      history: true,
      mentionIds: await this.knownMentions(note),
    });
    if (created) await storeNoteParts(this.d, note, author.id, status.id);
    return created;
  }

  /** The actor's boost of a post held here (P18); true when it is new here. */
  async importBoost(id: string, objectUri: string, visibility: 'public' | 'unlisted', actor: Account): Promise<boolean> {
    if (await this.d.statuses.byUri(id)) return false;
    const s = await this.held(objectUri);
    // Only a public or unlisted post that is itself no boost can be boosted (as for a delivered Announce).
    if (!s || s.deletedAt || s.reblogOfId || (s.visibility !== 'public' && s.visibility !== 'unlisted')) return false;
    const { created } = await this.d.statuses.create({ ...boostStatus(actor.id, id, s.id, visibility), history: true });
    return created;
  }

  /** Accounts already here that the post mentions (members and known remote accounts): nothing is resolved. */
  private async knownMentions(note: NoteDoc): Promise<string[]> {
    const ids = new Set<string>();
    for (const uri of note.mentions.slice(0, MAX_MENTIONS)) {
      const name = this.d.uris.usernameOf(uri);
      const a = name ? await this.d.accounts.byHandle(name.toLowerCase(), null) : this.d.uris.isLocal(uri) ? undefined : await this.d.accounts.byUri(uri);
      if (a && !a.deletedAt && !a.instanceActor) ids.add(a.id);
    }
    return [...ids];
  }
}
