// Streams a byte range of a stored file (a local file or an object in a bucket) into a uWS response: the next chunk
// is pulled only once the socket took the last one (tryEnd + onWritable), and the source closed whatever happens
// (a bucket's download aborted with the request). The status line and headers are written by the caller's `head`,
// in the first cork.
import type { FileBody } from './types.js';
import type { HttpResponse } from './uws.js';

export type StreamOutcome =
  /** Nothing was written: the caller answers instead. */
  | 'not_found'
  | 'complete'
  /** The client went away, or the file ended early (the connection was then closed mid-body). */
  | 'cut_short';

/** `signal` aborts when uWS reports the client gone; `res` must not be touched after that. */
export async function streamFile(res: HttpResponse, file: FileBody, signal: AbortSignal, head: () => void): Promise<StreamOutcome> {
  const source = await file.read(file.start, file.end, signal);
  if (!source) return 'not_found';
  const chunks = source[Symbol.asyncIterator]();
  try {
    const total = file.end - file.start + 1;
    let sent = 0;
    let first = true;
    while (sent < total) {
      const next = await chunks.next();
      if (signal.aborted) return 'cut_short';
      if (next.done) {
        // The file is shorter than announced: its length already went out, so only closing is honest.
        if (first) res.cork(head);
        res.close();
        return 'cut_short';
      }
      // A source may hand more than was asked for: never past the announced length.
      const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, Math.min(next.value.byteLength, total - sent));
      if (chunk.length === 0) continue;
      let ok = false;
      let done = false;
      let base = 0;
      res.cork(() => {
        if (first) head();
        base = res.getWriteOffset();
        [ok, done] = res.tryEnd(chunk, total);
      });
      first = false;
      sent += chunk.length;
      if (done) return 'complete';
      if (!ok && !(await drained(res, chunk, total, base, signal))) return 'cut_short';
    }
    return 'complete';
  } finally {
    await chunks.return?.().catch(() => {});
  }
}

/** Resolves true once the socket has taken the rest of `chunk` (its first byte was at write offset `base`). */
function drained(res: HttpResponse, chunk: Buffer, total: number, base: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(false);
    signal.addEventListener('abort', () => resolve(false), { once: true });
    // On uWS's stack: a throw there would end the process, so it ends this stream instead (streamFile rejects).
    res.onWritable((offset) => {
      try {
        if (signal.aborted) return true;
        const [ok, done] = res.tryEnd(chunk.subarray(offset - base), total);
        if (ok || done) resolve(true);
        return ok;
      } catch (e) {
        reject(e);
        return true;
      }
    });
  });
}
