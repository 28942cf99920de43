// Media rows → Mastodon's MediaAttachment entity, at the addresses urls/media-urls.ts gives (local files and their
// previews from /system/media, remote ones through our proxy), with remote_url naming the original. meta.original
// and meta.small are the real files' sizes; a file without a preview of its own (video, audio, a row from before
// previews, a remote file) gives itself as the preview, as before.
import type { Media } from '../store/media.js';
import type { MediaAddresses } from '../urls/media-urls.js';

const sizeMeta = (width: number, height: number) => ({ width, height, size: `${width}x${height}`, aspect: width / height });

/** The entity at these addresses (mediaAddresses, or MediaUrls.addresses for a status's attachments). */
export function mediaEntity(m: Media, at: MediaAddresses) {
  const original = m.width && m.height ? sizeMeta(m.width, m.height) : null;
  const small = m.previewFileName && m.smallWidth && m.smallHeight ? sizeMeta(m.smallWidth, m.smallHeight) : original;
  return {
    id: m.id,
    type: m.type,
    url: at.url,
    preview_url: at.preview,
    remote_url: m.remoteUrl,
    preview_remote_url: null,
    text_url: null,
    meta: { ...(original ? { original } : {}), ...(small ? { small } : {}), focus: { x: m.focusX, y: m.focusY } },
    description: m.description,
    blurhash: m.blurhash,
  };
}
