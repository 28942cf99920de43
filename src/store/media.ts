// Media attachments: a member's uploads (attached to at most one status, in order) and remote posts' media.
import type { Database } from './db.js';

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
}

interface Row {
  [k: string]: unknown;
  id: string; account_id: string; status_id: string | null; type: MediaType; content_type: string; file_name: string | null;
  file_size: string | null; width: number | null; height: number | null; description: string | null; focus_x: number; focus_y: number;
  remote_url: string | null;
}

const toMedia = (r: Row): Media => ({
  id: r.id, accountId: r.account_id, statusId: r.status_id, type: r.type, contentType: r.content_type, fileName: r.file_name,
  fileSize: r.file_size === null ? null : Number(r.file_size), width: r.width, height: r.height, description: r.description,
  focusX: r.focus_x, focusY: r.focus_y, remoteUrl: r.remote_url,
});

export type NewMedia = Omit<Media, 'id' | 'statusId'>;

export class MediaStore {
  constructor(private readonly db: Database) {}

  async create(m: NewMedia, statusId: string | null = null, position = 0): Promise<Media> {
    const r = await this.db.one<Row>(
      `INSERT INTO media_attachments (account_id, status_id, type, content_type, file_name, file_size, width, height, description,
         focus_x, focus_y, remote_url, position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
      [m.accountId, statusId, m.type, m.contentType, m.fileName, m.fileSize, m.width, m.height, m.description, m.focusX, m.focusY, m.remoteUrl, position],
    );
    return toMedia(r!);
  }

  async byId(id: string): Promise<Media | undefined> {
    const r = await this.db.one<Row>('SELECT * FROM media_attachments WHERE id = $1', [id]);
    return r && toMedia(r);
  }

  async byFileName(name: string): Promise<Media | undefined> {
    const r = await this.db.one<Row>('SELECT * FROM media_attachments WHERE file_name = $1', [name]);
    return r && toMedia(r);
  }

  async update(id: string, p: { description?: string | null; focusX?: number; focusY?: number }): Promise<Media | undefined> {
    const r = await this.db.one<Row>(
      `UPDATE media_attachments SET description = CASE WHEN $2 THEN $3 ELSE description END,
         focus_x = coalesce($4, focus_x), focus_y = coalesce($5, focus_y) WHERE id = $1 RETURNING *`,
      [id, p.description !== undefined, p.description ?? null, p.focusX ?? null, p.focusY ?? null],
    );
    return r && toMedia(r);
  }

  /** Attaches the member's unattached uploads to a status, in the given order; false if any is not theirs or taken. */
  async attach(accountId: string, statusId: string, ids: readonly string[]): Promise<boolean> {
    return this.db.tx(async (q) => {
      const n = await q.query(
        `UPDATE media_attachments m SET status_id = $2, position = t.n FROM unnest($3::bigint[]) WITH ORDINALITY AS t(id, n)
         WHERE m.id = t.id AND m.account_id = $1 AND m.status_id IS NULL`,
        [accountId, statusId, ids],
      );
      if ((n.rowCount ?? 0) !== ids.length) throw new AttachError();
      return true;
    }).catch((e: unknown) => {
      if (e instanceof AttachError) return false;
      throw e;
    });
  }

  /** Whether every id is an upload of the member not yet attached to a status. */
  async usable(accountId: string, ids: readonly string[]): Promise<boolean> {
    const r = await this.db.one<{ n: number }>(
      'SELECT count(*)::int AS n FROM media_attachments WHERE id = ANY($2::bigint[]) AND account_id = $1 AND status_id IS NULL',
      [accountId, ids],
    );
    return r?.n === new Set(ids).size;
  }

  async ofStatuses(statusIds: readonly string[]): Promise<Map<string, Media[]>> {
    const out = new Map<string, Media[]>();
    if (statusIds.length === 0) return out;
    const rows = await this.db.rows<Row>('SELECT * FROM media_attachments WHERE status_id = ANY($1::bigint[]) ORDER BY status_id, position, id', [statusIds]);
    for (const r of rows) {
      const m = toMedia(r);
      const list = out.get(m.statusId!) ?? [];
      list.push(m);
      out.set(m.statusId!, list);
    }
    return out;
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
