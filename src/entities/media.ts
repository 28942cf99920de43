// Media rows → Mastodon's MediaAttachment entity, at the address urls/media-urls.ts gives (local files from
// /system/media, remote ones through our proxy), with remote_url naming the original.
import type { Media } from '../store/media.js';

/** The entity; `url` is the address given (mediaUrl, or MediaUrls.url for a status's attachments). */
export function mediaEntity(m: Media, url: string) {
  const size = m.width && m.height ? { width: m.width, height: m.height, size: `${m.width}x${m.height}`, aspect: m.width / m.height } : null;
  return {
    id: m.id,
    type: m.type,
    url,
    preview_url: url,
    remote_url: m.remoteUrl,
    preview_remote_url: null,
    text_url: null,
    meta: { ...(size ? { original: size, small: size } : {}), focus: { x: m.focusX, y: m.focusY } },
    description: m.description,
    blurhash: null,
  };
}
