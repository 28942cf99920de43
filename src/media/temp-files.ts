// Temporary files under STOA_DATA_DIR/tmp (0700, files 0600): uploads streamed to disk while they arrive, and images
// re-encoded from them. On the same file system as the media directory, so keeping one is a rename.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

export function tempDirOf(dataDir: string): string {
  return path.join(dataDir, 'tmp');
}

const ready = new Set<string>();

/** A fresh path in dir, the directory made (0700) on first use in this process. */
export function tempPath(dir: string, suffix = ''): string {
  if (!ready.has(dir)) {
    // Once per process and directory: a single syscall on the first upload, cheaper than an await on every one.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    ready.add(dir);
  }
  return path.join(dir, `${randomBytes(16).toString('hex')}${suffix}`);
}

/**
 * Removes what a process killed mid-upload left behind: files untouched for maxAgeMs. A live upload writes to its
 * file as the bytes arrive and a finished request removes its files at once, so an old file belongs to nobody (and
 * another process on the same data directory is not disturbed).
 */
export async function sweepStaleTempFiles(dir: string, maxAgeMs: number, now = Date.now()): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const p = path.join(dir, name);
    const st = await stat(p).catch(() => undefined);
    if (st?.isFile() && now - st.mtimeMs > maxAgeMs) {
      await rm(p, { force: true });
      removed++;
    }
  }
  return removed;
}
