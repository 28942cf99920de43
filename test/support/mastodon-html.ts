// An independent check that an HTML field of an API response holds only markup Mastodon allows (its MASTODON_STRICT
// sanitizer config): the allowed elements with their allowed attributes, links with a Mastodon link scheme (and our
// rel and target when they have any), Mastodon's classes, every tag closed in order, and text with no raw '<' or '>'
// and every '&' starting a character reference. Written without the sanitizer's code, as a strict reader of the form
// Stoa writes.
import assert from 'node:assert/strict';

const ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  p: ['class'],
  br: [],
  span: ['class', 'translate'],
  a: ['href', 'rel', 'target', 'class', 'translate'],
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
const SCHEMES = /^(?:https?|dat|dweb|ipfs|ipns|ssb|gopher|xmpp|magnet|gemini):/i;
const CLASS = /^(?:(?:h|p|u|dt|e)-[A-Za-z0-9_-]+|mention|hashtag|ellipsis|invisible|quote-inline)$/;
const TAG = /<(\/?)([a-z0-9]+)((?: [a-z]+(?:="[^"<>]*")?)*)>/y;
const ATTR = / ([a-z]+)(?:="([^"<>]*)")?/g;
const REF = /&(?:[a-zA-Z][a-zA-Z0-9]{0,31}|#\d{1,7}|#x[0-9a-fA-F]{1,6});/y;

function decode(v: string): string {
  return v
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Fails (naming `label`) unless `html` is made only of Mastodon's allowed markup, well nested. */
export function assertMastodonHtml(html: string, label = 'html'): void {
  const open: string[] = [];
  const fail = (why: string, at: number) => assert.fail(`${label}: ${why} at ${at} in ${JSON.stringify(html)}`);
  let i = 0;
  while (i < html.length) {
    const c = html[i]!;
    if (c === '>') fail('raw ">" in text', i);
    if (c === '&') {
      REF.lastIndex = i;
      if (!REF.test(html)) fail('"&" not starting a character reference', i);
    }
    if (c !== '<') {
      i++;
      continue;
    }
    TAG.lastIndex = i;
    const m = TAG.exec(html);
    if (!m) fail('"<" that is not a tag Stoa writes', i);
    const [whole, slash, name, attrs] = m!;
    const allowed = ATTRIBUTES[name!];
    if (!allowed) fail(`<${name}> is not allowed`, i);
    if (slash) {
      if (attrs) fail('attributes on an end tag', i);
      if (open.pop() !== name) fail(`</${name}> closes nothing open`, i);
    } else {
      const seen = new Set<string>();
      for (const [, attr, value = ''] of attrs!.matchAll(ATTR)) {
        if (attr !== 'lang' && !allowed!.includes(attr!)) fail(`${attr} on <${name}>`, i);
        if (seen.has(attr!)) fail(`repeated ${attr}`, i);
        seen.add(attr!);
        const v = decode(value);
        if (attr === 'href' && !SCHEMES.test(v)) fail(`href ${v}`, i);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the check is for control characters
        if (attr === 'href' && /[\u0000-\u001f]/.test(v)) fail('control character in href', i);
        // Our rel on links, and Mastodon's rel="tag" on hashtags written here.
        if (attr === 'rel' && v !== 'nofollow noopener noreferrer' && v !== 'tag') fail(`rel ${v}`, i);
        if (attr === 'target' && v !== '_blank') fail(`target ${v}`, i);
        if (attr === 'class' && !v.split(' ').every((x) => CLASS.test(x))) fail(`class ${v}`, i);
        if (attr === 'translate' && v !== 'no') fail(`translate ${v}`, i);
      }
      if (name === 'a' && !seen.has('href')) fail('a link without href', i);
      if (name !== 'br') open.push(name!);
    }
    i += whole.length;
  }
  if (open.length) fail(`unclosed ${open.join(', ')}`, html.length);
}
