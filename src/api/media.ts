// Media: uploads (POST /api/v2/media and the older /api/v1/media; multipart, type from the bytes, size-limited),
// reading and describing one's uploads, serving local files, and a proxy that fetches a remote post's media on
// first view (through the SSRF-guarded client, size-capped) and keeps it.
import { z } from 'zod';
import { Errors } from '../errors.js';
import { FetchError } from '../federation/fetch-errors.js';
import type { HttpClient, Signer } from '../federation/http-client.js';
import { fileReply } from '../http/file-body.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import type { Reply, Route } from '../http/types.js';
import { mediaEntity } from '../entities/media.js';
import type { Logger } from '../log.js';
import type { MediaFiles } from '../media/media-files.js';
import { sniff } from '../media/sniff.js';
import type { BearerAuth, Requirement } from '../oauth/bearer.js';
import { isId } from '../store/ids.js';
import { description, focus } from './params.js';
import type { Media, MediaStore } from '../store/media.js';

const WRITE: Requirement = { scopes: ['write:media'], user: true };
export const MAX_IMAGE_BYTES = 16 * 1024 * 1024;
export const MAX_VIDEO_BYTES = 40 * 1024 * 1024;

const Describe = z.object({ description: description.optional(), focus: focus.optional() });

export interface MediaApiDeps {
  readonly baseUrl: string;
  readonly log: Logger;
  readonly bearer: BearerAuth;
  readonly media: MediaStore;
  readonly files: MediaFiles;
  readonly http: HttpClient;
  readonly signer: Signer;
}

function file(v: unknown): { data: Buffer; contentType: string } | null {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'file' ? (v as { data: Buffer; contentType: string }) : null;
}

export function mediaRoutes(d: MediaApiDeps): Route[] {
  const me = async (req: Request) => (await d.bearer.authenticate(req, WRITE)).record.user!.accountId;
  const own = async (req: Request): Promise<Media> => {
    const owner = await me(req);
    const id = req.params['id']!;
    const m = isId(id) ? await d.media.byId(id) : undefined;
    if (!m || m.accountId !== owner) throw Errors.notFound();
    return m;
  };
  const upload = async (req: Request): Promise<Reply> => {
    const owner = await me(req);
    const f = file(req.fields['file']);
    if (!f) throw Errors.validation('file is required (multipart/form-data)');
    const kind = sniff(f.data);
    if (!kind) throw Errors.unprocessable('Validation failed: File content type is not supported', 'Images (PNG, JPEG, GIF, WebP, AVIF), MP4 and WebM video, MP3, Ogg and M4A audio');
    const limit = kind.type === 'image' ? MAX_IMAGE_BYTES : MAX_VIDEO_BYTES;
    if (f.data.length > limit) throw Errors.bodyTooLarge(limit);
    const p = Describe.safeParse(req.fields);
    if (!p.success) throw Errors.validation(p.error.issues[0]!.message);
    const fileName = await d.files.save(f.data, kind.contentType);
    const m = await d.media.create({
      accountId: owner, type: kind.type, contentType: kind.contentType, fileName, fileSize: f.data.length, width: kind.width, height: kind.height,
      description: p.data.description ?? null, focusX: p.data.focus?.[0] ?? 0, focusY: p.data.focus?.[1] ?? 0, remoteUrl: null,
    });
    return json(200, mediaEntity(m, d.baseUrl));
  };
  const headersFor = (contentType: string) => ({
    'Content-Type': contentType,
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  });
  /** A stored file, streamed from disk (with byte ranges, for players that seek); undefined when it is gone. */
  const serveFile = async (req: Request, fileName: string, contentType: string): Promise<Reply | undefined> => {
    const f = await d.files.locate(fileName);
    return f && fileReply(f.path, f.size, req.headers['range'], headersFor(contentType));
  };

  return [
    { method: 'POST', path: '/api/v2/media', body: true, handler: upload },
    { method: 'POST', path: '/api/v1/media', body: true, handler: upload },
    { method: 'GET', path: '/api/v1/media/:id', handler: async (req) => json(200, mediaEntity(await own(req), d.baseUrl)) },
    {
      method: 'PUT',
      path: '/api/v1/media/:id',
      body: true,
      handler: async (req) => {
        const m = await own(req);
        const p = Describe.safeParse(req.fields);
        if (!p.success) throw Errors.validation(p.error.issues[0]!.message);
        const updated = await d.media.update(m.id, { description: p.data.description, focusX: p.data.focus?.[0], focusY: p.data.focus?.[1] });
        return json(200, mediaEntity(updated!, d.baseUrl));
      },
    },
    {
      method: 'GET',
      path: '/system/media/:name',
      handler: async (req) => {
        const m = await d.media.byFileName(req.params['name']!);
        const reply = m && (await serveFile(req, m.fileName!, m.contentType));
        if (!reply) throw Errors.routeNotFound();
        return reply;
      },
    },
    {
      method: 'GET',
      path: '/media_proxy/:id',
      handler: async (req) => {
        const id = req.params['id']!;
        const m = isId(id) ? await d.media.byId(id) : undefined;
        if (!m || !m.remoteUrl) throw Errors.routeNotFound();
        const kept = m.fileName ? await serveFile(req, m.fileName, m.contentType) : undefined;
        if (kept) return kept;
        try {
          const res = await d.http.request({ method: 'GET', url: m.remoteUrl, sign: d.signer, maxBytes: m.type === 'image' ? MAX_IMAGE_BYTES : MAX_VIDEO_BYTES });
          if (res.status !== 200) throw new FetchError('transient', `status_${res.status}`, m.remoteUrl);
          const kind = sniff(res.body);
          // The bytes decide what is served: a remote "image" that is really HTML is not passed on.
          if (!kind || (kind.type !== m.type && !(m.type === 'gifv' && kind.type === 'video'))) throw new FetchError('unsupported', 'media_type_mismatch', m.remoteUrl);
          const fileName = await d.files.save(res.body, kind.contentType);
          await d.media.cached(m.id, fileName, res.body.length, kind.contentType);
          return (await serveFile(req, fileName, kind.contentType)) ?? { status: 200, headers: headersFor(kind.contentType), body: res.body };
        } catch (e) {
          if (!(e instanceof FetchError)) throw e;
          d.log.info({ media: m.id, url: m.remoteUrl, reason: e.reason }, 'remote media not fetched');
          return json(502, { error: 'The remote media could not be fetched' });
        }
      },
    },
  ];
}
