// An HTML tokenizer for the sanitizer, following the HTML standard wherever it decides what is markup and what is
// text: tag names end at whitespace, '/' or '>'; attribute values may be quoted (a '>' inside quotes does not end
// the tag); a tag cut off by the end of the input is no tag; comments end at '-->' (or '--!>', or at once for '<!-->'),
// other '<!' and '<?' constructs (doctype, CDATA outside SVG) at the next '>'; the contents of raw-text elements
// (script, style …) are not markup at all, and those of textarea and title are text. It is linear in the input.

export type HtmlToken =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'start'; readonly name: string; readonly attrs: ReadonlyMap<string, string>; readonly selfClosing: boolean }
  | { readonly kind: 'end'; readonly name: string }
  /** The contents of a raw-text (script, style …) or RCDATA (textarea, title) element, as written. */
  | { readonly kind: 'raw'; readonly name: string; readonly text: string };

const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'textarea', 'title']);
const SPACE = /[\t\n\f\r ]/;
const ASCII_LETTER = /[A-Za-z]/;

/** Named character references decoded in attribute values: those that spell URL syntax, and the usual few. */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  colon: ':',
  Tab: '\t',
  NewLine: '\n',
  sol: '/',
  bsol: '\\',
  lpar: '(',
  rpar: ')',
  period: '.',
  comma: ',',
  semi: ';',
  excl: '!',
  num: '#',
  quest: '?',
  equals: '=',
  commat: '@',
  percnt: '%',
  plus: '+',
  dollar: '$',
  lowbar: '_',
  ast: '*',
  lsqb: '[',
  rsqb: ']',
  lcub: '{',
  rcub: '}',
  verbar: '|',
  grave: '`',
  Hat: '^',
  tilde: '~',
};

/**
 * Character references in an attribute value, decoded as a browser does (numeric ones with or without ';', the
 * named ones above with ';'). A reference not known here stays as written; the sanitizer escapes its '&' on output,
 * so it stays text for the browser too.
 */
export function decodeAttribute(v: string): string {
  if (!v.includes('&')) return v;
  return v.replace(/&(?:#(\d+);?|#[xX]([0-9a-fA-F]+);?|([A-Za-z][A-Za-z0-9]{1,31});)/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED[name] ?? whole;
    const cp = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    // As the standard: NUL, surrogates and values past Unicode become U+FFFD.
    return cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? '\ufffd' : String.fromCodePoint(cp);
  });
}

export function* tokenize(html: string): Generator<HtmlToken> {
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt !== i) {
      const end = lt < 0 ? n : lt;
      yield { kind: 'text', text: html.slice(i, end) };
      i = end;
      continue;
    }
    const next = html[i + 1];
    if (next === '!') {
      if (html.startsWith('<!--', i)) {
        // '<!-->' and '<!--->' are whole (empty) comments; otherwise the first '-->' or '--!>' ends it.
        if (html.startsWith('>', i + 4)) i += 5;
        else if (html.startsWith('->', i + 4)) i += 6;
        else {
          const close = /--!?>/g;
          close.lastIndex = i + 4;
          const m = close.exec(html);
          i = m ? m.index + m[0].length : n;
        }
      } else i = bogusComment(html, i + 2);
      continue;
    }
    if (next === '?') {
      i = bogusComment(html, i + 1);
      continue;
    }
    if (next === '/') {
      const after = html[i + 2];
      if (after === undefined) {
        yield { kind: 'text', text: '</' };
        i = n;
      } else if (after === '>') i += 3;
      else if (ASCII_LETTER.test(after)) {
        const tag = readTag(html, i + 2);
        if (!tag) return; // cut off by the end of the input: not a tag, and nothing after it
        yield { kind: 'end', name: tag.name };
        i = tag.end;
      } else i = bogusComment(html, i + 2);
      continue;
    }
    if (next === undefined || !ASCII_LETTER.test(next)) {
      yield { kind: 'text', text: '<' };
      i += 1;
      continue;
    }
    const tag = readTag(html, i + 1);
    if (!tag) return;
    yield { kind: 'start', name: tag.name, attrs: tag.attrs, selfClosing: tag.selfClosing };
    i = tag.end;
    if (tag.name === 'plaintext') {
      yield { kind: 'raw', name: 'plaintext', text: html.slice(i) };
      return;
    }
    if (RAW_TEXT.has(tag.name)) {
      // The contents run to the first '</name' followed by whitespace, '/' or '>' (any case), or to the end.
      const close = new RegExp(`</${tag.name}[\\t\\n\\f\\r />]`, 'gi');
      close.lastIndex = i;
      const m = close.exec(html);
      const end = m ? m.index : n;
      yield { kind: 'raw', name: tag.name, text: html.slice(i, end) };
      i = end;
    }
  }
}

/** Skips a bogus comment ('<!doctype …>', '<![CDATA[…', '<?xml …?>', '</ …>') that starts at `from`: up to the next '>'. */
function bogusComment(html: string, from: number): number {
  const gt = html.indexOf('>', from);
  return gt < 0 ? html.length : gt + 1;
}

/** The tag whose name starts at `from`; null when the input ends inside it. */
function readTag(html: string, from: number): { name: string; attrs: Map<string, string>; selfClosing: boolean; end: number } | null {
  const n = html.length;
  let i = from;
  while (i < n && !SPACE.test(html[i]!) && html[i] !== '/' && html[i] !== '>') i++;
  const name = html.slice(from, i).toLowerCase();
  const attrs = new Map<string, string>();
  let selfClosing = false;
  for (;;) {
    while (i < n && (SPACE.test(html[i]!) || html[i] === '/')) {
      selfClosing = html[i] === '/';
      i++;
    }
    if (i >= n) return null;
    if (html[i] === '>') return { name, attrs, selfClosing, end: i + 1 };
    selfClosing = false;
    // An attribute name may start with '=' (the standard's quirk); it ends at whitespace, '/', '>' or '='.
    const start = i;
    i++;
    while (i < n && !SPACE.test(html[i]!) && html[i] !== '/' && html[i] !== '>' && html[i] !== '=') i++;
    const attr = html.slice(start, i).toLowerCase();
    while (i < n && SPACE.test(html[i]!)) i++;
    let value = '';
    if (html[i] === '=') {
      i++;
      while (i < n && SPACE.test(html[i]!)) i++;
      const q = html[i];
      if (q === '"' || q === "'") {
        const close = html.indexOf(q, i + 1);
        if (close < 0) return null;
        value = html.slice(i + 1, close);
        i = close + 1;
      } else {
        const vs = i;
        while (i < n && !SPACE.test(html[i]!) && html[i] !== '>') i++;
        value = html.slice(vs, i);
      }
    }
    // The first of repeated attributes counts, as in browsers.
    if (!attrs.has(attr)) attrs.set(attr, decodeAttribute(value));
  }
}
