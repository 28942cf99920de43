// Posts from other servers: a Create of a Note is stored when it concerns someone here (a local member follows the
// author, is mentioned or addressed, or it replies to a local post); a Delete of it hides it. The signer is the
// activity's actor (checked by the inbox); the Note must be theirs and live on their origin.
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import type { FollowStore } from '../store/follows.js';
import type { StatusStore } from '../store/statuses.js';
import type { ActivityDoc } from './as2.js';
import { FetchError } from './fetch-errors.js';
import type { HttpClient, Signer } from './http-client.js';
import type { LocalUris } from './local-uris.js';
import { noteSchema, visibilityOf, type NoteDoc } from './note-schema.js';
import { sameOrigin } from './remote-actors.js';

/** Mentions and addressees looked up per post at most (a post naming thousands of accounts is not our problem). */
const MAX_RECIPIENTS = 100;

export interface NoteHandlerDeps {
  readonly log: Logger;
  readonly accounts: AccountStore;
  readonly follows: FollowStore;
  readonly statuses: StatusStore;
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
    if (await this.d.statuses.byUri(note.id)) return; // delivered twice (shared inbox and personal inbox)
    const recipients = await this.localRecipients(note);
    const parent = note.inReplyTo ? await this.statusByUri(note.inReplyTo) : undefined;
    const relevant = recipients.length > 0 || (parent?.local ?? false) || (await this.d.follows.hasLocalFollowers(author.id));
    if (!relevant) return;
    const remoteMentions = await this.knownRemote(note.mentions);
    await this.d.statuses.create({
      accountId: author.id,
      uri: note.id,
      url: note.url,
      text: '',
      content: note.content,
      spoilerText: note.summary,
      visibility: visibilityOf(note, author.followersUrl),
      sensitive: note.sensitive || note.summary !== '',
      language: note.language,
      inReplyToId: parent?.id ?? null,
      inReplyToAccountId: parent?.accountId ?? null,
      inReplyToUri: note.inReplyTo,
      local: false,
      createdAt: note.published && note.published.getTime() <= Date.now() ? note.published : undefined,
      mentionIds: [...new Set([...recipients.map((r) => r.id), ...remoteMentions.map((r) => r.id)])],
      tags: note.hashtags.slice(0, 20),
    });
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
