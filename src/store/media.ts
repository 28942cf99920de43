// Media attachments: a member's uploads (attached to at most one status, in order) and remote posts' media. An
// attachment an edit takes out of a post stays with it, `removed` (its history shows it; a later edit may restore it).
import type { Database, Queryable } from './db.js';

export type MediaType = 'image' | 'gifv' | 'video' | 'audio' | 'unknown';

export interface Media {
  readonly id: string;
  readonly accountId: string;
  readonly statusId: string | null;
  readonly type: MediaType;
  readonly contentType: string;
  readonly fileName: string | null;
  readonly fileSize: number | null;
  readonly width: number | null;
  readonly height: number | null;
  readonly description: string | null;
  readonly focusX: number;
  readonly focusY: number;
  readonly remoteUrl: string | null;
  /** A small preview (Mastodon's `small` style) on the media storage: an image's own, or a processed video's poster
   *  frame; its real size, and its blurhash. */
  readonly previewFileName: string | null;
  readonly smallWidth: number | null;
  readonly smallHeight: number | null;
  readonly blurhash: string | null;
  /** A video or audio upload is 'queued' or 'running' until the media processor is done with it (or 'failed'). */
  readonly processing: MediaProcessing;
  /** Mastodon's meta for a processed video or audio file (length, duration, fps, original, small); null otherwise. */
  readonly meta: Record<string, unknown> | null;
  /** Why processing failed. */
  readonly processingError: string | null;
}

export type MediaProcessing = 'queued' | 'running' | 'done' | 'failed';

/** Fields only the media processor writes (store/media-jobs.ts). */
type ProcessingFields = 'processing' | 'meta' | 'previewFileName' | 'blurhash' | 'processingError';

export interface MediaRow {
  [k: string]: unknown;
  id: string;
  account_id: string;
  status_id: string | null;
  type: MediaType;
  content_type: string;
  file_name: string | null;
  file_size: string | null;
  width: number | null;
  height: number | null;
  description: string | null;
  focus_x: number;
  focus_y: number;
  remote_url: string | null;
  preview_file_name: string | null;
  small_width?: number | null;
  small_height?: number | null;
  blurhash: string | null;
  processing: MediaProcessing;
  meta: Record<string, unknown> | null;
  processing_error: string | null;
}

export const toMedia = (r: MediaRow): Media => ({
  id: r.id,
  accountId: r.account_id,
  statusId: r.status_id,
  type: r.type,
  contentType: r.content_type,
  fileName: r.file_name,
  fileSize: r.file_size === null ? null : Number(r.file_size),
  width: r.width,
  height: r.height,
  description: r.description,
  focusX: r.focus_x,
  focusY: r.focus_y,
  remoteUrl: r.remote_url,
  previewFileName: r.preview_file_name ?? null,
  smallWidth: r.small_width ?? null,
  smallHeight: r.small_height ?? null,
  blurhash: r.blurhash ?? null,
  processing: r.processing,
  meta: r.meta,
  processingError: r.processing_error,
});

/** The preview columns are optional: only an image upload has them when its row is made. */
export type NewMedia = Omit<Media, 'id' | 'statusId' | ProcessingFields | 'smallWidth' | 'smallHeight'> &
  Partial<Pick<Media, 'previewFileName' | 'smallWidth' | 'smallHeight' | 'blurhash'>>;

/** Mastodon's rule (PostStatusService#validate_media!): a video or an audio file is a post's only attachment. */
export function mixesVideo(types: readonly MediaType[]): boolean {
  return types.length > 1 && types.some((t) => t === 'video' || t === 'audio');
}

/** Description and focus an edit sets on one of the post's attachments (Mastodon's media_attributes[]). */
export interface MediaAttributes {
  readonly id: string;
  /** null clears it; undefined leaves it. */
  readonly description?: string | null;
  readonly focus?: readonly [number, number];
}

/** A remote post's attachment as its latest version lists it. */
export type RemoteMedia = Pick<Media, 'type' | 'contentType' | 'description' | 'width' | 'height'> & { readonly url: string };

async function insert(q: Queryable, m: NewMedia, statusId: string | null, position: number): Promise<Media> {
  const r = await q.query<MediaRow>(
    `INSERT INTO media_attachments (account_id, status_id, type, content_type, file_name, file_size, width, height, description,
       focus_x, focus_y, remote_url, position, preview_file_name, small_width, small_height, blurhash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING *`,
    [
      m.accountId,
      statusId,
      m.type,
      m.contentType,
      m.fileName,
      m.fileSize,
      m.width,
      m.height,
      m.description,
      m.focusX,
      m.focusY,
      m.remoteUrl,
      position,
      m.previewFileName ?? null,
      m.smallWidth ?? null,
      m.smallHeight ?? null,
      m.blurhash ?? null,
    ],
  );
  return toMedia(r.rows[0]!);
}

/** The attachments a status shows, in order, with their descriptions (what a version of it records). */
export async function shownMedia(q: Queryable, statusId: string): Promise<{ ids: string[]; descriptions: (string | null)[] }> {
  const rows = (
    await q.query<{ id: string; description: string | null }>(
      'SELECT id, description FROM media_attachments WHERE status_id = $1 AND NOT removed ORDER BY position, id',
      [statusId],
    )
  ).rows;
  return { ids: rows.map((r) => r.id), descriptions: rows.map((r) => r.description) };
}

/** Shows `ids` on the status, in this order; every other attachment it had is hidden. */
async function show(q: Queryable, statusId: string, ids: readonly string[]): Promise<void> {
  await q.query(
    `UPDATE media_attachments m SET status_id = $2, position = t.n, removed = false FROM unnest($1::bigint[]) WITH ORDINALITY AS t(id, n) WHERE m.id = t.id`,
    [ids, statusId],
  );
  await q.query('UPDATE media_attachments SET removed = true WHERE status_id = $1 AND NOT removed AND NOT (id = ANY($2::bigint[]))', [statusId, ids]);
}

/**
 * An edit of a local post: its attachments become `ids`, in order, each an upload of the member that is free or
 * already this post's (shown or taken out earlier), and `attributes` set descriptions and focus on them. null when
 * an id is not such an upload, 'mixed' when a video or audio file would not be alone, 'unready' when one is not
 * processed (nothing is changed in these cases); otherwise whether the post's attachments look any different.
 */
export async function editAttachments(
  q: Queryable,
  accountId: string,
  statusId: string,
  ids: readonly string[],
  attributes: readonly MediaAttributes[],
): Promise<boolean | null | 'mixed' | 'unready'> {
  const before = (await shownMedia(q, statusId)).ids;
  const rows = (
    await q.query<MediaRow>(
      `SELECT * FROM media_attachments WHERE id = ANY($1::bigint[]) AND account_id = $2
         AND ((status_id IS NULL AND scheduled_status_id IS NULL) OR status_id = $3) FOR UPDATE`,
      [ids, accountId, statusId],
    )
  ).rows.map(toMedia);
  if (rows.length !== new Set(ids).size) return null;
  if (mixesVideo(rows.map((r) => r.type))) return 'mixed';
  // Mastodon's UpdateStatusService: an upload not processed (or refused by processing) cannot be added.
  if (rows.some((r) => r.processing !== 'done')) return 'unready';
  let changed = before.join() !== ids.join();
  for (const a of attributes) {
    const m = rows.find((r) => r.id === a.id);
    if (!m) continue; // as Mastodon: attributes of media the post will not have are ignored
    const description = a.description === undefined ? m.description : a.description;
    const [focusX, focusY] = a.focus ?? [m.focusX, m.focusY];
    if (description === m.description && focusX === m.focusX && focusY === m.focusY) continue;
    await q.query('UPDATE media_attachments SET description = $2, focus_x = $3, focus_y = $4 WHERE id = $1', [m.id, description, focusX, focusY]);
    changed = true;
  }
  await show(q, statusId, ids);
  return changed;
}

/**
 * An Update of a remote post: its attachments become `list`. An attachment at a URL the post already had is the
 * same one (as Mastodon assumes), so a file already fetched is kept. Returns whether anything visible changed.
 */
export async function editRemoteAttachments(q: Queryable, accountId: string, statusId: string, list: readonly RemoteMedia[]): Promise<boolean> {
  const before = (await shownMedia(q, statusId)).ids;
  const had = (await q.query<MediaRow>('SELECT * FROM media_attachments WHERE status_id = $1 ORDER BY removed, position, id FOR UPDATE', [statusId])).rows.map(
    toMedia,
  );
  const next: string[] = [];
  let changed = false;
  for (const m of list) {
    const same = had.find((r) => r.remoteUrl === m.url && !next.includes(r.id));
    if (!same) {
      next.push((await insert(q, { ...m, accountId, remoteUrl: m.url, fileName: null, fileSize: null, focusX: 0, focusY: 0 }, statusId, next.length)).id);
      continue;
    }
    next.push(same.id);
    if (same.description !== m.description) {
      await q.query('UPDATE media_attachments SET description = $2 WHERE id = $1', [same.id, m.description]);
      changed = true;
    }
  }
  await show(q, statusId, next);
  return changed || before.join() !== next.join();
}

export class MediaStore {
  constructor(private readonly db: Database) {}

  async create(m: NewMedia, statusId: string | null = null, position = 0): Promise<Media> {
    // In the caller's transaction when there is one: a delivered post or a history page commits with its attachments.
    return this.db.tx((q) => insert(q, m, statusId, position));
  }

  async byId(id: string): Promise<Media | undefined> {
    const r = await this.db.one<MediaRow>('SELECT * FROM media_attachments WHERE id = $1', [id]);
    return r && toMedia(r);
  }

  /** Attachments by id, shown or not (the versions of an edited post name them). */
  async byIds(ids: readonly string[]): Promise<Map<string, Media>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.rows<MediaRow>('SELECT * FROM media_attachments WHERE id = ANY($1::bigint[])', [ids]);
    return new Map(rows.map((r) => [r.id, toMedia(r)]));
  }

  /** The attachment whose file or preview has this name. */
  async byFileName(name: string): Promise<Media | undefined> {
    // A processed video's poster is found by its name too.
    const r = await this.db.one<MediaRow>('SELECT * FROM media_attachments WHERE file_name = $1 OR preview_file_name = $1 LIMIT 1', [name]);
    return r && toMedia(r);
  }

  async update(id: string, p: { description?: string | null; focusX?: number; focusY?: number }): Promise<Media | undefined> {
    const r = await this.db.one<MediaRow>(
      `UPDATE media_attachments SET description = CASE WHEN $2 THEN $3 ELSE description END,
         focus_x = coalesce($4, focus_x), focus_y = coalesce($5, focus_y) WHERE id = $1 RETURNING *`,
      [id, p.description !== undefined, p.description ?? null, p.focusX ?? null, p.focusY ?? null],
    );
    return r && toMedia(r);
  }

  /** Attaches the member's unattached uploads to a status, in the given order; false if any is not theirs or taken. */
  async attach(accountId: string, statusId: string, ids: readonly string[]): Promise<boolean> {
    return this.db
      .tx(async (q) => {
        const n = await q.query(
          `UPDATE media_attachments m SET status_id = $2, position = t.n FROM unnest($3::bigint[]) WITH ORDINALITY AS t(id, n)
         WHERE m.id = t.id AND m.account_id = $1 AND m.status_id IS NULL AND m.scheduled_status_id IS NULL`,
          [accountId, statusId, ids],
        );
        if ((n.rowCount ?? 0) !== ids.length) throw new AttachError();
        return true;
      })
      .catch((e: unknown) => {
        if (e instanceof AttachError) return false;
        throw e;
      });
  }

  /** The types of these uploads when all are the member's and free to attach; null otherwise. */
  async usable(accountId: string, ids: readonly string[]): Promise<MediaType[] | null> {
    const rows = await this.db.rows<{ type: MediaType }>(
      'SELECT type FROM media_attachments WHERE id = ANY($2::bigint[]) AND account_id = $1 AND status_id IS NULL AND scheduled_status_id IS NULL',
      [accountId, ids],
    );
    return rows.length === new Set(ids).size ? rows.map((r) => r.type) : null;
  }

  /** Whether any of these uploads is still being processed ('processing') or was refused by processing ('failed'). */
  async unready(ids: readonly string[]): Promise<'processing' | 'failed' | null> {
    const rows = await this.db.rows<{ processing: MediaProcessing }>(
      `SELECT processing FROM media_attachments WHERE id = ANY($1::bigint[]) AND processing <> 'done'`,
      [ids],
    );
    if (rows.some((r) => r.processing === 'failed')) return 'failed';
    return rows.length > 0 ? 'processing' : null;
  }

  /**
   * Deletes an upload of the member that no status and no scheduled post holds (Mastodon 4.4's DELETE
   * /api/v1/media/:id); its file names (the file, its preview or poster, the file as sent) are returned for the caller to remove the files. 'attached' when it is in use.
   */
  async removeUnattached(accountId: string, id: string): Promise<{ fileNames: string[] } | 'attached' | undefined> {
    // Its poster and the file as sent (a video deleted before it was processed) go with it.
    const r = await this.db.one<{ names: (string | null)[]; held: boolean }>(
      `WITH m AS (SELECT id, ARRAY[file_name, preview_file_name, source_file_name] AS names,
           status_id IS NOT NULL OR scheduled_status_id IS NOT NULL AS held
         FROM media_attachments WHERE id = $1 AND account_id = $2 AND remote_url IS NULL FOR UPDATE),
       gone AS (DELETE FROM media_attachments d USING m WHERE d.id = m.id AND NOT m.held RETURNING d.id)
       SELECT names, held FROM m`,
      [id, accountId],
    );
    if (!r) return undefined;
    return r.held ? 'attached' : { fileNames: r.names.filter((n): n is string => n !== null) };
  }

  async ofStatuses(statusIds: readonly string[]): Promise<Map<string, Media[]>> {
    const out = new Map<string, Media[]>();
    if (statusIds.length === 0) return out;
    const rows = await this.db.rows<MediaRow>(
      'SELECT * FROM media_attachments WHERE status_id = ANY($1::bigint[]) AND NOT removed ORDER BY status_id, position, id',
      [statusIds],
    );
    for (const r of rows) {
      const m = toMedia(r);
      const list = out.get(m.statusId!) ?? [];
      list.push(m);
      out.set(m.statusId!, list);
    }
    return out;
  }

  /**
   * A kept remote image's preview (media-proxy.ts), recorded once: false when the row no longer holds `fileName` or
   * already has a preview (the caller's preview file is then not referenced). The real size is recorded too.
   */
  async previewed(
    id: string,
    fileName: string,
    p: { previewFileName: string; smallWidth: number; smallHeight: number; blurhash: string; width: number; height: number },
  ): Promise<boolean> {
    const n = await this.db.exec(
      `UPDATE media_attachments SET preview_file_name = $3, small_width = $4, small_height = $5, blurhash = $6, width = $7, height = $8
       WHERE id = $1 AND file_name = $2 AND preview_file_name IS NULL`,
      [id, fileName, p.previewFileName, p.smallWidth, p.smallHeight, p.blurhash, p.width, p.height],
    );
    return n > 0;
  }

  /**
   * A remote file now kept here, unless another fetch (on another node) kept one first: `was` is the file name the
   * fetch started from. False when the row had changed (the caller's file is then not referenced).
   */
  async cached(id: string, was: string | null, fileName: string, size: number, contentType: string): Promise<boolean> {
    const n = await this.db.exec(
      'UPDATE media_attachments SET file_name = $3, file_size = $4, content_type = $5 WHERE id = $1 AND file_name IS NOT DISTINCT FROM $2',
      [id, was, fileName, size, contentType],
    );
    return n > 0;
  }
}

class AttachError extends Error {}
