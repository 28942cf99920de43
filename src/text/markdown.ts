// A member's markdown (a link-aggregator post's body or a comment, as Lemmy clients write it) → the HTML other servers
// and Mastodon clients read. markdown-it with raw HTML off (typed tags stay text) and bare URLs linked, then the same
// sanitizer as remote HTML (sanitize-html.ts): whatever markdown-it lets through, only Mastodon's strict markup and
// link schemes are ever written.
import MarkdownIt from 'markdown-it';
import { sanitizeHtml } from './sanitize-html.js';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

// An image becomes a link to it named by its alt text: Mastodon's markup has no <img>, and dropping it would lose the
// picture's address along with its description.
md.renderer.rules.image = (tokens, idx, _options, env, self) => {
  const t = tokens[idx]!;
  const src = t.attrGet('src') ?? '';
  const alt = self.renderInlineAsText(t.children ?? [], _options, env) || src;
  return `<a href="${md.utils.escapeHtml(src)}">${md.utils.escapeHtml(alt)}</a>`;
};

/** Markdown → safe HTML ('' for blank input). */
export function markdownHtml(markdown: string): string {
  if (markdown.trim() === '') return '';
  return sanitizeHtml(md.render(markdown));
}
