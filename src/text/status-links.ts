// The link a status is about, as Mastodon's FetchLinkCardService picks it: the first <a href> of the post's HTML
// that is neither a mention nor a hashtag (class "mention" or "hashtag", rel "tag"), over http(s). Its URL is
// normalized (WHATWG: scheme and host lower-cased, default port and fragment dropped) so the same page posted two
// ways is one link, and /api/v1/timelines/link?url= finds it whichever way the client writes it.
import { tokenize } from './html-tokens.js';

/** Longer URLs are not indexed (Mastodon's preview_cards.url is a string column; 2,048 is what browsers keep). */
const MAX_URL = 2048;
const MAX_TITLE = 200;

export interface StatusLink {
  readonly url: string;
  /** The anchor's text when it says more than the URL (no card is fetched yet: issue 38), else ''. */
  readonly title: string;
}

/** A URL as links are keyed, or null when it is no http(s) URL we index. */
export function normalizeLink(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (u.username || u.password || !u.hostname) return null;
  u.hash = '';
  const s = u.href;
  return s.length > MAX_URL ? null : s;
}

/** The first link of a status's HTML that is not a mention or a hashtag, or null. */
export function statusLink(html: string): StatusLink | null {
  if (!html.includes('href')) return null;
  let open: { url: string; text: string; depth: number } | null = null;
  for (const t of tokenize(html)) {
    if (open) {
      if (t.kind === 'text') open.text += t.text;
      else if (t.kind === 'start' && t.name === 'a') open.depth++;
      else if (t.kind === 'end' && t.name === 'a' && --open.depth === 0) return finish(open);
      continue;
    }
    if (t.kind !== 'start' || t.name !== 'a') continue;
    const cls = ` ${t.attrs.get('class') ?? ''} `;
    const rel = ` ${t.attrs.get('rel') ?? ''} `;
    if (/\s(mention|hashtag)\s/.test(cls) || /\stag\s/.test(rel)) continue;
    const url = normalizeLink(t.attrs.get('href') ?? '');
    if (url === null) continue;
    open = { url, text: '', depth: 1 };
  }
  return open ? finish(open) : null;
}

function finish(o: { url: string; text: string }): StatusLink {
  const text = o.text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  // A bare URL (how local posts and most servers show links, perhaps shortened with an ellipsis) is no title.
  const bare = /^(https?:\/\/)?\S+$/i.test(text) && (o.url.includes(text.replace(/^https?:\/\//i, '').replace(/…$/, '')) || text.includes('/'));
  return { url: o.url, title: bare ? '' : text.slice(0, MAX_TITLE) };
}
