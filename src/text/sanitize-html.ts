// Remote HTML (post content, bios, profile field values) reaches client apps that render it as HTML, so it is reduced
// to what Mastodon keeps (its MASTODON_STRICT Sanitize config): p, br, span, a, del, s, pre, blockquote, code, b,
// strong, u, i, em, ul, ol, li, ruby, rt, rp; headings become <p><strong>. Attributes: lang anywhere; on links an
// href with one of Mastodon's link schemes (anything else, javascript: included, leaves the link's text without
// the link), with rel and target set by us; Mastodon's classes (microformats, mention, hashtag, invisible,
// ellipsis, quote-inline) on a, span and p; ol start and reversed, li value, translate="no". Script, style and
// other active or foreign elements go with their contents; other tags go and their text stays. Nothing of the
// input's markup is copied through: every kept tag is written anew, every text run escaped, and the output is
// always balanced, so what a client parses is exactly what this module wrote.
import { tokenize } from './html-tokens.js';

const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  p: ['class'],
  br: [],
  span: ['class', 'translate'],
  a: ['class', 'translate'],
  del: [],
  s: [],
  pre: [],
  blockquote: [],
  code: [],
  b: [],
  strong: [],
  u: [],
  i: [],
  em: [],
  ul: [],
  ol: ['start', 'reversed'],
  li: ['value'],
  ruby: [],
  rt: [],
  rp: [],
};
const HEADING = /^h[1-6]$/;
/** Gone with everything inside them (the raw-text ones among them arrive from the tokenizer as one `raw` token). */
const DROPPED = new Set(['script', 'style', 'iframe', 'object', 'svg', 'math', 'template', 'noscript', 'noembed', 'noframes', 'xmp', 'plaintext']);
/** Elements whose contents are kept as text. */
const TEXT_CONTENT = new Set(['textarea', 'title']);
/** Start tags that close an open paragraph, as in HTML. */
const CLOSES_P = new Set(['p', 'blockquote', 'pre', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Mastodon's LINK_PROTOCOLS. */
const LINK_SCHEMES = new Set(['http', 'https', 'dat', 'dweb', 'ipfs', 'ipns', 'ssb', 'gopher', 'xmpp', 'magnet', 'gemini']);
const CLASS = /^(?:(?:h|p|u|dt|e)-[A-Za-z0-9_-]+|mention|hashtag|ellipsis|invisible|quote-inline)$/;
const LANG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;
const INTEGER = /^-?\d{1,9}$/;
const ENTITY = /^&(?:[a-zA-Z][a-zA-Z0-9]{0,31}|#\d{1,7}|#x[0-9a-fA-F]{1,6});/;
export const LINK_REL = 'nofollow noopener noreferrer';
/** Open elements kept at most; deeper ones are unwrapped (this also bounds the work per end tag). */
const MAX_DEPTH = 64;

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text as written, '<' and '>' escaped; a character reference stays one, any other '&' is escaped. */
function escapeText(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '<') out += '&lt;';
    else if (c === '>') out += '&gt;';
    else if (c === '&') out += ENTITY.test(s.slice(i, i + 40)) ? '&' : '&amp;';
    else out += c;
  }
  return out;
}

/**
 * The href as a browser would follow it when its scheme is one Mastodon links (null otherwise): the decoded value
 * with the tabs and newlines browsers ignore removed and the spaces and controls they trim trimmed, so that
 * `jav&#x09;ascript:` or ` javascript:` is judged by the scheme a browser would see.
 */
export function safeHref(value: string): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers strip these around a URL, and so must we
  const cleaned = value.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a control character left inside an href is refused
  if (/[\u0000-\u001f\u007f]/.test(cleaned)) return null;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(cleaned)?.[1]?.toLowerCase();
  if (!scheme || !LINK_SCHEMES.has(scheme)) return null;
  try {
    return new URL(cleaned).protocol === `${scheme}:` ? cleaned : null;
  } catch {
    return null;
  }
}

/** The attributes kept on an element, written out (with a leading space each). */
function attributes(name: string, attrs: ReadonlyMap<string, string>): string {
  let out = '';
  const lang = attrs.get('lang');
  if (lang !== undefined && LANG.test(lang)) out += ` lang="${lang}"`;
  for (const attr of ALLOWED[name]!) {
    const v = attrs.get(attr);
    if (v === undefined) continue;
    if (attr === 'class') {
      const kept = v.split(/[\t\n\f\r ]+/).filter((c) => CLASS.test(c));
      if (kept.length) out += ` class="${kept.join(' ')}"`;
    } else if (attr === 'translate') {
      if (v === 'no') out += ' translate="no"';
    } else if (attr === 'reversed') out += ' reversed';
    else if (INTEGER.test(v.trim())) out += ` ${attr}="${Number(v.trim())}"`;
  }
  return out;
}

interface Open {
  readonly name: string;
  /** What closes it in the output ('' for a link whose href was refused: it was never opened). */
  readonly close: string;
}

export function sanitizeHtml(input: string): string {
  let out = '';
  const open: Open[] = [];
  /** Inside a dropped element that is not raw text (svg, math, object, template): its name and nesting. */
  let skipping: { name: string; depth: number } | null = null;

  const closeTo = (index: number) => {
    while (open.length > index) out += open.pop()!.close;
  };
  const indexOf = (pred: (o: Open) => boolean): number => {
    for (let k = open.length - 1; k >= 0; k--) if (pred(open[k]!)) return k;
    return -1;
  };

  for (const t of tokenize(input)) {
    if (skipping) {
      if (t.kind === 'start' && t.name === skipping.name && !(t.selfClosing && (t.name === 'svg' || t.name === 'math'))) skipping.depth++;
      else if (t.kind === 'end' && t.name === skipping.name && --skipping.depth === 0) skipping = null;
      continue;
    }
    if (t.kind === 'text') {
      out += escapeText(t.text);
    } else if (t.kind === 'raw') {
      if (TEXT_CONTENT.has(t.name)) out += escapeText(t.text);
    } else if (t.kind === 'start') {
      const name = t.name;
      if (DROPPED.has(name)) {
        // Raw-text elements bring their contents as one token; the others are skipped to their end tag. An SVG or
        // MathML element written <svg/> is complete.
        if (!t.selfClosing || (name !== 'svg' && name !== 'math')) {
          if (name === 'object' || name === 'svg' || name === 'math' || name === 'template') skipping = { name, depth: 1 };
        }
        continue;
      }
      if (name === 'br') {
        out += '<br>';
        continue;
      }
      const heading = HEADING.test(name);
      if (!heading && ALLOWED[name] === undefined) continue;
      if (CLOSES_P.has(name)) {
        // A heading is written as a paragraph, so it closes like one.
        const p = indexOf((o) => o.name === 'p' || HEADING.test(o.name));
        if (p >= 0) closeTo(p);
      }
      if (name === 'a') {
        const a = indexOf((o) => o.name === 'a');
        if (a >= 0) closeTo(a);
      }
      if (name === 'li') {
        const li = indexOf((o) => o.name === 'li' || o.name === 'ul' || o.name === 'ol');
        if (li >= 0 && open[li]!.name === 'li') closeTo(li);
      }
      if (open.length >= MAX_DEPTH) continue;
      if (heading) {
        out += '<p><strong>';
        open.push({ name, close: '</strong></p>' });
      } else if (name === 'a') {
        const href = safeHref(t.attrs.get('href') ?? '');
        if (href === null) open.push({ name, close: '' });
        else {
          out += `<a href="${escapeAttr(href)}"${attributes(name, t.attrs)} rel="${LINK_REL}" target="_blank">`;
          open.push({ name, close: '</a>' });
        }
      } else {
        out += `<${name}${attributes(name, t.attrs)}>`;
        open.push({ name, close: `</${name}>` });
      }
    } else {
      // An end tag closes its element and whatever is still open inside it; one with nothing to close is ignored
      // (</br> is a line break, as browsers read it).
      if (t.name === 'br') out += '<br>';
      const k = HEADING.test(t.name) ? indexOf((o) => HEADING.test(o.name)) : indexOf((o) => o.name === t.name);
      if (k >= 0) closeTo(k);
    }
  }
  closeTo(0);
  return out;
}
