// A member's posts, comments and votes in a link-aggregator community (a remote Group: Lemmy, PieFed, Mbin) as the
// documents Lemmy 0.19 reads, shaped as its own (crates/apub/assets/lemmy: objects/page.json, note.json,
// activities/create_or_update, voting, deletion): a post is a `Page` addressed to the group and Public with
// `audience`; a comment a `Note` to Public, cc the group and the parent's author; both carry their HTML with
// `mediaType` and their markdown as `source`. Votes are `Like`/`Dislike` of the object's id, a Delete names Public.
import type { Status } from '../store/statuses.js';
import { AS_CONTEXT, PUBLIC, type Activity } from './activities.js';

/** Lemmy's @context (crates/apub FEDERATION_CONTEXT): its own definitions, then ActivityStreams. */
export const LEMMY_CONTEXT = ['https://join-lemmy.org/context.json', AS_CONTEXT];

export interface CommunityPostParts {
  readonly status: Status;
  /** The Page's id (the status's ActivityPub id). */
  readonly id: string;
  /** The author's actor id. */
  readonly actor: string;
  /** The community's Group actor id. */
  readonly group: string;
  readonly name: string;
  readonly url: string | null;
  /** Markdown, as written. */
  readonly source: string;
}

export interface CommunityCommentParts {
  readonly status: Status;
  readonly id: string;
  readonly actor: string;
  readonly group: string;
  /** The post's or parent comment's id. */
  readonly inReplyTo: string;
  /** The parent's author (actor id and handle), named in cc and mentioned. */
  readonly parentAuthor: { readonly id: string; readonly handle: string } | null;
  readonly source: string;
}

const iso = (d: Date) => d.toISOString();

function times(s: Status): Record<string, string> {
  return { published: iso(s.createdAt), ...(s.editedAt ? { updated: iso(s.editedAt) } : {}) };
}

export function pageDocument(p: CommunityPostParts): Record<string, unknown> {
  return {
    id: p.id,
    type: 'Page',
    attributedTo: p.actor,
    to: [p.group, PUBLIC],
    cc: [],
    audience: p.group,
    name: p.name,
    content: p.status.content,
    mediaType: 'text/html',
    source: { content: p.source, mediaType: 'text/markdown' },
    // Lemmy 0.19 reads the link from the attachment; Mastodon and others from `url`.
    ...(p.url ? { attachment: [{ type: 'Link', href: p.url }], url: p.url } : { attachment: [] }),
    sensitive: p.status.sensitive,
    ...times(p.status),
  };
}

export function commentDocument(p: CommunityCommentParts): Record<string, unknown> {
  // The parent's author is named and mentioned even when it is the commenter (Lemmy's note.json does the same).
  const other = p.parentAuthor;
  return {
    id: p.id,
    type: 'Note',
    attributedTo: p.actor,
    to: [PUBLIC],
    cc: other ? [p.group, other.id] : [p.group],
    audience: p.group,
    inReplyTo: p.inReplyTo,
    content: p.status.content,
    mediaType: 'text/html',
    source: { content: p.source, mediaType: 'text/markdown' },
    tag: other ? [{ type: 'Mention', href: other.id, name: other.handle }] : [],
    distinguished: false,
    ...times(p.status),
  };
}

/** A Create or Update of a community Page or Note: Public in `to`, the object's other addressees in `cc`. */
export function createOrUpdateActivity(kind: 'Create' | 'Update', object: Record<string, unknown>, actor: string, group: string): Activity {
  const id = object['id'] as string;
  const cc = (object['type'] === 'Page' ? [group] : (object['cc'] as string[])).filter((a) => a !== PUBLIC);
  return {
    '@context': LEMMY_CONTEXT,
    // An Update's id differs with each edit: servers drop an activity id they have seen.
    id: kind === 'Create' ? `${id}/activity` : `${id}#updates/${Date.now()}`,
    type: kind,
    actor,
    to: [PUBLIC],
    cc,
    audience: group,
    ...(object['type'] === 'Note' ? { tag: object['tag'] } : {}),
    object,
  };
}

/** A Delete of a member's own post or comment, naming Public (Lemmy refuses a Delete that does not). */
export function communityDeleteActivity(objectId: string, actor: string, group: string, cc: readonly string[]): Activity {
  return {
    '@context': LEMMY_CONTEXT,
    id: `${objectId}#delete`,
    type: 'Delete',
    actor,
    to: [PUBLIC],
    cc: [...new Set([group, ...cc])],
    audience: group,
    object: objectId,
  };
}

/** A vote: Like (+1) or Dislike (−1) of a post's or comment's id, for the community's inbox. */
export function voteActivity(id: string, kind: 'Like' | 'Dislike', actor: string, objectId: string, group: string): Activity {
  return { '@context': LEMMY_CONTEXT, id, type: kind, actor, object: objectId, audience: group };
}

/** The Undo of a vote, the vote embedded (Lemmy reads its actor and object). */
export function undoVoteActivity(vote: Activity): Activity {
  const { '@context': _, ...object } = vote;
  return { '@context': LEMMY_CONTEXT, id: `${vote.id}/undo`, type: 'Undo', actor: vote.actor, object, audience: vote['audience'] };
}
