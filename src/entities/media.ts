// Media rows → Mastodon's MediaAttachment entity, at the address urls/media-urls.ts gives (local files from
// /system/media, remote ones through our proxy), with remote_url naming the original. A video or audio upload still
// being processed has no url yet (Mastodon's 202/206 answers carry url: null); once processed, a video's poster is
// its preview and its meta is Mastodon's (length, duration, fps, original, small).
import type { Media } from '../store/media.js';

/** The entity; `url` is the address given (mediaUrl, or MediaUrls.url for a status's attachments). */
export function mediaEntity(m: Media, url: string) {
  const ready = m.processing === 'done';
  const size = m.width && m.height ? { width: m.width, height: m.height, size: `${m.width}x${m.height}`, aspect: m.width / m.height } : null;
  // A local poster lives beside the file it is the poster of (same storage, same address but its name).
  const preview = m.previewFileName && !m.remoteUrl ? url.slice(0, url.lastIndexOf('/') + 1) + m.previewFileName : url;
  const meta = m.meta ? { ...m.meta, ...(m.type === 'audio' ? {} : { focus: { x: m.focusX, y: m.focusY } }) } : null;
  return {
    id: m.id,
    type: m.type,
    url: ready ? url : null,
    preview_url: ready ? preview : null,
    remote_url: m.remoteUrl,
    preview_remote_url: null,
    text_url: null,
    meta: meta ?? { ...(size ? { original: size, small: size } : {}), focus: { x: m.focusX, y: m.focusY } },
    description: m.description,
    blurhash: m.blurhash,
  };
}
