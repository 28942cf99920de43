// Notes (and Articles and Pages, shown as posts) as other servers send them, flattened into what we store. The id,
// author and addressing are strict; content is sanitised HTML, and the rest is cut to size or dropped.
import { z } from 'zod';
import { asArray, audience, AS_PUBLIC, firstHref, httpUrl, isRecord, refUrl, text, typeName } from './as2.js';
import { sanitizeHtml } from '../text/sanitize-html.js';

export const NOTE_TYPES = ['Note', 'Article', 'Page', 'Question'] as const;
const MAX_CONTENT = 100_000;
const MAX_SUMMARY = 5_000;
const MAX_TAGS = 64;

export interface NoteDoc {
  id: string;
  attributedTo: string;
  /** Safe HTML. */
  content: string;
  /** Plain text (the content warning), as the author's server sent it. */
  summary: string;
  sensitive: boolean;
  inReplyTo: string | null;
  published: Date | null;
  updated: Date | null;
  url: string | null;
  to: string[];
  cc: string[];
  language: string | null;
  /** Actor ids of Mention tags. */
  mentions: string[];
  /** Hashtag names without '#'. */
  hashtags: string[];
  /** Media (images, video, audio) by URL; fetched only when someone views them. */
  attachments: NoteAttachment[];
  /** A Question's options with the vote counts its server publishes. */
  poll: { options: string[]; counts: number[]; multiple: boolean; endTime: Date | null; voters: number | null } | null;
  /** A poll vote is a Note whose name is the chosen option. */
  name: string | null;
  /** The quoted post's id (FEP-044f quote, Misskey _misskey_quote, quoteUri, quoteUrl). */
  quote: string | null;
  /** The community (Group) a post or comment is in, as `audience` names it (Lemmy, PieFed, Mbin). */
  audience: string | null;
  /** The author's markdown (`source` with mediaType text/markdown), as Lemmy clients render it; null when absent. */
  markdown: string | null;
  /**
   * The link a Page is about: a `Link` attachment's href (Lemmy 0.19, PieFed), else a Page's `url` (older Lemmy,
   * Mbin) when it is not the Page's own address.
   */
  link: string | null;
}

export interface NoteAttachment {
  url: string;
  mediaType: string | null;
  description: string | null;
  width: number | null;
  height: number | null;
}

const MAX_ATTACHMENTS = 16;
const MAX_POLL_OPTIONS = 10;

function pollOf(raw: Record<string, unknown>): NoteDoc['poll'] {
  const multiple = Array.isArray(raw['anyOf']);
  const items = asArray(multiple ? raw['anyOf'] : raw['oneOf']).slice(0, MAX_POLL_OPTIONS);
  const options: string[] = [];
  const counts: number[] = [];
  for (const o of items) {
    if (!isRecord(o)) continue;
    const name = text(o['name'], 200);
    if (name === null || name.trim() === '') continue;
    const total = isRecord(o['replies']) ? o['replies']['totalItems'] : undefined;
    options.push(name);
    counts.push(typeof total === 'number' && Number.isInteger(total) && total >= 0 ? total : 0);
  }
  if (options.length < 1) return null;
  // The end: when it closed (Mastodon reads `closed` first), else when it is to end; `closed: true` without a time
  // means it has ended by now.
  const date = (v: unknown) => (typeof v === 'string' && !Number.isNaN(new Date(v).getTime()) ? new Date(v) : null);
  const endTime = date(raw['endTime']);
  const closed = date(raw['closed']) ?? (raw['closed'] === true ? new Date(Math.min(endTime?.getTime() ?? Infinity, Date.now())) : null);
  const voters = raw['votersCount'];
  return {
    options,
    counts,
    multiple,
    endTime: closed ?? endTime,
    voters: typeof voters === 'number' && Number.isInteger(voters) && voters >= 0 ? voters : null,
  };
}

function attachmentsOf(x: unknown): NoteAttachment[] {
  const out: NoteAttachment[] = [];
  for (const a of asArray(x).slice(0, MAX_ATTACHMENTS)) {
    if (!isRecord(a)) continue;
    const url = firstHref(a['url']);
    if (!url) continue;
    const mediaType = typeof a['mediaType'] === 'string' && /^[a-z]+\/[a-z0-9.+-]+$/i.test(a['mediaType']) ? a['mediaType'].toLowerCase() : null;
    const dim = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 100_000 ? v : null);
    out.push({ url, mediaType, description: text(a['name'], 1500), width: dim(a['width']), height: dim(a['height']) });
  }
  return out;
}

const rawNoteSchema = z
  .object({
    id: z.string().refine((s) => httpUrl(s) !== null, 'must be an http(s) URL'),
    type: z.union([z.string(), z.array(z.unknown())]).refine((t) => NOTE_TYPES.some((n) => n === typeName(t)), 'not a Note'),
    attributedTo: z.unknown().refine((a) => refUrl(a) !== null, 'attributedTo must be an http(s) id'),
  })
  .loose();

function normaliseNote(raw: z.output<typeof rawNoteSchema>): NoteDoc {
  const contentMap = isRecord(raw['contentMap']) ? raw['contentMap'] : null;
  const language = (contentMap ? (Object.keys(contentMap).find((k) => LANGUAGE.test(k)) ?? null) : null) ?? lemmyLanguage(raw['language']);
  const content =
    text(raw['content'], MAX_CONTENT) ??
    (contentMap
      ? text(
          Object.values(contentMap).find((v) => typeof v === 'string'),
          MAX_CONTENT,
        )
      : null) ??
    '';
  const published = typeof raw['published'] === 'string' ? new Date(raw['published']) : null;
  const updated = typeof raw['updated'] === 'string' ? new Date(raw['updated']) : null;
  const mentions: string[] = [];
  const hashtags: string[] = [];
  for (const t of asArray(raw['tag']).slice(0, MAX_TAGS)) {
    if (!isRecord(t)) continue;
    if (t['type'] === 'Mention') {
      const href = httpUrl(t['href']);
      if (href) mentions.push(href);
    } else if (t['type'] === 'Hashtag' && typeof t['name'] === 'string') {
      const name = t['name'].replace(/^#/, '');
      if (/^[\p{L}\p{M}\p{N}_]{1,100}$/u.test(name)) hashtags.push(name);
    }
  }
  return {
    id: raw.id,
    attributedTo: refUrl(raw.attributedTo)!,
    content: sanitizeHtml(content),
    summary: contentWarning(raw),
    sensitive: raw['sensitive'] === true,
    inReplyTo: refUrl(raw['inReplyTo']),
    published: published && !Number.isNaN(published.getTime()) ? published : null,
    updated: updated && !Number.isNaN(updated.getTime()) ? updated : null,
    url: firstHref(raw['url']),
    to: audience(raw['to']),
    cc: audience(raw['cc']),
    language,
    mentions,
    hashtags,
    attachments: attachmentsOf(raw['attachment']),
    poll: typeName(raw.type) === 'Question' ? pollOf(raw) : null,
    name: text(raw['name'], 200),
    quote: refUrl(raw['quote']) ?? refUrl(raw['_misskey_quote']) ?? refUrl(raw['quoteUri']) ?? refUrl(raw['quoteUrl']),
    audience: refUrl(raw['audience']),
    markdown: markdownOf(raw['source']),
    link: linkOf(raw),
  };
}

const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/;

/** Lemmy's `language: {identifier, name}` ('und' is none). */
function lemmyLanguage(x: unknown): string | null {
  const id = isRecord(x) ? x['identifier'] : undefined;
  return typeof id === 'string' && id !== 'und' && LANGUAGE.test(id) ? id : null;
}

function markdownOf(source: unknown): string | null {
  if (!isRecord(source) || source['mediaType'] !== 'text/markdown') return null;
  return text(source['content'], MAX_CONTENT);
}

function linkOf(raw: Record<string, unknown>): string | null {
  for (const a of asArray(raw['attachment']).slice(0, MAX_ATTACHMENTS)) {
    if (isRecord(a) && a['type'] === 'Link') {
      const href = httpUrl(a['href']);
      if (href) return href;
    }
  }
  if (typeName(raw['type']) !== 'Page') return null;
  const url = firstHref(raw['url']);
  return url !== null && url !== raw['id'] ? url : null;
}

export const noteSchema: z.ZodType<NoteDoc> = rawNoteSchema.transform(normaliseNote);

/** Visibility from addressing, as Mastodon reads it. */
export function visibilityOf(n: NoteDoc, followersUrl: string | null): 'public' | 'unlisted' | 'private' | 'direct' {
  if (n.to.includes(AS_PUBLIC)) return 'public';
  if (n.cc.includes(AS_PUBLIC)) return 'unlisted';
  if (followersUrl && (n.to.includes(followersUrl) || n.cc.includes(followersUrl))) return 'private';
  return 'direct';
}

/**
 * The content warning as given, as Mastodon's StatusParser#spoiler_text takes it (summary, else the first of
 * summaryMap; blank is none): spoiler_text is plain text in the client API, and Mastodon servers send it unescaped,
 * so reading it as HTML would mangle their '<' and '&'. Clients show it as text.
 */
function contentWarning(raw: Record<string, unknown>): string {
  const map = isRecord(raw['summaryMap']) ? raw['summaryMap'] : null;
  const cw =
    text(raw['summary'], MAX_SUMMARY) ||
    (map
      ? text(
          Object.values(map).find((v) => typeof v === 'string'),
          MAX_SUMMARY,
        )
      : null);
  return cw?.trim() ? cw : '';
}
