// Members write their bio as plain text; Mastodon's Account `note` and an actor's `summary` are HTML. This is the
// one conversion: everything escaped, blank lines make paragraphs, single newlines line breaks.
export function escapeText(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function plainTextToHtml(note: string): string {
  if (!note.trim()) return '';
  return note.trim().split(/\n{2,}/).map((p) => `<p>${escapeText(p).replace(/\n/g, '<br>')}</p>`).join('');
}
