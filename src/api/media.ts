// Media: uploads (POST /api/v2/media and the older /api/v1/media; multipart, type from the bytes, size-limited,
// images re-encoded without metadata by uploads.ts),
// reading, describing and deleting one's uploads, and serving local files. Remote posts' media go through media-proxy.ts.
import { z } from 'zod';
import { Errors } from '../errors.js';
import { fileReply } from '../http/file-body.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { PUBLIC, route, type MemberPrincipal, type Reply, type Route, updateRoute } from '../http/types.js';
import { mediaEntity } from '../entities/media.js';
import { mediaAddresses } from '../urls/media-urls.js';
import { humanBytes, MEDIA_LIMITS, uploadLimits } from '../media/limits.js';
import { MediaFiles } from '../media/media-files.js';
import { sniff, SUPPORTED_DESCRIPTION } from '../media/sniff.js';
import { isId } from '../store/ids.js';
import { description, focus, invalid } from './params.js';
import { keepUpload, type UploadDeps } from './uploads.js';
import { isUploadedFile, type UploadedFile } from '../http/params.js';
import type { Media, MediaStore } from '../store/media.js';
import type { Logger } from '../log.js';
import type { MediaJobStore } from '../store/media-jobs.js';
import type { Wake } from '../wake.js';
import { readFile } from 'node:fs/promises';
import { gifFrames } from '../media/gif-frames.js';

// A JSON null description clears it (Mastodon sets the attribute to nil).
const Describe = z.object({ description: description.nullable().optional(), focus: focus.optional() });

/** Headers for a media file: never sniffed or run as a page, whatever a file turns out to contain. */
export function mediaHeaders(contentType: string, cacheControl = 'public, max-age=31536000, immutable'): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Cache-Control': cacheControl,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  };
}

export interface MediaApiDeps extends UploadDeps {
  readonly baseUrl: string;
  /** S3_ALIAS_HOST's origin: uploads are loaded from there rather than from /system/media. */
  readonly publicUrl: string | undefined;
  /** MAX_MULTIPART_BYTES: the files an upload may carry follow from it (media/limits.ts). */
  readonly multipartBytes: number;
  readonly media: MediaStore;
  readonly mediaJobs: MediaJobStore;
  /** Wakes this node's media processor for a queued video or audio file. */
  readonly mediaQueued: Wake;
  /** How long POST /api/v1/media waits for a video or audio file to be processed (v1 answers when it is). */
  readonly v1WaitMs: number;
  readonly log: Logger;
}

/** How often POST /api/v1/media looks whether its file is processed (it waits, as Mastodon's v1 does). */
const V1_LOOK_MS = 100;

function file(v: unknown): UploadedFile | null {
  return isUploadedFile(v) ? v : null;
}

export function mediaRoutes(d: MediaApiDeps): Route[] {
  const limits = uploadLimits(d.multipartBytes);
  const entity = (m: Media) => mediaEntity(m, mediaAddresses(m, d.baseUrl, d.publicUrl));
  const own = async (req: Request, who: MemberPrincipal): Promise<Media> => {
    const owner = who.record.user.accountId;
    const id = req.params['id']!;
    const m = isId(id) ? await d.media.byId(id) : undefined;
    if (!m || m.accountId !== owner) throw Errors.notFound();
    return m;
  };
  const upload = async (req: Request, who: MemberPrincipal): Promise<Reply> => {
    const owner = who.record.user.accountId;
    const f = file(req.fields['file']);
    if (!f) throw Errors.validation('file is required (multipart/form-data)');
    const kind = sniff(f.head);
    if (!kind) throw Errors.unprocessable('Validation failed: File content type is not supported', SUPPORTED_DESCRIPTION);
    const image = kind.type === 'image';
    const limit = image ? limits.image : limits.video;
    if (f.size > limit) throw Errors.validation(`File is too large (${image ? 'images' : 'video and audio'} are limited to ${humanBytes(limit)})`);
    if (kind.width !== null && kind.height !== null && kind.width * kind.height > MEDIA_LIMITS.imageMatrix) {
      throw Errors.validation(`${kind.width}x${kind.height} images are not supported (at most ${MEDIA_LIMITS.imageMatrix} pixels)`);
    }
    const p = Describe.safeParse(req.fields);
    if (!p.success) throw invalid(p.error);
    const meta = {
      accountId: owner,
      description: p.data.description ?? null,
      focusX: p.data.focus?.[0] ?? 0,
      focusY: p.data.focus?.[1] ?? 0,
      remoteUrl: null,
    };
    // Video, audio and animated GIFs are processed after the answer (ffmpeg, actors/media-processor.ts): the file
    // as sent is kept where every node can reach it, and the row is queued. An animated GIF becomes a gifv.
    const gifv = kind.contentType === 'image/gif' && gifFrames(await readFile(f.path)) > 1;
    if (!image || gifv) {
      const source = await d.files.adopt(f.path, kind.contentType);
      const queued = await d.mediaJobs.queue(
        { ...meta, type: gifv ? 'gifv' : kind.type, contentType: kind.contentType, fileName: null, fileSize: f.size, width: null, height: null },
        source,
      );
      d.mediaQueued.wake();
      if (req.path.startsWith('/api/v2/')) return json(202, entity(queued));
      return processed(await waitProcessed(queued));
    }
    const kept = await keepUpload(d, f, kind);
    const m = await d.media.create({
      ...meta,
      type: kind.type,
      contentType: kind.contentType,
      fileName: kept.fileName,
      fileSize: kept.size,
      width: kept.width,
      height: kept.height,
      ...(kept.preview && {
        previewFileName: kept.preview.fileName,
        smallWidth: kept.preview.width,
        smallHeight: kept.preview.height,
        blurhash: kept.preview.blurhash,
      }),
    });
    return json(200, entity(m));
  };
  /** v1 answers once the file is processed (Mastodon's v1 processes before answering); 202 if it takes too long. */
  const waitProcessed = async (m: Media): Promise<Media> => {
    const until = Date.now() + d.v1WaitMs;
    let now = m;
    while ((now.processing === 'queued' || now.processing === 'running') && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, V1_LOOK_MS));
      now = (await d.media.byId(m.id)) ?? now;
    }
    return now;
  };
  /** A processed upload's answer: 200 when done, 422 with the reason when refused, 206 (GET) or 202 while in progress. */
  const processed = (m: Media, pending = 202): Reply => {
    if (m.processing === 'failed') throw Errors.unprocessable(m.processingError ?? 'File could not be processed');
    return json(m.processing === 'done' ? 200 : pending, entity(m));
  };
  /** An upload's file, streamed from storage (with byte ranges, for players that seek); undefined when it is gone. */
  const serveFile = async (req: Request, fileName: string, contentType: string): Promise<Reply | undefined> => {
    const f = await d.files.locate(fileName);
    return f && fileReply(f, req.headers['range'], mediaHeaders(contentType));
  };

  return [
    route({ method: 'POST', path: '/api/v2/media', auth: { scopes: ['write:media'], member: true }, body: true, handler: upload }),
    route({ method: 'POST', path: '/api/v1/media', auth: { scopes: ['write:media'], member: true }, body: true, handler: upload }),
    // Reading one's upload asks write:media too, as before (and as Mastodon's MediaController does).
    route({
      method: 'GET',
      path: '/api/v1/media/:id',
      auth: { scopes: ['write:media'], member: true },
      // Mastodon: 206 Partial Content while the file is being processed.
      handler: async (req, who) => processed(await own(req, who), 206),
    }),
    ...updateRoute({
      path: '/api/v1/media/:id',
      auth: { scopes: ['write:media'], member: true },
      body: true,
      handler: async (req, who) => {
        const m = await own(req, who);
        const p = Describe.safeParse(req.fields);
        if (!p.success) throw invalid(p.error);
        const updated = await d.media.update(m.id, { description: p.data.description, focusX: p.data.focus?.[0], focusY: p.data.focus?.[1] });
        return processed(updated!, 206);
      },
    }),
    route({
      // Mastodon 4.4: an upload no post uses is deleted with its file; one in use is refused with Mastodon's words.
      method: 'DELETE',
      path: '/api/v1/media/:id',
      auth: { scopes: ['write:media'], member: true },
      handler: async (req, who) => {
        const id = req.params['id']!;
        const gone = isId(id) ? await d.media.removeUnattached(who.record.user.accountId, id) : undefined;
        if (!gone) throw Errors.notFound();
        if (gone === 'attached') throw Errors.unprocessable('Media attachment is currently used by a status');
        for (const name of gone.fileNames) {
          // The row is gone, so nothing names the file: a failure to remove it leaves an orphan, not a broken post.
          if (name) await d.files.remove(name).catch((err: unknown) => d.log.warn({ err, name }, 'media file not removed'));
        }
        return json(200, {});
      },
    }),
    route({
      method: 'GET',
      path: '/system/media/:name',
      auth: PUBLIC,
      handler: async (req) => {
        const name = req.params['name']!;
        const m = await d.media.byFileName(name);
        // Uploads only: a remote post's kept file is served by the proxy, which checks who may see the post. A
        // video's poster is served by its own name.
        const type = m?.fileName === name ? m.contentType : MediaFiles.contentTypeOf(name);
        const reply = m && !m.remoteUrl && (await serveFile(req, name, type));
        if (!reply) throw Errors.routeNotFound();
        return reply;
      },
    }),
  ];
}
