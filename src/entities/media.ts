// Media rows → Mastodon's MediaAttachment entity. Local files are served from /system/media; remote ones through
// our proxy (fetched on first view), with remote_url naming the original.
import type { Media } from '../store/media.js';

export function mediaUrl(m: Media, baseUrl: string): string {
  return m.remoteUrl ? `${baseUrl}/media_proxy/${m.id}` : `${baseUrl}/system/media/${m.fileName}`;
}

export function mediaEntity(m: Media, baseUrl: string) {
  const url = mediaUrl(m, baseUrl);
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
