// A post's attachments on server-rendered pages: always at our proxy's address (urls/media-urls.ts), so a member's
// browser contacts no other server; with the member's `media:origin_fallback` on, each remote one also names its
// origin address for web/media-fallback.ts. Videos and audio are fetched only when played (preload="none").
import { contentSecurityPolicy } from '../http/respond.js';
import type { Media } from '../store/media.js';
import { html, type Html } from './html.js';
import { MEDIA_FALLBACK_SCRIPT_PATH } from './media-fallback.js';

export interface ShownMedia {
  readonly m: Media;
  /** Where the page loads it: our proxy (or /system/media for a local upload). */
  readonly url: string;
}

export function attachmentsHtml(list: readonly ShownMedia[], fallback: boolean): Html {
  return html`${list.map(({ m, url }) => {
    const origin = fallback && m.remoteUrl ? m.remoteUrl : null;
    const alt = m.description ?? '';
    switch (m.type) {
      case 'image':
        return html`<img class="attachment" src="${url}" alt="${alt}" data-media-id="${m.id}" ${origin ? html`data-origin="${origin}"` : ''}>`;
      case 'video':
      case 'gifv':
        return html`<video class="attachment" controls preload="none" src="${url}" title="${alt}" data-media-id="${m.id}" ${origin ? html`data-origin="${origin}"` : ''}></video>`;
      case 'audio':
        return html`<audio class="attachment" controls preload="none" src="${url}" title="${alt}" data-media-id="${m.id}" ${origin ? html`data-origin="${origin}"` : ''}></audio>`;
      default:
        return html`<a class="attachment" href="${url}" data-media-id="${m.id}">${alt || 'Attachment'}</a>`;
    }
  })}`;
}

/** The script a page with fallback loads before its attachments (none without it). */
export function fallbackScriptHtml(fallback: boolean): Html {
  return fallback ? html`<script src="${MEDIA_FALLBACK_SCRIPT_PATH}"></script>` : html``;
}

/** The CSP of a page showing these attachments: the origins only when the member chose the fallback. */
export function mediaPagePolicy(list: readonly ShownMedia[], fallback: boolean): string {
  const origins = fallback ? [...new Set(list.flatMap(({ m }) => (m.remoteUrl ? [originOf(m.remoteUrl)] : [])).filter((o): o is string => o !== null))] : [];
  return contentSecurityPolicy([], { media: origins, script: fallback });
}

function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}
