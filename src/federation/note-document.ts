// Our statuses as ActivityStreams: the Note, and the Create and Delete that carry it. Addressing follows the
// visibility the way Mastodon does, so other servers file the post under the same visibility.
import type { Config } from '../../config/schema.js';
import type { Account } from '../store/accounts.js';
import { mediaUrl } from '../urls/media-urls.js';
import type { Media } from '../store/media.js';
import type { Poll } from '../store/polls.js';
import type { ReactionEmoji } from '../store/reactions.js';
import type { Status, Visibility } from '../store/statuses.js';
import { AS_CONTEXT, PUBLIC, actorUri, type Activity } from './activities.js';
import { reactionContent } from './emoji-reactions.js';
import type { LocalUris } from '../urls/local-uris.js';

export const NOTE_CONTEXT = [
  AS_CONTEXT,
  {
    sensitive: 'as:sensitive',
    Hashtag: 'as:Hashtag',
    toot: 'http://joinmastodon.org/ns#',
    blurhash: 'toot:blurhash',
    quoteUrl: 'as:quoteUrl',
    quote: { '@id': 'https://w3id.org/fep/044f#quote', '@type': '@id' },
    quoteUri: 'http://fedibird.com/ns#quoteUri',
    _misskey_quote: 'https://misskey-hub.net/ns#_misskey_quote',
  },
];

export interface NoteParts {
  readonly status: Status;
  readonly author: Account;
  readonly mentions: readonly Account[];
  /** The replied-to status's ActivityPub id. */
  readonly inReplyTo: string | null;
  readonly media?: readonly Media[];
  readonly poll?: Poll;
  /** The time that decides whether the poll has ended (default now). */
  readonly now?: number;
}

export function addressing(visibility: Visibility, followers: string, mentioned: readonly string[]): { to: string[]; cc: string[] } {
  switch (visibility) {
    case 'public':
      return { to: [PUBLIC], cc: [followers, ...mentioned] };
    case 'unlisted':
      return { to: [followers], cc: [PUBLIC, ...mentioned] };
    case 'private':
      return { to: [followers], cc: [...mentioned] };
    case 'direct':
      return { to: [...mentioned], cc: [] };
  }
}

const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A poll as Mastodon publishes it in its Question: the options with their counts (`replies.totalItems`), the voters,
 * `endTime`, and `closed` (the end) once it has ended. A poll hiding its totals shows them only at its end.
 */
export function questionFields(poll: Poll, now: number): Record<string, unknown> {
  const ended = poll.expiresAt !== null && poll.expiresAt.getTime() <= now;
  const hidden = poll.hideTotals && !ended;
  return {
    [poll.multiple ? 'anyOf' : 'oneOf']: poll.options.map((name, i) => ({
      type: 'Note',
      name,
      replies: { type: 'Collection', totalItems: hidden ? 0 : (poll.counts[i] ?? 0) },
    })),
    ...(poll.expiresAt ? { endTime: isoSeconds(poll.expiresAt) } : {}),
    ...(ended ? { closed: isoSeconds(poll.expiresAt!) } : {}),
    votersCount: poll.votersCount,
  };
}

export function noteDocument(p: NoteParts, uris: LocalUris, config: Config): Record<string, unknown> {
  const { status: s, author } = p;
  const id = uris.status(author.username, s.id);
  const mentioned = p.mentions.map((m) => actorUri(m, uris));
  const poll = p.poll ? questionFields(p.poll, p.now ?? Date.now()) : {};
  return {
    id,
    type: p.poll ? 'Question' : 'Note',
    ...poll,
    summary: s.spoilerText || null,
    inReplyTo: p.inReplyTo,
    published: s.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    // Milliseconds kept: receivers take an Update as an edit only when `updated` is later than what they hold, and
    // two edits within one second must not look the same.
    ...(s.editedAt ? { updated: s.editedAt.toISOString() } : {}),
    url: uris.statusUrl(author.username, s.id),
    attributedTo: uris.actor(author.username),
    ...addressing(s.visibility, uris.followers(author.username), mentioned),
    sensitive: s.sensitive,
    // The quoted post under every name servers read it by (FEP-044f, Misskey, Fedibird, Akkoma).
    ...(s.quoteUri ? { quote: s.quoteUri, _misskey_quote: s.quoteUri, quoteUri: s.quoteUri, quoteUrl: s.quoteUri } : {}),
    content: s.content,
    ...(s.language ? { contentMap: { [s.language]: s.content } } : {}),
    attachment: (p.media ?? []).map((m) => ({
      type: 'Document',
      mediaType: m.contentType,
      url: mediaUrl(m, config.baseUrl, config.media.publicUrl),
      name: m.description,
      ...(m.width && m.height ? { width: m.width, height: m.height } : {}),
      focalPoint: [m.focusX, m.focusY],
      // As Mastodon sends it: other servers show the placeholder before they fetch the file.
      ...(m.blurhash ? { blurhash: m.blurhash } : {}),
    })),
    tag: [
      ...p.mentions.map((m) => ({ type: 'Mention', href: actorUri(m, uris), name: `@${m.username}@${m.domain ?? config.localDomain}` })),
      ...s.tags.map((name) => ({ type: 'Hashtag', href: uris.tag(name), name: `#${name}` })),
    ],
  };
}

export function createNoteActivity(note: Record<string, unknown>, uris: LocalUris, author: Account): Activity {
  return {
    '@context': NOTE_CONTEXT,
    id: `${note['id'] as string}/activity`,
    type: 'Create',
    actor: uris.actor(author.username),
    published: note['published'],
    to: note['to'],
    cc: note['cc'],
    object: note,
  };
}

export function deleteNoteActivity(note: Record<string, unknown>, uris: LocalUris, author: Account): Activity {
  return {
    '@context': AS_CONTEXT,
    id: `${note['id'] as string}#delete`,
    type: 'Delete',
    actor: uris.actor(author.username),
    to: note['to'],
    cc: note['cc'],
    object: { id: note['id'], type: 'Tombstone' },
  };
}

/** An edited status, sent to the same audience as its Create. */
export function updateNoteActivity(note: Record<string, unknown>, uris: LocalUris, author: Account): Activity {
  return {
    '@context': NOTE_CONTEXT,
    id: `${note['id'] as string}#updates/${Date.now()}`,
    type: 'Update',
    actor: uris.actor(author.username),
    to: note['to'],
    cc: note['cc'],
    object: note,
  };
}

/** An emoji reaction (Misskey, Akkoma and Pleroma understand EmojiReact), sent to the status's author. */
export function emojiReactActivity(id: string, actor: string, object: string, emoji: ReactionEmoji): Activity {
  return { '@context': AS_CONTEXT, id, type: 'EmojiReact', actor, object, ...reactionContent(emoji) };
}

/** A favourite of a status, sent to its author's server. `id` is kept on the favourite row for the Undo. */
export function likeActivity(id: string, actor: string, object: string): Activity {
  return { '@context': AS_CONTEXT, id, type: 'Like', actor, object };
}

/** A boost: addressed like a public post, to the boosted author and our followers. */
export function announceActivity(uris: LocalUris, booster: Account, boost: Status, object: string | Record<string, unknown>, objectAuthor: string): Activity {
  const actor = uris.actor(booster.username);
  const followers = uris.followers(booster.username);
  return {
    '@context': AS_CONTEXT,
    id: `${uris.status(booster.username, boost.id)}/activity`,
    type: 'Announce',
    actor,
    published: boost.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    to: boost.visibility === 'public' ? [PUBLIC] : [followers],
    cc: boost.visibility === 'public' ? [objectAuthor, followers] : boost.visibility === 'unlisted' ? [objectAuthor, PUBLIC] : [objectAuthor],
    object,
  };
}

/** Undo of an activity we sent, embedding it (receivers need not have kept it). */
export function undoActivity(inner: Activity): Activity {
  const { '@context': _, ...object } = inner;
  return { '@context': AS_CONTEXT, id: `${inner.id}/undo`, type: 'Undo', actor: inner.actor, to: inner['to'], cc: inner['cc'], object };
}

/** A member's vote in a remote poll: one Note per choice, named like the option, sent to the poll's author. */
export function voteActivity(uris: LocalUris, voter: Account, pollAuthor: Account, questionUri: string, choice: string, id: string): Activity {
  const actor = uris.actor(voter.username);
  const to = [actorUri(pollAuthor, uris)];
  return {
    '@context': AS_CONTEXT,
    id: `${actor}#votes/${id}/activity`,
    type: 'Create',
    actor,
    to,
    object: { id: `${actor}#votes/${id}`, type: 'Note', name: choice, attributedTo: actor, inReplyTo: questionUri, to },
  };
}
