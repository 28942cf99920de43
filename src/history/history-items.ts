// What one outbox item is to remote history (P15–P26): a post of the actor to import, a boost of a post we hold,
// an object to fetch first (bare IRIs, inline copies not to be trusted), or something skipped but counted (Likes,
// Updates, Deletes, polls' votes, other actors' posts, followers-only and direct posts). Never a side effect: an
// activity here is only ever read, never run.
import { asArray, AS_PUBLIC, audience, isRecord, refUrl } from '../federation/as2.js';
import { noteSchema, NOTE_TYPES, visibilityOf, type NoteDoc } from '../federation/note-schema.js';
import { sameOriginAs } from './history-fetcher.js';

/** Object types Mastodon shows as posts beyond Note/Article/Page/Question (its "converted" types). */
const CONVERTED_TYPES = ['Video', 'Image', 'Audio', 'Event'];
const PUBLIC_FORMS = new Set([AS_PUBLIC, 'as:Public', 'Public']);

/** The actor whose outbox is walked. */
export interface HistoryActor {
  readonly uri: string;
  readonly followersUrl: string | null;
}

export type ItemVerdict =
  | { readonly kind: 'post'; readonly note: NoteDoc; readonly visibility: 'public' | 'unlisted' }
  | { readonly kind: 'boost'; readonly id: string; readonly objectUri: string; readonly visibility: 'public' | 'unlisted' }
  /** An object of the actor's origin to fetch and judge again (bare IRI, or an inline copy we may not trust). */
  | { readonly kind: 'fetch'; readonly uri: string }
  | { readonly kind: 'skip'; readonly why: SkipReason };

export type SkipReason =
  | 'not_a_post'
  | 'actor_mismatch'
  | 'other_origin'
  | 'not_public'
  | 'poll_vote'
  | 'bare_iri'
  | 'unreadable'
  | 'boost_not_held'
  | 'not_found';

function typeOf(x: Record<string, unknown>): string | null {
  for (const t of asArray(x['type'])) if (typeof t === 'string') return t.replace(/^as:/, '');
  return null;
}

/** Public forms as servers write them (P22): the full IRI, `as:Public` or `Public`. */
function addressing(raw: Record<string, unknown>, key: 'to' | 'cc'): string[] {
  return audience(raw[key]).map((a) => (PUBLIC_FORMS.has(a) ? AS_PUBLIC : a));
}

/**
 * An object read as a post, as Mastodon reads it: Note, Article, Page, Question as they are; Video, Image, Audio and
 * Event as a Note whose text is their name and a link to them when they carry no content.
 */
export function postOf(raw: Record<string, unknown>): NoteDoc | null {
  const type = typeOf(raw);
  if (!type) return null;
  const converted = CONVERTED_TYPES.includes(type);
  if (!converted && !NOTE_TYPES.some((t) => t === type)) return null;
  const parsed = noteSchema.safeParse({ ...raw, type: converted ? 'Note' : type, to: addressing(raw, 'to'), cc: addressing(raw, 'cc') });
  if (!parsed.success) return null;
  const note = parsed.data;
  if (note.content !== '' || !converted) return note;
  const link = note.url ?? note.id;
  const title = note.name ? `<p>${escapeHtml(note.name)}</p>` : '';
  return { ...note, content: `${title}<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A post of the actor, judged: its own, on its origin, public or unlisted, not a poll vote. */
function judgePost(note: NoteDoc, actor: HistoryActor): ItemVerdict {
  if (note.attributedTo !== actor.uri) return { kind: 'skip', why: 'actor_mismatch' };
  if (!sameOriginAs(note.id, actor.uri)) return { kind: 'skip', why: 'other_origin' };
  // A vote in a poll (a Note named like the option, without content) is not a post.
  if (note.name !== null && note.content === '' && note.inReplyTo !== null) return { kind: 'skip', why: 'poll_vote' };
  const visibility = visibilityOf(note, actor.followersUrl);
  // P22: filtered here even though a signed fetch should never have been shown the others.
  if (visibility !== 'public' && visibility !== 'unlisted') return { kind: 'skip', why: 'not_public' };
  return { kind: 'post', note, visibility };
}

/** A reference to an object of the actor's origin: fetched when bare IRIs are resolved, else skipped. */
function reference(uri: string | null, actor: HistoryActor, fetchAllowed: boolean): ItemVerdict {
  if (!uri) return { kind: 'skip', why: 'unreadable' };
  if (!sameOriginAs(uri, actor.uri)) return { kind: 'skip', why: 'other_origin' }; // never fetch another origin
  return fetchAllowed ? { kind: 'fetch', uri } : { kind: 'skip', why: 'bare_iri' };
}

/**
 * One item judged. `held(uri)` says whether a post is already here (a boost counts only then: P18, no fetch of
 * another origin). `fetchAllowed`: the bare-IRI switch is on and the page's 5 fetches are not used up.
 */
export function judgeItem(item: unknown, actor: HistoryActor, fetchAllowed: boolean, held: (uri: string) => boolean): ItemVerdict {
  if (typeof item === 'string') return reference(refUrl(item), actor, fetchAllowed);
  if (!isRecord(item)) return { kind: 'skip', why: 'unreadable' };
  const type = typeOf(item);
  if (type === 'Create') {
    // P20: a Create in this outbox made by someone else, or with an id on another host, is refused.
    if (refUrl(item['actor']) !== actor.uri) return { kind: 'skip', why: 'actor_mismatch' };
    if (typeof item['id'] === 'string' && !sameOriginAs(item['id'], actor.uri)) return { kind: 'skip', why: 'other_origin' };
    const object = item['object'];
    if (!isRecord(object)) return reference(refUrl(object), actor, fetchAllowed); // P15 (GoToSocial)
    const note = postOf(object);
    if (!note) return { kind: 'skip', why: typeOf(object) ? 'not_a_post' : 'unreadable' };
    // P16: an inline copy is trusted only when it is the actor's own, on its origin; otherwise asked from the source.
    if (note.attributedTo === actor.uri && sameOriginAs(note.id, actor.uri)) return judgePost(note, actor);
    if (note.attributedTo !== actor.uri && refUrl(object['attributedTo']) !== null && sameOriginAs(note.id, actor.uri)) {
      return reference(note.id, actor, fetchAllowed);
    }
    return { kind: 'skip', why: note.attributedTo !== actor.uri ? 'actor_mismatch' : 'other_origin' };
  }
  if (type === 'Announce') {
    if (refUrl(item['actor']) !== actor.uri) return { kind: 'skip', why: 'actor_mismatch' };
    const id = refUrl(item['id']);
    const objectUri = refUrl(item['object']);
    if (!id || !objectUri || !sameOriginAs(id, actor.uri)) return { kind: 'skip', why: 'unreadable' };
    const to = addressing(item, 'to');
    const visibility = to.includes(AS_PUBLIC) ? 'public' : addressing(item, 'cc').includes(AS_PUBLIC) ? 'unlisted' : null;
    if (!visibility) return { kind: 'skip', why: 'not_public' };
    return held(objectUri) ? { kind: 'boost', id, objectUri, visibility } : { kind: 'skip', why: 'boost_not_held' };
  }
  // P17: a bare object (Postmarks), or a stub holding only an id (Bandwagon).
  const note = postOf(item);
  if (note) return judgePost(note, actor);
  if (type === null && Object.keys(item).length <= 2 && typeof item['id'] === 'string') return reference(refUrl(item['id']), actor, fetchAllowed);
  // P19: Like, EmojiReact, Update, Delete, Add, Remove, Follow, Answer, Tombstone… counted, never acted on.
  return { kind: 'skip', why: 'not_a_post' };
}

/** A fetched object judged again: only a post of the actor now (a fetch never leads to another fetch). */
export function judgeFetched(doc: Record<string, unknown>, actor: HistoryActor): Exclude<ItemVerdict, { kind: 'fetch' }> {
  const verdict = judgeItem(doc, actor, false, () => false);
  if (verdict.kind === 'post' || verdict.kind === 'skip') return verdict;
  return { kind: 'skip', why: 'unreadable' };
}
