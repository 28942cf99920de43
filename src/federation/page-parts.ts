// What a community's post or comment (a Lemmy, PieFed or Mbin Page or Note, parsed by note-schema.ts) becomes here:
// the HTML Mastodon clients see, and the title and markdown body Lemmy clients see. No I/O here.
import { escapeText, htmlToPlainText } from '../text/plain-text.js';
import { sanitizeHtml } from '../text/sanitize-html.js';
import type { NoteDoc } from './note-schema.js';

/** Lemmy's longest title. */
export const MAX_TITLE = 200;

/** The post's title: its `name`, else the first line of its text, else its link; never blank. */
export function postTitle(note: NoteDoc): string {
  const firstLine = (s: string) => s.split('\n').find((l) => l.trim() !== '') ?? '';
  const title = note.name?.trim() || firstLine(postBody(note)).trim() || note.link || 'Untitled';
  return [...title].slice(0, MAX_TITLE).join('');
}

/** The markdown Lemmy clients render: the author's `source`, else the HTML content as plain text. */
export function postBody(note: NoteDoc): string {
  return note.markdown ?? htmlToPlainText(note.content);
}

/**
 * A post's HTML for Mastodon clients: the title and the link before the content, as Mastodon shows a Page (its title
 * leading, its link one click away), sanitised again as a whole.
 */
export function postHtml(note: NoteDoc): string {
  const title = `<p><strong>${escapeText(postTitle(note))}</strong></p>`;
  const link = note.link ? `<p><a href="${escapeText(note.link)}" rel="nofollow noopener noreferrer" target="_blank">${escapeText(note.link)}</a></p>` : '';
  return sanitizeHtml(title + link + note.content);
}
