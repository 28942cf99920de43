// Where clients load files: local uploads, remote posts' media through our proxy (signed for followers-only and
// direct posts), members' avatars and headers, remote accounts' images through the proxy, and the default images.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config/schema.js';
import { MediaFiles } from '../media/media-files.js';
import type { Media } from '../store/media.js';
import type { Visibility } from '../store/statuses.js';

/**
 * The address of a file anyone may load: a local upload (from the bucket's public host when S3_ALIAS_HOST is set),
 * or a remote file of a public or unlisted post (always through our proxy, which checks who may see it).
 */
export function mediaUrl(m: Media, baseUrl: string, publicUrl?: string): string {
  if (m.remoteUrl) return `${baseUrl}/media_proxy/${m.id}`;
  return publicUrl ? `${publicUrl}/${m.fileName}` : `${baseUrl}/system/media/${m.fileName}`;
}

/** Where an attachment's file and its preview are loaded (the MediaAttachment's url and preview_url). */
export interface MediaAddresses {
  readonly url: string;
  readonly preview: string;
}

/** mediaUrl, and the preview's address: an upload's own small file when it has one, the file itself otherwise. */
export function mediaAddresses(m: Media, baseUrl: string, publicUrl?: string): MediaAddresses {
  const url = mediaUrl(m, baseUrl, publicUrl);
  if (m.remoteUrl || !m.previewFileName) return { url, preview: url };
  return { url, preview: publicUrl ? `${publicUrl}/${m.previewFileName}` : `${baseUrl}/system/media/${m.previewFileName}` };
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
    /** S3_ALIAS_HOST's origin, where uploads are loaded from the bucket. */
    private readonly publicUrl?: string,
  ) {}

  url(m: Media, visibility: Visibility): string {
    const plain = mediaUrl(m, this.baseUrl, this.publicUrl);
    return m.remoteUrl && (visibility === 'private' || visibility === 'direct') ? `${plain}?sig=${this.sig(m.id)}` : plain;
  }

  /**
   * url() and the preview's address (mediaAddresses), for a status's attachment; a remote image's preview, once the
   * proxy has made it, is at the proxy's /small address (signed as its file is).
   */
  addresses(m: Media, visibility: Visibility): MediaAddresses {
    const url = this.url(m, visibility);
    if (!m.remoteUrl) return { url, preview: mediaAddresses(m, this.baseUrl, this.publicUrl).preview };
    if (!m.previewFileName) return { url, preview: url };
    const at = url.indexOf('?');
    return { url, preview: at < 0 ? `${url}/small` : `${url.slice(0, at)}/small${url.slice(at)}` };
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

/** Where a member's avatar or header file is served (the bucket's public host when S3_ALIAS_HOST is set). */
export function profileImageUrl(config: Config, kind: 'avatars' | 'headers', file: string): string {
  return config.media.publicUrl ? `${config.media.publicUrl}/${file}` : `${config.baseUrl}/system/accounts/${kind}/${file}`;
}

/** Where its still version is (avatar_static, header_static): a GIF's or WebP's PNG twin, the file itself otherwise. */
export function profileImageStaticUrl(config: Config, kind: 'avatars' | 'headers', file: string): string {
  return profileImageUrl(config, kind, MediaFiles.stillOf(file) ?? file);
}

/**
 * Where clients load a remote account's image: our proxy (api/remote-images.ts), versioned by the remote URL so a
 * new image is a new address and a cached copy can be kept long.
 */
export function remoteImageUrl(config: Config, accountId: string, kind: 'avatar' | 'header', remoteUrl: string): string {
  return `${config.baseUrl}/media_proxy/accounts/${accountId}/${kind}?v=${createHash('sha256').update(remoteUrl).digest('base64url').slice(0, 12)}`;
}

export function missingImage(config: Config, kind: 'avatars' | 'headers'): string {
  return `${config.baseUrl}/${kind}/original/missing.png`;
}
