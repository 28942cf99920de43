// Remote HTML (bios, profile field values) reaches client apps that render it as HTML, so only a small safe subset
// is kept: paragraphs, line breaks, spans and http(s) links. Every other tag is dropped (its text stays, escaped);
// attributes other than a link's href are dropped.
const ALLOWED = new Set(['p', 'br', 'span', 'a']);
const TAG = /(<[^>]*>)/;
const NAME = /^<\s*(\/?)\s*([a-zA-Z][a-zA-Z0-9]*)/;
const HREF = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;
const ENTITY = /^&(?:[a-zA-Z][a-zA-Z0-9]{0,31}|#\d{1,7}|#x[0-9a-fA-F]{1,6});/;

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function decodeBasicEntities(s: string): string {
  return s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

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

export function sanitizeHtml(input: string): string {
  let out = '';
  for (const piece of input.split(TAG)) {
    if (piece === '') continue;
    if (!piece.startsWith('<') || !piece.endsWith('>')) {
      out += escapeText(piece);
      continue;
    }
    const m = NAME.exec(piece);
    if (!m) continue;
    const closing = m[1] === '/';
    const name = m[2]!.toLowerCase();
    if (!ALLOWED.has(name)) continue;
    if (name === 'br') out += closing ? '' : '<br>';
    else if (closing) out += `</${name}>`;
    else if (name === 'a') {
      const h = HREF.exec(piece);
      const href = h ? decodeBasicEntities(h[1] ?? h[2] ?? h[3] ?? '') : '';
      out += /^https?:\/\//i.test(href) ? `<a href="${escapeAttr(href)}" rel="nofollow noopener" target="_blank">` : '<a>';
    } else out += `<${name}>`;
  }
  return out;
}
