// The remote media proxy (GET /media_proxy/:id): a remote post's attachment is fetched from its origin on first
// view (through the SSRF-guarded, size-capped client, signed as the instance actor), its bytes must be the kind the
// post announced, and it is kept on the media storage (shared by the cluster) and served from then on, by every node:
// one origin fetch per file for the cluster (store/media-fetch-locks.ts). A video or audio file larger than
// MEDIA_PROXY_CACHE_MAX_BYTES is never kept: it is passed through range by range while played (media-pass-through.ts).
// Only to whoever may read the post (store/statuses.ts canSee), as Mastodon's MediaProxyController authorises the
// status: a public or unlisted post's media to anyone; a followers-only or direct post's to a request carrying the
// address's `sig` (what its readers are given, entities/media.ts) or the bearer token of a reader; a deleted post's
// to no one. Otherwise 404, and nothing is fetched. Ids are time-ordered, so guessing one must never be enough.
// A remote image gets its `small` preview and blurhash (media/preview.ts, in the image pool) once, when its file is
// kept, under the same cluster lock: served at /media_proxy/:id/small to whoever may see the file; a view there before
// the file is kept fetches it as the file's address would, then serves the preview (or the file, when none was made).
import { rm, writeFile } from 'node:fs/promises';
import { ApiError, Errors } from '../errors.js';
import { FetchError } from '../federation/fetch-errors.js';
import type { HttpClient, Signer } from '../federation/http-client.js';
import type { MediaUrls } from '../urls/media-urls.js';
import { fileReply } from '../http/file-body.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { PUBLIC, route, type Authenticate, type Reply, type Route } from '../http/types.js';
import type { Logger } from '../log.js';
import { humanBytes, MEDIA_LIMITS } from '../media/limits.js';
import { MediaFiles } from '../media/media-files.js';
import type { ImagePreviewer } from '../media/preview.js';
import { tempPath } from '../media/temp-files.js';
import type { MediaFetchLocks } from '../store/media-fetch-locks.js';
import { RecentFailures } from '../media/recent-failures.js';
import { SingleFlight } from '../media/single-flight.js';
import { sniff } from '../media/sniff.js';
import { isId } from '../store/ids.js';
import type { Media, MediaStore, MediaType } from '../store/media.js';
import type { StatusStore } from '../store/statuses.js';
import { mediaHeaders } from './media.js';
import { passThrough } from './media-pass-through.js';

const FETCH_FAILED = 'The remote media could not be fetched';
const OVERSIZED_FOR_MS = 60 * 60_000;
// A followers-only or direct post's file may be kept by the reader's browser, never by a shared cache.
const PRIVATE_CACHE = 'private, max-age=31536000, immutable';

export interface MediaProxyDeps {
  readonly log: Logger;
  /**
   * Reads a bearer token inside the handler, not through a route rule: a rule refuses a bad token (401/403), but here
   * a token that is missing, invalid or without read:statuses only means "no reader" (then 404 unless public or
   * signed), and a token is looked at only when the post is neither public nor opened by its `sig`.
   */
  readonly bearer: { readonly authenticate: Authenticate };
  readonly media: MediaStore;
  readonly statuses: StatusStore;
  readonly files: MediaFiles;
  /** One first fetch of a file for the whole cluster. */
  readonly locks: MediaFetchLocks;
  readonly urls: MediaUrls;
  readonly http: HttpClient;
  readonly signer: Signer;
  /**
   * The operator's federation policy: true when media of this post's author (its account id) from this URL is
   * rejected (reject_media or suspend on either domain), kept files included.
   */
  readonly rejectsMedia: (accountId: string, url: string) => Promise<boolean>;
  /** How long a failed fetch is answered from memory (0: every view asks the origin again). */
  readonly retryMs: number;
  /** The largest video or audio file kept (MEDIA_PROXY_CACHE_MAX_BYTES); a larger one is passed through. */
  readonly cacheMaxBytes: number;
  /** The image pool, which makes a kept image's preview. */
  readonly images: ImagePreviewer;
  /** Where a kept image's bytes and preview are written for the pool (media/temp-files.ts). */
  readonly tempDir: string;
}

type Fetched = { readonly fileName: string; readonly contentType: string } | { readonly refused: string } | { readonly tooLarge: true };

/** Whether a file of this kind may stand for an attachment announced as that type (a GIF video is a video). */
const fits = (announced: MediaType, actual: 'image' | 'video' | 'audio') => announced === actual || (announced === 'gifv' && actual === 'video');

export function mediaProxyRoutes(d: MediaProxyDeps): Route[] {
  const fetching = new SingleFlight<Fetched>();
  // A refusal is repeated from memory for a while: a dead or hostile origin is not asked on every view of its post.
  const refused = new RecentFailures<string>(d.retryMs);
  // Videos and audio found larger than what is kept: played by passing ranges through, not fetched whole again.
  const oversized = new RecentFailures<true>(OVERSIZED_FOR_MS);
  const parts = { http: d.http, signer: d.signer, chunkBytes: d.cacheMaxBytes };

  /** The viewer named by a bearer token; null without one, or with one that is not valid (never an error here). */
  const viewerOf = async (req: Request): Promise<string | null> => {
    if (req.headers['authorization'] === undefined) return null;
    try {
      return (await d.bearer.authenticate(req, { scopes: ['read:statuses'] })).record.user?.accountId ?? null;
    } catch (e) {
      if (e instanceof ApiError) return null;
      throw e;
    }
  };

  /** The attachment if this request may see it, and whether its post is public (which shared caches may keep). */
  const permitted = async (req: Request): Promise<{ m: Media; open: boolean; authorId: string } | undefined> => {
    const id = req.params['id']!;
    const m = isId(id) ? await d.media.byId(id) : undefined;
    if (!m?.remoteUrl || m.statusId === null || m.type === 'unknown') return undefined;
    const s = await d.statuses.byId(m.statusId);
    if (!s || s.deletedAt) return undefined;
    if (await d.statuses.canSee(s, null)) return { m, open: true, authorId: s.accountId };
    if (d.urls.check(m.id, req.query['sig'])) return { m, open: false, authorId: s.accountId };
    const viewer = await viewerOf(req);
    return viewer !== null && (await d.statuses.canSee(s, viewer)) ? { m, open: false, authorId: s.accountId } : undefined;
  };

  const fetchFile = async (m: Media, url: string): Promise<Fetched> => {
    const cap = m.type === 'image' ? MEDIA_LIMITS.imageBytes : d.cacheMaxBytes;
    try {
      const res = await d.http.request({ method: 'GET', url, sign: d.signer, maxBytes: cap });
      if (res.status !== 200) throw new FetchError('transient', 'http_status', url, res.status);
      const kind = sniff(res.body);
      // The bytes decide what is served: a remote "image" that is really HTML (or anything else) is not passed on.
      if (!kind || !fits(m.type, kind.type)) throw new FetchError('unsupported', 'media_type_mismatch', url);
      const fileName = await d.files.save(res.body, kind.contentType);
      if (await d.media.cached(m.id, m.fileName, fileName, res.body.length, kind.contentType)) {
        // A copy whose file had gone from the storage is replaced: the old name is dropped too (a no-op if gone).
        if (m.fileName) await d.files.remove(m.fileName);
        if (kind.type === 'image' && !m.previewFileName) await previewKept(m.id, fileName, res.body);
        return { fileName, contentType: kind.contentType };
      }
      // Kept meanwhile by a fetch on another node that did not wait for the lock: serve that one, drop ours.
      await d.files.remove(fileName);
      const kept = await d.media.byId(m.id);
      return kept?.fileName ? { fileName: kept.fileName, contentType: kept.contentType } : { refused: 'The attachment is gone' };
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      if (e.reason === 'too_large' && m.type !== 'image') return { tooLarge: true };
      d.log.info({ media: m.id, url, reason: e.reason, status: e.status }, 'remote media not fetched');
      return { refused: refusal(e, m.type, cap) };
    }
  };

  /** A kept image's preview and blurhash, made once (the caller holds the file's cluster lock); a failure is logged. */
  const previewKept = async (id: string, fileName: string, body: Buffer): Promise<void> => {
    const input = tempPath(d.tempDir, '.remote');
    const output = tempPath(d.tempDir, '.preview');
    try {
      await writeFile(input, body, { mode: 0o600 });
      const r = await d.images.preview({ kind: 'preview', input, preview: output, maxPixels: MEDIA_LIMITS.imageMatrix });
      if (!r.ok) {
        d.log.info({ media: id, reason: r.reason }, 'remote image not previewed');
        return;
      }
      const name = await d.files.adopt(output, r.preview.contentType);
      const p = { previewFileName: name, smallWidth: r.preview.width, smallHeight: r.preview.height, blurhash: r.preview.blurhash };
      if (!(await d.media.previewed(id, fileName, { ...p, width: r.width, height: r.height }))) await d.files.remove(name);
    } catch (err) {
      // The file is served all the same, without a preview (the pool busy, the storage failing).
      d.log.warn({ err, media: id }, 'remote image preview failed');
    } finally {
      await Promise.all([rm(input, { force: true }), rm(output, { force: true })]);
    }
  };

  /** The file at /media_proxy/:id, fetched and kept on first view. */
  const original = async (req: Request): Promise<Reply> => {
    const p = await permitted(req);
    if (!p) throw Errors.routeNotFound();
    const { m, open } = p;
    const failed = (reason: string) => json(502, { error: FETCH_FAILED, error_description: reason }, { 'Cache-Control': 'no-store' });
    // Checked on every view (not remembered): lifting the block serves the media again at once.
    if (await d.rejectsMedia(p.authorId, m.remoteUrl!)) return failed('The server does not accept media from this domain');
    const serve = async (fileName: string, contentType: string) => {
      const f = await d.files.locate(fileName);
      return f && fileReply(f, req.headers['range'], mediaHeaders(contentType, open ? undefined : PRIVATE_CACHE));
    };
    const kept = m.fileName ? await serve(m.fileName, m.contentType) : undefined;
    if (kept) return kept;
    // Not kept yet (or its file was removed from the storage): fetched now, once however many ask at the same time
    // on whichever nodes.
    const remembered = refused.get(m.id);
    if (remembered !== undefined) return failed(remembered);
    const cache = open ? 'public, max-age=86400' : PRIVATE_CACHE;
    const streamed = async () => {
      const part = await passThrough(parts, m, req.headers['range'], mediaHeaders(m.contentType, cache));
      return 'refused' in part ? failed(part.refused) : part;
    };
    if (oversized.get(m.id)) return streamed();
    // Under the cluster's lock the row is read again: a node that waited serves the copy the first one kept.
    const got = await fetching.run(m.id, () =>
      d.locks.once(`media:${m.id}`, async (): Promise<Fetched> => {
        const now = await d.media.byId(m.id);
        if (!now) return { refused: 'The attachment is gone' };
        if (now.fileName && (await d.files.locate(now.fileName))) return { fileName: now.fileName, contentType: now.contentType };
        return fetchFile(now, m.remoteUrl!);
      }),
    );
    if ('tooLarge' in got) {
      oversized.set(m.id, true);
      return streamed();
    }
    if ('refused' in got) {
      refused.set(m.id, got.refused);
      return failed(got.refused);
    }
    const reply = await serve(got.fileName, got.contentType);
    if (!reply) throw Errors.routeNotFound();
    return reply;
  };

  return [
    // No auth rule: who may see the file is decided by the post (permitted above), a token being only one way in.
    route({ method: 'GET', path: '/media_proxy/:id', auth: PUBLIC, handler: original }),
    route({
      method: 'GET',
      path: '/media_proxy/:id/small',
      auth: PUBLIC,
      handler: async (req): Promise<Reply> => {
        const p = await permitted(req);
        if (!p) throw Errors.routeNotFound();
        const small = async (): Promise<Reply | undefined> => {
          const name = (await d.media.byId(p.m.id))?.previewFileName;
          const f = name ? await d.files.locate(name) : undefined;
          return f && fileReply(f, req.headers['range'], mediaHeaders(MediaFiles.contentTypeOf(name!), p.open ? undefined : PRIVATE_CACHE));
        };
        if (p.m.previewFileName && !(await d.rejectsMedia(p.authorId, p.m.remoteUrl!))) {
          const kept = await small();
          if (kept) return kept;
        }
        // Not previewed yet: the file's own first view fetches it and makes the preview (or refuses, as it would).
        const file = await original(req);
        if (file.status >= 300 || p.m.type !== 'image') return file;
        return (await small()) ?? file;
      },
    }),
  ];
}

/** Why a fetch failed, for the client: the remote address is public (remote_url), so nothing is given away. */
function refusal(e: FetchError, type: MediaType, cap: number): string {
  switch (e.reason) {
    case 'http_status':
      return `The origin answered ${e.status}`;
    case 'too_large':
      return `The remote file is larger than ${humanBytes(cap)}`;
    case 'media_type_mismatch':
      return `The remote file is not the ${type} it was announced as`;
    case 'forbidden_address':
    case 'bad_url':
      return 'The remote address is not allowed';
    case 'timeout':
    case 'network':
    case 'dns_failure':
      return 'The origin could not be reached';
    default:
      return 'The origin did not send the file';
  }
}
