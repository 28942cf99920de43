// Media rows → Mastodon's MediaAttachment entity, at the addresses urls/media-urls.ts gives (local files and their
// previews from /system/media, remote ones through our proxy), with remote_url naming the original. meta.original
// and meta.small are the real files' sizes; a file without a preview of its own (audio, a row from before previews, a
// remote file) gives itself as the preview. A video or audio upload still being processed has no url yet (Mastodon's
// 202/206 answers carry url: null); once processed, a video's poster is its preview and its meta is Mastodon's
// (length, duration, fps, original, small).
import type { Media } from '../store/media.js';
import type { MediaAddresses } from '../urls/media-urls.js';

const sizeMeta = (width: number, height: number) => ({ width, height, size: `${width}x${height}`, aspect: width / height });

/** The entity at these addresses (mediaAddresses, or MediaUrls.addresses for a status's attachments). */
export function mediaEntity(m: Media, at: MediaAddresses) {
  const ready = m.processing === 'done';
  const focus = { x: m.focusX, y: m.focusY };
  let meta: Record<string, unknown>;
  if (m.meta) meta = { ...m.meta, ...(m.type === 'audio' ? {} : { focus }) };
  else {
    const original = m.width && m.height ? sizeMeta(m.width, m.height) : null;
    const small = m.previewFileName && m.smallWidth && m.smallHeight ? sizeMeta(m.smallWidth, m.smallHeight) : original;
    meta = { ...(original ? { original } : {}), ...(small ? { small } : {}), focus };
  }
  return {
    id: m.id,
    type: m.type,
    url: ready ? at.url : null,
    preview_url: ready ? at.preview : null,
    remote_url: m.remoteUrl,
    preview_remote_url: null,
    text_url: null,
    meta,
    description: m.description,
    blurhash: m.blurhash,
  };
}
