// Keeping an uploaded file (a media attachment, an avatar, a header): images are re-encoded in the image pool
// without their metadata and the result is kept; video and audio are kept as sent. Either way a rename of a
// temporary file, never a copy through memory.
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

export interface Kept {
  readonly fileName: string;
  readonly size: number;
  readonly width: number | null;
  readonly height: number | null;
}

export async function keepUpload(d: UploadDeps, f: UploadedFile, kind: Sniffed): Promise<Kept> {
  if (kind.type !== 'image') return { fileName: await d.files.adopt(f.path, kind.contentType), size: f.size, width: null, height: null };
  const output = tempPath(d.tempDir, '.image');
  try {
    const r = await d.images.reencode({ input: f.path, output, contentType: kind.contentType, maxPixels: MEDIA_LIMITS.imageMatrix });
    if (!r.ok) {
      throw r.reason === 'too_many_pixels'
        ? Errors.validation(`images are limited to ${MEDIA_LIMITS.imageMatrix} pixels`)
        : Errors.validation('File could not be read as an image (truncated or damaged?)');
    }
    return { fileName: await d.files.adopt(output, kind.contentType), size: r.size, width: r.width, height: r.height };
  } finally {
    await rm(output, { force: true }); // nothing there once kept; a half-written file otherwise
  }
}
