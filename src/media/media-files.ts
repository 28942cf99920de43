// Media files, named by random ids (never by anything a client or a remote server chose), written once and served
// as they are, on the configured storage (storage.ts: a local directory or an S3-compatible bucket, shared by every
// node of a cluster).
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { MediaStorage } from './storage.js';

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/mp4': 'm4a',
  'audio/wav': 'wav',
  'audio/flac': 'flac',
};
const NAME = /^[a-f0-9]{32}\.[a-z0-9]{2,4}$/;

/** A stored file to be streamed: its length, and its bytes by range. */
export interface LocatedFile {
  readonly size: number;
  read(start: number, end: number, signal: AbortSignal): Promise<AsyncIterable<Uint8Array> | undefined>;
}

export class MediaFiles {
  constructor(readonly storage: MediaStorage) {}

  /** Stores the bytes under a fresh name; the file appears whole or not at all. */
  async save(data: Buffer, contentType: string): Promise<string> {
    const name = freshName(contentType);
    await this.storage.putBuffer(name, data, contentType);
    return name;
  }

  /** Keeps a finished temporary file (an upload, a re-encoded image) under a fresh name; the temporary file is consumed. */
  async adopt(tempFile: string, contentType: string): Promise<string> {
    const name = freshName(contentType);
    await this.storage.putFile(name, tempFile, (await stat(tempFile)).size, contentType);
    return name;
  }

  /**
   * Keeps a temporary file as the twin of a stored one: the same random name with this type's extension (an animated
   * avatar's still PNG). What finds the one finds the other; the temporary file is consumed.
   */
  async adoptTwin(tempFile: string, of: string, contentType: string): Promise<string> {
    const name = MediaFiles.twinOf(of, contentType);
    await this.storage.putFile(name, tempFile, (await stat(tempFile)).size, contentType);
    return name;
  }

  /** The twin name of a stored file for this content type (adoptTwin). */
  static twinOf(name: string, contentType: string): string {
    return `${name.slice(0, name.lastIndexOf('.'))}.${EXTENSIONS[contentType] ?? 'bin'}`;
  }

  /**
   * The still PNG twin of a profile image that may be animated (a GIF or a WebP: uploads.ts writes one for each),
   * null for any other; what `avatar_static` and `header_static` name.
   */
  static stillOf(name: string): string | null {
    return /\.(gif|webp)$/.test(name) ? MediaFiles.twinOf(name, 'image/png') : null;
  }

  /** The content type a stored file was saved as, by its extension. */
  static contentTypeOf(name: string): string {
    const ext = name.slice(name.lastIndexOf('.') + 1);
    return Object.keys(EXTENSIONS).find((t) => EXTENSIONS[t] === ext) ?? 'application/octet-stream';
  }

  /** Deletes a file no longer referenced (a replaced avatar, a pruned copy); a name that is not one of ours is ignored. */
  async remove(name: string): Promise<void> {
    if (NAME.test(name)) await this.storage.delete(name);
  }

  /** A stored file's length and bytes, to be streamed; undefined when it is gone or the name is not one of ours. */
  async locate(name: string): Promise<LocatedFile | undefined> {
    if (!NAME.test(name)) return undefined;
    const h = await this.storage.head(name);
    return h && { size: h.size, read: (start, end, signal) => this.storage.read(name, start, end, signal) };
  }
}

function freshName(contentType: string): string {
  return `${randomBytes(16).toString('hex')}.${EXTENSIONS[contentType] ?? 'bin'}`;
}
