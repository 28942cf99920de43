// Media rows → Mastodon's MediaAttachment entity. Local files are served from /system/media; remote ones through
// our proxy (fetched on first view), with remote_url naming the original.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Media } from '../store/media.js';
import type { Visibility } from '../store/statuses.js';

/** The address of a file anyone may load: a local upload, or a remote file of a public or unlisted post. */
export function mediaUrl(m: Media, baseUrl: string): string {
  return m.remoteUrl ? `${baseUrl}/media_proxy/${m.id}` : `${baseUrl}/system/media/${m.fileName}`;
}

/**
 * Where clients load media. The proxy serves a followers-only or direct post's remote file only to someone who may
 * read the post; clients load media as plain <img>/<video> without their token, so the address we give such a
 * reader carries the proof instead: `sig`, a MAC of the attachment id under a server secret (unguessable, like the
 * random names of local files, and like them it keeps working for whoever was given it).
 */
export class MediaUrls {
  constructor(
    readonly baseUrl: string,
    private readonly key: Buffer,
  ) {}

  url(m: Media, visibility: Visibility): string {
    const plain = mediaUrl(m, this.baseUrl);
    return m.remoteUrl && (visibility === 'private' || visibility === 'direct') ? `${plain}?sig=${this.sig(m.id)}` : plain;
  }

  /** Whether `sig` is the one this server gives out for the attachment. */
  check(id: string, sig: unknown): boolean {
    if (typeof sig !== 'string') return false;
    const want = Buffer.from(this.sig(id));
    const got = Buffer.from(sig);
    return got.length === want.length && timingSafeEqual(got, want);
  }

  private sig(id: string): string {
    return createHmac('sha256', this.key).update(`media_proxy:${id}`).digest('base64url').slice(0, 32);
  }
}

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
