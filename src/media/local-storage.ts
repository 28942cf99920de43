// Media in a local directory (STOA_DATA_DIR/media unless MEDIA_DIR names one): the default backend. Files appear whole
// or not at all (written aside, then renamed). Only the server's user may read them (directory 0700, files 0600):
// followers-only and direct media must not be open to every local user of the machine. A cluster must share this
// directory (NFS or the like), or use S3 storage instead.
import { randomBytes } from 'node:crypto';
import { access, chmod, constants, copyFile, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type MediaStorage, StorageUnusableError } from './storage.js';

const CHUNK = 64 * 1024;

export class LocalStorage implements MediaStorage {
  readonly kind = 'local';

  constructor(readonly where: string) {}

  async check(): Promise<void> {
    try {
      await this.ready();
      await access(this.where, constants.W_OK | constants.R_OK | constants.X_OK);
      // access() trusts the mode bits; a read-only mount or a full disk only shows on a real write.
      const probe = path.join(this.where, `.probe-${randomBytes(6).toString('hex')}`);
      await writeFile(probe, 'ok', { mode: 0o600 });
      await rm(probe, { force: true });
    } catch (e) {
      throw new StorageUnusableError(
        `media storage: the directory ${this.where} is not writable by this process (${(e as Error).message}); set MEDIA_DIR to a writable directory (shared by every node of a cluster) or use S3_ENABLED`,
      );
    }
  }

  async putFile(name: string, file: string, _size: number, _contentType: string): Promise<void> {
    await this.ready();
    await chmod(file, 0o600);
    try {
      await rename(file, this.at(name));
    } catch (e) {
      // A rename only when the temporary directory is on the same file system; a copy otherwise (a shared mount).
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      const tmp = this.at(`.${name}.tmp`);
      await copyFile(file, tmp);
      await rename(tmp, this.at(name));
      await rm(file, { force: true });
    }
  }

  async putBuffer(name: string, data: Buffer, _contentType: string): Promise<void> {
    await this.ready();
    const tmp = this.at(`.${name}.tmp`);
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, this.at(name));
  }

  async head(name: string): Promise<{ size: number } | undefined> {
    const st = await stat(this.at(name)).catch(() => undefined);
    return st?.isFile() ? { size: st.size } : undefined;
  }

  async read(name: string, start: number, end: number): Promise<AsyncIterable<Uint8Array> | undefined> {
    const fh = await open(this.at(name), 'r').catch(() => undefined);
    if (!fh) return undefined;
    return (async function* () {
      try {
        // One buffer per file: the next chunk is read only once the consumer is done with the last one.
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, end - start + 1));
        let at = start;
        while (at <= end) {
          const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - at + 1), at);
          if (bytesRead === 0) return;
          at += bytesRead;
          yield buf.subarray(0, bytesRead);
        }
      } finally {
        await fh.close().catch(() => {});
      }
    })();
  }

  async delete(name: string): Promise<void> {
    await rm(this.at(name), { force: true });
  }

  private at(name: string): string {
    return path.join(this.where, name);
  }

  private async ready(): Promise<void> {
    await mkdir(this.where, { recursive: true, mode: 0o700 });
    // Also closes a directory an earlier version created readable to all.
    await chmod(this.where, 0o700);
  }
}
