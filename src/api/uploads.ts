// Keeping an uploaded file (a media attachment, an avatar, a header): images are re-encoded in the image pool
// without their metadata and the result is kept, with an attachment's small preview and blurhash, or a profile
// image's Mastodon size and still first frame; video and audio are kept as sent. Either way a rename of a temporary
// file, never a copy through memory.
import { rm } from 'node:fs/promises';
import { Errors } from '../errors.js';
import type { UploadedFile } from '../http/params.js';
import { MEDIA_LIMITS } from '../media/limits.js';
import type { MediaFiles } from '../media/media-files.js';
import type { ImageReencoder } from '../media/reencode.js';
import type { Sniffed } from '../media/sniff.js';
import { tempPath } from '../media/temp-files.js';

export interface UploadDeps {
  readonly files: MediaFiles;
  readonly images: ImageReencoder;
  /** Where re-encoded images are written before they are kept (media/temp-files.ts). */
  readonly tempDir: string;
}

export interface KeptPreview {
  readonly fileName: string;
  readonly width: number;
  readonly height: number;
  readonly blurhash: string;
}

export interface Kept {
  readonly fileName: string;
  readonly size: number;
  readonly width: number | null;
  readonly height: number | null;
  /** An attachment image's small preview. */
  readonly preview?: KeptPreview;
}

/** What is made beside the re-encoded image: an attachment's preview, or a profile image's shape (and still). */
export type KeepAs = { readonly as: 'attachment' } | { readonly as: 'avatar' | 'header' };

export async function keepUpload(d: UploadDeps, f: UploadedFile, kind: Sniffed, keepAs: KeepAs = { as: 'attachment' }): Promise<Kept> {
  if (kind.type !== 'image') return { fileName: await d.files.adopt(f.path, kind.contentType), size: f.size, width: null, height: null };
  const output = tempPath(d.tempDir, '.image');
  const preview = keepAs.as === 'attachment' ? tempPath(d.tempDir, '.preview') : undefined;
  const still = keepAs.as === 'attachment' ? undefined : tempPath(d.tempDir, '.still');
  try {
    const r = await d.images.reencode({
      input: f.path,
      output,
      contentType: kind.contentType,
      maxPixels: MEDIA_LIMITS.imageMatrix,
      ...(preview !== undefined && { preview }),
      ...(keepAs.as !== 'attachment' && { shape: keepAs.as, still }),
    });
    if (!r.ok) {
      throw r.reason === 'too_many_pixels'
        ? Errors.validation(`images are limited to ${MEDIA_LIMITS.imageMatrix} pixels`)
        : Errors.validation('File could not be read as an image (truncated or damaged?)');
    }
    const fileName = await d.files.adopt(output, kind.contentType);
    const small = r.preview && {
      fileName: await d.files.adopt(preview!, r.preview.contentType),
      width: r.preview.width,
      height: r.preview.height,
      blurhash: r.preview.blurhash,
    };
    if (r.still) await d.files.adoptTwin(still!, fileName, 'image/png');
    return { fileName, size: r.size, width: r.width, height: r.height, ...(small && { preview: small }) };
  } finally {
    // Nothing there once kept; a half-written file otherwise.
    await Promise.all([output, preview, still].map((p) => p !== undefined && rm(p, { force: true })));
  }
}
