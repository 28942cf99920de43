// Members write their bio as plain text; Mastodon's Account `note` and an actor's `summary` are HTML. This is the
// one conversion (and htmlToPlainText the way back, for text that must not carry markup): everything escaped, blank lines make paragraphs, single newlines line breaks.
export function escapeText(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function plainTextToHtml(note: string): string {
  if (!note.trim()) return '';
  return note
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeText(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** Line breaks and paragraph ends kept as newlines, other tags dropped and the usual entities decoded (content
 * warnings received as HTML, posts shown as text). */
export function htmlToPlainText(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
