// A member's status is plain text; Mastodon's Status `content` is HTML. This turns the one into the other: every
// character the author typed is escaped, and only what this module writes itself is markup (paragraphs, line breaks,
// http(s) links, mentions, hashtags). One left-to-right scanner finds URLs, mentions and hashtags, so extraction and
// rendering always agree (text inside a URL is never a mention or tag). Every pattern is either a single character
// class run or a hand-written loop, and a failed URL candidate is skipped as a whole, so the scan is linear. The same
// scanner measures a status against the character limit the way Mastodon does (statusLength).

export interface MentionToken {
  /** as written after '@', e.g. 'bob' or 'bob@remote.example' or 'bob@127.0.0.1:4000' */
  readonly acct: string;
  readonly username: string;
  /** lower-cased; null when no domain was written */
  readonly domain: string | null;
}

export interface ResolvedMention {
  readonly url: string;
  readonly username: string;
}

type Token =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'mention'; readonly mention: MentionToken }
  | { readonly kind: 'tag'; readonly name: string };

const WORD_CHAR = /^[\p{L}\p{M}\p{Nd}\p{Pc}]$/u;
const SCHEME = /https?:\/\//iy;
const USERNAME_RUN = /[A-Za-z0-9_.-]+/y;
const DOMAIN_RUN = /[\p{L}\p{M}\p{Nd}.-]+/uy;
const DIGITS = /[0-9]+/y;
const TAG_RUN = /[\p{L}\p{M}\p{Nd}_]+/uy;
const TAG_START = /^[\p{L}\p{Nd}_]/u;
const ALL_DIGITS = /^\p{Nd}+$/u;
const LABEL_CHAR = /^[\p{L}\p{M}\p{Nd}]$/u;
const LETTER = /\p{L}/u;
const IPV4_OCTET = /^(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$/;
/** Removed from the end of a URL candidate; ')' only when unbalanced. */
const URL_TRAILING = new Set(['.', ',', ';', ':', '!', '?', "'"]);
const LINK_ATTRS = 'target="_blank" rel="nofollow noopener noreferrer"';

/** The code point just before index i (a whole surrogate pair), or null at the start of the text. */
function charBefore(text: string, i: number): string | null {
  if (i === 0) return null;
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(i - 2, i);
  }
  return text[i - 1]!;
}

/** The code point at index i, or null past the end. */
function charAt(text: string, i: number): string | null {
  const cp = text.codePointAt(i);
  return cp === undefined ? null : String.fromCodePoint(cp);
}

function isWordChar(ch: string | null): boolean {
  if (ch === null) return false;
  const c = ch.charCodeAt(0);
  if (c < 0x80) return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
  return WORD_CHAR.test(ch);
}

function runAt(re: RegExp, text: string, i: number): string {
  re.lastIndex = i;
  const m = re.exec(text);
  return m ? m[0] : '';
}

/** Stops a URL: whitespace, control characters, and the characters that end an HTML attribute or tag. */
function endsUrl(code: number): boolean {
  return (
    code <= 0x20 ||
    (code >= 0x7f && code <= 0xa0) ||
    code === 0x22 ||
    code === 0x3c ||
    code === 0x3e ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url) && URL.canParse(url);
}

/** A URL at i: [end of the candidate (skipped even when refused), the URL or null]. */
function scanUrl(text: string, i: number): [number, string | null] {
  let end = i;
  while (end < text.length && !endsUrl(text.charCodeAt(end))) end++;
  let open = 0;
  let close = 0;
  for (let k = i; k < end; k++) {
    const c = text[k];
    if (c === '(') open++;
    else if (c === ')') close++;
  }
  let stop = end;
  for (;;) {
    const c = text[stop - 1]!;
    if (URL_TRAILING.has(c)) stop--;
    else if (c === ')' && close > open) {
      stop--;
      close--;
    } else break;
  }
  const url = text.slice(i, stop);
  const schemeLength = runAt(SCHEME, url, 0).length;
  return [stop, url.length > schemeLength && isHttpUrl(url) ? url : null];
}

function isValidHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (host.length > 253) return false;
  const labels = host.split('.');
  if (labels.length < 2) return false;
  for (const label of labels) {
    if (label.length === 0 || label.length > 63) return false;
    if (!LABEL_CHAR.test(charAt(label, 0)!) || !LABEL_CHAR.test(charBefore(label, label.length)!)) return false;
  }
  if (LETTER.test(labels[labels.length - 1]!)) return true;
  return labels.length === 4 && labels.every((l) => IPV4_OCTET.test(l));
}

/** A mention whose '@' is at i: [end, token] or null. */
function scanMention(text: string, i: number): [number, MentionToken] | null {
  const before = charBefore(text, i);
  if (before === '@' || before === '/' || before === ':' || isWordChar(before)) return null;
  let username = runAt(USERNAME_RUN, text, i + 1);
  while (username.endsWith('.') || username.endsWith('-')) username = username.slice(0, -1);
  if (username === '' || username[0] === '.' || username[0] === '-') return null;
  let end = i + 1 + username.length;
  let domain: string | null = null;
  if (text[end] === '@') {
    let host = runAt(DOMAIN_RUN, text, end + 1);
    while (host.endsWith('.') || host.endsWith('-')) host = host.slice(0, -1);
    if (!isValidHost(host)) return null;
    end += 1 + host.length;
    domain = host;
    if (text[end] === ':') {
      const port = runAt(DIGITS, text, end + 1);
      if (port !== '') {
        if (port.length > 5 || Number(port) < 1 || Number(port) > 65535) return null;
        end += 1 + port.length;
        domain += `:${port}`;
      }
    }
  }
  const after = charAt(text, end);
  if (after === '@' || isWordChar(after)) return null;
  return [end, { acct: text.slice(i + 1, end), username, domain: domain === null ? null : domain.toLowerCase() }];
}

/** A hashtag whose '#' is at i: [end, name] or null. */
function scanHashtag(text: string, i: number): [number, string] | null {
  const before = charBefore(text, i);
  if (before === '&' || before === '/' || isWordChar(before)) return null;
  const name = runAt(TAG_RUN, text, i + 1);
  if (name === '' || !TAG_START.test(name) || ALL_DIGITS.test(name)) return null;
  return [i + 1 + name.length, name];
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let plainFrom = 0;
  let i = 0;
  const emit = (at: number, end: number, token: Token | null): void => {
    if (token === null) return;
    if (at > plainFrom) tokens.push({ kind: 'text', text: text.slice(plainFrom, at) });
    tokens.push(token);
    plainFrom = end;
  };
  while (i < text.length) {
    const c = text[i];
    if ((c === 'h' || c === 'H') && runAt(SCHEME, text, i) !== '' && !isWordChar(charBefore(text, i))) {
      const [end, url] = scanUrl(text, i);
      emit(i, end, url === null ? null : { kind: 'url', url });
      i = end;
    } else if (c === '@') {
      const found = scanMention(text, i);
      if (found) emit(i, found[0], { kind: 'mention', mention: found[1] });
      i = found ? found[0] : i + 1;
    } else if (c === '#') {
      const found = scanHashtag(text, i);
      if (found) emit(i, found[0], { kind: 'tag', name: found[1] });
      i = found ? found[0] : i + 1;
    } else {
      i++;
    }
  }
  if (plainFrom < text.length) tokens.push({ kind: 'text', text: text.slice(plainFrom) });
  return tokens;
}

/** Mentions in order of first appearance, unique by lower-cased acct. */
export function extractMentions(text: string): MentionToken[] {
  const seen = new Set<string>();
  const out: MentionToken[] = [];
  for (const t of tokenize(text)) {
    if (t.kind !== 'mention') continue;
    const key = t.mention.acct.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(t.mention);
  }
  return out;
}

/** Hashtag names without '#', unique case-insensitively (first spelling kept), in order. */
export function extractHashtags(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tokenize(text)) {
    if (t.kind !== 'tag') continue;
    const key = t.name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(t.name);
  }
  return out;
}

/**
 * Whether `name` (without '#') is a hashtag as a status's text would find it (Mastodon's Tag::HASHTAG_NAME_RE: word
 * characters, not digits alone), at most `max` characters.
 */
export function isHashtagName(name: string, max = 100): boolean {
  if (name.length === 0 || name.length > max) return false;
  return runAt(TAG_RUN, name, 0) === name && TAG_START.test(name) && !ALL_DIGITS.test(name);
}

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A status's length as Mastodon's StatusLengthValidator counts it: the content warning plus the text, in grapheme
 * clusters (an emoji sequence or a letter with its accents is one), with every link counted as `urlLength`
 * characters whatever its length and a remote mention as its local part (`@bob@example.com` as `@bob`). Links and
 * mentions are those the HTML will have, found by the same scanner.
 */
export function statusLength(text: string, spoilerText: string, urlLength: number): number {
  let countable = '';
  if (text.trim() !== '') {
    for (const t of tokenize(text)) {
      countable += t.kind === 'text' ? t.text : t.kind === 'url' ? 'x'.repeat(urlLength) : t.kind === 'mention' ? `@${t.mention.username}` : `#${t.name}`;
    }
  }
  let n = 0;
  for (const _ of GRAPHEMES.segment(spoilerText + countable)) n++;
  return n;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function renderToken(t: Token, mentions: ReadonlyMap<string, ResolvedMention>, tagUrl: (name: string) => string): string {
  switch (t.kind) {
    case 'text':
      return escapeHtml(t.text).replace(/\n/g, '<br />');
    case 'url': {
      const u = escapeHtml(t.url);
      return `<a href="${u}" ${LINK_ATTRS}>${u}</a>`;
    }
    case 'mention': {
      const resolved = mentions.get(t.mention.acct.toLowerCase());
      // The URL comes from a (possibly remote, possibly hostile) actor: only http(s) becomes a link.
      if (!resolved || !isHttpUrl(resolved.url)) return escapeHtml(`@${t.mention.acct}`);
      return `<span class="h-card"><a href="${escapeHtml(resolved.url)}" class="u-url mention">@<span>` + `${escapeHtml(resolved.username)}</span></a></span>`;
    }
    case 'tag':
      return `<a href="${escapeHtml(tagUrl(t.name))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(t.name)}</span></a>`;
  }
}

/**
 * Mastodon-style HTML for a plain-text status: every character of the author's text escaped; paragraphs (<p>) split
 * on blank lines, single newlines as <br />; http(s) URLs linked; resolved mentions linked (key: the MentionToken's
 * acct lower-cased; an unresolved mention stays plain escaped text); hashtags linked to tagUrl(name).
 */
export function statusHtml(text: string, mentions: ReadonlyMap<string, ResolvedMention>, tagUrl: (name: string) => string): string {
  let html = '';
  for (const raw of text.replace(/\r\n?/g, '\n').split(/\n(?:[^\S\n]*\n)+/)) {
    const paragraph = raw.trim();
    if (paragraph === '') continue;
    html += `<p>${tokenize(paragraph)
      .map((t) => renderToken(t, mentions, tagUrl))
      .join('')}</p>`;
  }
  return html;
}

/**
 * One line of a member's plain text as HTML (a profile field's value): escaped, http(s) URLs linked, newlines as
 * spaces; mentions and hashtags stay text, as there is nothing to resolve them against.
 */
export function inlineHtml(text: string): string {
  return tokenize(text.replace(/\s+/g, ' ').trim())
    .map((t) =>
      t.kind === 'url'
        ? renderToken(t, NO_MENTIONS, () => '')
        : escapeHtml(t.kind === 'text' ? t.text : t.kind === 'tag' ? `#${t.name}` : `@${t.mention.acct}`),
    )
    .join('');
}

const NO_MENTIONS: ReadonlyMap<string, ResolvedMention> = new Map();
