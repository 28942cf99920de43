// A remote video or audio file larger than the proxy keeps (MEDIA_PROXY_CACHE_MAX_BYTES) is passed through while it
// is played: the player's byte range goes to the origin (at most that many bytes at a time; players ask again for
// the rest), the origin's part comes back as it is, and nothing is written to disk. The first part's bytes must be
// the kind the post announced, as for a kept file.
import { FetchError } from '../federation/fetch-errors.js';
import type { HttpClient, HttpResponse, Signer } from '../federation/http-client.js';
import type { Reply } from '../http/types.js';
import { sniff } from '../media/sniff.js';
import type { Media } from '../store/media.js';

const RANGE = /^bytes=(\d{1,15})-(\d{0,15})$/;

export interface PassThroughDeps {
  readonly http: HttpClient;
  readonly signer: Signer;
  /** The most bytes asked of the origin for one request. */
  readonly chunkBytes: number;
}

/** The reply for one part, or why the origin did not give it (a FetchError's reason, or the origin's status). */
export async function passThrough(
  d: PassThroughDeps,
  m: Media,
  range: string | undefined,
  headers: Record<string, string>,
): Promise<Reply | { refused: string }> {
  // Only `bytes=start-[end]` is passed on; no range, or any other form, is the start of the file.
  const r = range === undefined ? null : RANGE.exec(range.trim());
  const start = r ? Number(r[1]) : 0;
  const last = start + d.chunkBytes - 1;
  const end = r && r[2] !== '' ? Math.min(Number(r[2]), last) : last;
  if (end < start) return { refused: 'The range asked for is not valid' };
  let res: HttpResponse;
  try {
    res = await d.http.request({ method: 'GET', url: m.remoteUrl!, sign: d.signer, maxBytes: d.chunkBytes, headers: { range: `bytes=${start}-${end}` } });
  } catch (e) {
    if (!(e instanceof FetchError)) throw e;
    return { refused: e.reason === 'too_large' ? 'The origin does not send parts of the file' : 'The origin did not send the file' };
  }
  const contentRange = res.headers['content-range'];
  if (res.status === 416) return { status: 416, headers: { ...headers, ...(contentRange && { 'Content-Range': contentRange }) }, body: '' };
  if (res.status !== 206 || !contentRange)
    return { refused: res.status === 200 ? 'The origin does not send parts of the file' : `The origin answered ${res.status}` };
  let contentType = m.contentType;
  if (start === 0) {
    const kind = sniff(res.body);
    if (!kind || !(kind.type === m.type || (m.type === 'gifv' && kind.type === 'video')))
      return { refused: `The remote file is not the ${m.type} it was announced as` };
    contentType = kind.contentType;
  } else if (!/^(video|audio)\//.test(contentType)) {
    contentType = 'application/octet-stream';
  }
  return { status: 206, headers: { ...headers, 'Content-Type': contentType, 'Accept-Ranges': 'bytes', 'Content-Range': contentRange }, body: res.body };
}
