// What a linked page says about itself, for its preview card (Mastodon's LinkDetailsExtractor): OpenGraph (og:*),
// Twitter's cards (twitter:*), <title>, <meta name=description>, the page's language, and the oEmbed document it
// links (<link rel=alternate type=application/json+oembed>). Read with the house's HTML tokenizer (html-tokens.ts,
// the HTML standard's rules for what is markup), never with patterns over the HTML. Every string it returns is
// bounded, whatever the page: a card is shown under posts, not a document store.
import { decodeAttribute, tokenize } from './html-tokens.js';

export const MAX_TITLE = 255;
export const MAX_DESCRIPTION = 1000;
export const MAX_NAME = 255;
export const MAX_URL = 2048;
/** Tags read before giving up on a page with no <body> (a page is at most the fetch's byte cap anyway). */
const MAX_TOKENS = 50_000;

export interface PageDetails {
  readonly title: string;
  readonly description: string;
  /** og:type's "video"/"photo" hints are not Mastodon's card types: a page is a link unless oEmbed says otherwise. */
  readonly image: string | null;
  readonly imageDescription: string;
  readonly imageWidth: number;
  readonly imageHeight: number;
  readonly siteName: string;
  readonly authorName: string;
  readonly language: string | null;
  readonly publishedAt: Date | null;
  /** The oEmbed JSON document the page links, absolute. */
  readonly oembedUrl: string | null;
}

/** Collapsed whitespace (control characters are spaces), cut to `max` code units (never inside a surrogate pair). */
export function clean(s: string, max: number): string {
  // Control characters (tabs and newlines among them) count as whitespace, then runs of it are one space.
  let t = s.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  if (t.length > max) {
    t = t.slice(0, max);
    if (/[\ud800-\udbff]$/.test(t)) t = t.slice(0, -1);
  }
  return t;
}

/** An http(s) URL resolved against `base`, or null (bounded, no credentials). */
export function absoluteUrl(raw: string | undefined, base: string): string | null {
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password) return null;
  return u.href.length > MAX_URL ? null : u.href;
}

function dimension(v: string | undefined): number {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isFinite(n) && n > 0 && n <= 100_000 ? n : 0;
}

/** A BCP 47-ish language tag, its primary subtag (Mastodon keeps the language code), or null. */
function languageOf(v: string | undefined): string | null {
  const m = /^([a-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*$/i.exec((v ?? '').trim());
  return m ? m[1]!.toLowerCase() : null;
}

function dateOf(v: string | undefined): Date | null {
  if (!v || v.length > 64) return null;
  const d = new Date(v.trim());
  const t = d.getTime();
  // Before 1990 or far in the future is no publication date.
  return Number.isFinite(t) && t > 631_152_000_000 && t < Date.now() + 86_400_000 * 366 ? d : null;
}

/** The details of the HTML page at `pageUrl` (relative addresses are resolved against it, or its <base href>). */
export function parsePage(html: string, pageUrl: string): PageDetails {
  // First value wins for each property, as Mastodon's extractor reads the first matching <meta>.
  const meta = new Map<string, string>();
  let title: string | null = null;
  let lang: string | undefined;
  let base = pageUrl;
  let oembed: string | undefined;
  let n = 0;
  for (const t of tokenize(html)) {
    if (++n > MAX_TOKENS) break;
    if (t.kind === 'raw' && t.name === 'title') {
      title ??= decodeAttribute(t.text);
      continue;
    }
    if (t.kind !== 'start') continue;
    if (t.name === 'body') break; // OpenGraph and its kin live in <head>
    if (t.name === 'html') lang ??= t.attrs.get('lang');
    else if (t.name === 'base') base = absoluteUrl(t.attrs.get('href'), pageUrl) ?? base;
    else if (t.name === 'meta') {
      const key = (t.attrs.get('property') ?? t.attrs.get('name') ?? t.attrs.get('itemprop') ?? '').trim().toLowerCase();
      const content = t.attrs.get('content');
      if (key && content !== undefined && key.length <= 64 && !meta.has(key)) meta.set(key, content.slice(0, 4 * MAX_DESCRIPTION));
    } else if (t.name === 'link') {
      const rel = ` ${(t.attrs.get('rel') ?? '').toLowerCase()} `;
      const type = (t.attrs.get('type') ?? '').trim().toLowerCase();
      if (rel.includes(' alternate ') && type === 'application/json+oembed') oembed ??= t.attrs.get('href');
    }
  }
  const get = (...keys: string[]) => {
    for (const k of keys) {
      const v = meta.get(k);
      if (v !== undefined && v.trim() !== '') return v;
    }
    return undefined;
  };
  return {
    title: clean(get('og:title', 'twitter:title') ?? title ?? '', MAX_TITLE),
    description: clean(get('og:description', 'twitter:description', 'description') ?? '', MAX_DESCRIPTION),
    image: absoluteUrl(get('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src'), base),
    imageDescription: clean(get('og:image:alt', 'twitter:image:alt') ?? '', MAX_DESCRIPTION),
    imageWidth: dimension(get('og:image:width')),
    imageHeight: dimension(get('og:image:height')),
    siteName: clean(get('og:site_name', 'application-name') ?? '', MAX_NAME),
    authorName: clean(get('author', 'article:author', 'twitter:creator') ?? '', MAX_NAME),
    language: languageOf(lang) ?? languageOf(get('og:locale', 'content-language')),
    publishedAt: dateOf(get('article:published_time', 'og:published_time', 'datepublished', 'date')),
    oembedUrl: absoluteUrl(oembed, base),
  };
}
