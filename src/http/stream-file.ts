// Streams a byte range of a file into a uWS response: one buffer of at most 64 KiB per response, the next chunk read
// only once the socket took the last one (tryEnd + onWritable), and the file closed whatever happens. The status
// line and headers are written by the caller's `head`, in the first cork.
import { open, type FileHandle } from 'node:fs/promises';
import type { FileBody } from './types.js';
import type { HttpResponse } from './uws.js';

const CHUNK = 64 * 1024;

export type StreamOutcome =
  /** Nothing was written: the caller answers instead. */
  | 'not_found'
  | 'complete'
  /** The client went away, or the file ended early (the connection was then closed mid-body). */
  | 'cut_short';

/** `signal` aborts when uWS reports the client gone; `res` must not be touched after that. */
export async function streamFile(res: HttpResponse, file: FileBody, signal: AbortSignal, head: () => void): Promise<StreamOutcome> {
  let fh: FileHandle;
  try {
    fh = await open(file.path, 'r');
  } catch {
    return 'not_found';
  }
  try {
    const total = file.end - file.start + 1;
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, total));
    let sent = 0;
    let first = true;
    while (sent < total) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, total - sent), file.start + sent);
      if (signal.aborted) return 'cut_short';
      if (bytesRead === 0) {
        // The file is shorter than announced: its length already went out, so only closing is honest.
        if (first) res.cork(head);
        res.close();
        return 'cut_short';
      }
      const chunk = buf.subarray(0, bytesRead);
      let ok = false;
      let done = false;
      let base = 0;
      res.cork(() => {
        if (first) head();
        base = res.getWriteOffset();
        [ok, done] = res.tryEnd(chunk, total);
      });
      first = false;
      sent += bytesRead;
      if (done) return 'complete';
      if (!ok && !(await drained(res, chunk, total, base, signal))) return 'cut_short';
    }
    return 'complete';
  } finally {
    await fh.close().catch(() => {});
  }
}

/** Resolves true once the socket has taken the rest of `chunk` (its first byte was at write offset `base`). */
function drained(res: HttpResponse, chunk: Buffer, total: number, base: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    signal.addEventListener('abort', () => resolve(false), { once: true });
    res.onWritable((offset) => {
      if (signal.aborted) return true;
      const [ok, done] = res.tryEnd(chunk.subarray(offset - base), total);
      if (ok || done) resolve(true);
      return ok;
    });
  });
}
