// Media files on disk, under STOA_DATA_DIR/media, named by random ids (never by anything a client or a remote
// server chose), written once and served as they are. Only the server's user may read them (directory 0700, files
// 0600): followers-only and direct media must not be open to every local user of the machine.
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

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
};
const NAME = /^[a-f0-9]{32}\.[a-z0-9]{2,4}$/;

export class MediaFiles {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'media');
  }

  /** Stores the bytes under a fresh name; the file appears whole or not at all (written aside, then renamed). */
  async save(data: Buffer, contentType: string): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Also closes a directory an earlier version created readable to all.
    await chmod(this.dir, 0o700);
    const name = `${randomBytes(16).toString('hex')}.${EXTENSIONS[contentType] ?? 'bin'}`;
    const tmp = path.join(this.dir, `.${name}.tmp`);
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, path.join(this.dir, name));
    return name;
  }

  /**
   * Keeps a finished temporary file (an upload, a re-encoded image) under a fresh name: a rename, as the temporary
   * directory lies beside this one; a copy only when an operator put them on different file systems.
   */
  async adopt(tempFile: string, contentType: string): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    await chmod(tempFile, 0o600);
    const name = `${randomBytes(16).toString('hex')}.${EXTENSIONS[contentType] ?? 'bin'}`;
    try {
      await rename(tempFile, path.join(this.dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      const tmp = path.join(this.dir, `.${name}.tmp`);
      await copyFile(tempFile, tmp);
      await rename(tmp, path.join(this.dir, name));
      await rm(tempFile, { force: true });
    }
    return name;
  }

  /** The content type a stored file was saved as, by its extension. */
  static contentTypeOf(name: string): string {
    const ext = name.slice(name.lastIndexOf('.') + 1);
    return Object.keys(EXTENSIONS).find((t) => EXTENSIONS[t] === ext) ?? 'application/octet-stream';
  }

  /** Deletes a file no longer referenced (a replaced avatar); a name that is not one of ours is ignored. */
  async remove(name: string): Promise<void> {
    if (NAME.test(name)) await rm(path.join(this.dir, name), { force: true });
  }

  /** Where a stored file is and how long, to be streamed; undefined for a name that is not one of ours. */
  async locate(name: string): Promise<{ path: string; size: number } | undefined> {
    if (!NAME.test(name)) return undefined;
    const p = path.join(this.dir, name);
    try {
      const st = await stat(p);
      return st.isFile() ? { path: p, size: st.size } : undefined;
    } catch {
      return undefined;
    }
  }
}
