// An oEmbed document (https://oembed.com, JSON only) as a card reads it. Its `html` is never kept as sent: only its
// first <iframe>, when it loads an https page, is rebuilt by us with nothing but its address, size and a sandbox
// (Mastodon's MASTODON_OEMBED sanitizer keeps only such iframes too); any other markup becomes no embed at all.
import { z } from 'zod';
import { escapeText } from './plain-text.js';
import { tokenize } from './html-tokens.js';
import { absoluteUrl, clean, MAX_DESCRIPTION, MAX_NAME, MAX_TITLE } from './link-card-parse.js';

const MAX_HTML = 64 * 1024;

const text = z
  .union([z.string(), z.number()])
  .transform((v) => String(v))
  .optional()
  .catch(undefined);
const size = z.union([z.number(), z.string()]).optional().catch(undefined);

const schema = z.object({
  type: z.enum(['photo', 'video', 'rich', 'link']),
  title: text,
  author_name: text,
  author_url: text,
  provider_name: text,
  provider_url: text,
  url: text,
  html: text,
  width: size,
  height: size,
  thumbnail_url: text,
  description: text,
});

export interface OEmbed {
  readonly type: 'photo' | 'video' | 'rich' | 'link';
  readonly title: string;
  readonly description: string;
  readonly authorName: string;
  readonly authorUrl: string;
  readonly providerName: string;
  readonly providerUrl: string;
  /** Our own <iframe> (video and rich only), or ''. */
  readonly html: string;
  readonly width: number;
  readonly height: number;
  /** photo: the image; else the thumbnail. */
  readonly image: string | null;
}

function dimension(v: number | string | undefined): number {
  const n = typeof v === 'number' ? v : Number.parseInt(v ?? '', 10);
  return Number.isFinite(n) && n > 0 && n <= 10_000 ? Math.round(n) : 0;
}

/** The iframe of `html` rebuilt, if its first element worth keeping is an iframe loading an https page; else ''. */
export function safeIframe(html: string, width: number, height: number): string {
  if (html.length > MAX_HTML) return '';
  for (const t of tokenize(html)) {
    if (t.kind !== 'start' || t.name !== 'iframe') continue;
    const src = absoluteUrl(t.attrs.get('src'), 'https://invalid.invalid/');
    if (!src?.startsWith('https://')) return '';
    const w = width || dimension(t.attrs.get('width')) || 400;
    const h = height || dimension(t.attrs.get('height')) || 300;
    return `<iframe src="${escapeText(src)}" width="${w}" height="${h}" frameborder="0" allowfullscreen="true" sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms"></iframe>`;
  }
  return '';
}

/** The oEmbed document `json` (fetched from `url`), or null when it is none. */
export function parseOEmbed(json: unknown, url: string): OEmbed | null {
  const r = schema.safeParse(json);
  if (!r.success) return null;
  const o = r.data;
  const width = dimension(o.width);
  const height = dimension(o.height);
  const embeds = o.type === 'video' || o.type === 'rich';
  return {
    type: o.type,
    title: clean(o.title ?? '', MAX_TITLE),
    description: clean(o.description ?? '', MAX_DESCRIPTION),
    authorName: clean(o.author_name ?? '', MAX_NAME),
    authorUrl: absoluteUrl(o.author_url, url) ?? '',
    providerName: clean(o.provider_name ?? '', MAX_NAME),
    providerUrl: absoluteUrl(o.provider_url, url) ?? '',
    html: embeds ? safeIframe(o.html ?? '', width, height) : '',
    width,
    height,
    image: absoluteUrl(o.type === 'photo' ? o.url : o.thumbnail_url, url),
  };
}
