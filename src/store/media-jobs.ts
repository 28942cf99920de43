// The media processor's queue: video and audio uploads waiting to be made servable (migration 075). A job is the
// attachment row itself: 'queued' when uploaded, 'running' under a lease (owner, until) while a processor works on
// it, then 'done' or 'failed'. A lease that ran out (its node died, or was killed mid-transcode) is claimed again;
// a job claimed MAX_ATTEMPTS times without finishing (a file that kills whoever processes it) fails.
import { WORK_CHANNEL } from './auth-events.js';
import type { Database } from './db.js';
import { toMedia, type Media, type MediaRow, type NewMedia } from './media.js';

export const MAX_ATTEMPTS = 3;

export interface MediaJob {
  readonly media: Media;
  /** The file as sent, on the media storage. */
  readonly sourceFileName: string;
  readonly attempt: number;
}

export interface ProcessedMedia {
  readonly type: 'video' | 'gifv' | 'audio';
  readonly contentType: string;
  readonly fileName: string;
  readonly fileSize: number;
  readonly width: number | null;
  readonly height: number | null;
  readonly previewFileName: string | null;
  readonly smallWidth: number | null;
  readonly smallHeight: number | null;
  readonly blurhash: string | null;
  readonly meta: Record<string, unknown>;
}

export class MediaJobStore {
  constructor(private readonly db: Database) {}

  /** An upload to be processed: the row, 'queued', with the file as sent (served by nobody until processed). */
  async queue(m: NewMedia, sourceFileName: string): Promise<Media> {
    // Every node's processor hears of it (stoa_work 'media'); this node's is also kicked through its wake port.
    const r = await this.db.one<MediaRow>(
      `WITH m AS (
         INSERT INTO media_attachments (account_id, type, content_type, file_size, description, focus_x, focus_y, processing, source_file_name)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', $8) RETURNING *
       ), told AS (SELECT pg_notify('${WORK_CHANNEL}', 'media'))
       SELECT m.* FROM m, told`,
      [m.accountId, m.type, m.contentType, m.fileSize, m.description, m.focusX, m.focusY, sourceFileName],
    );
    return toMedia(r!);
  }

  /**
   * Takes the oldest job that is queued or whose lease ran out, for `owner`, leased for `leaseMs`. A job out of
   * attempts is failed instead (and its source file name returned for removal).
   */
  async claim(owner: string, leaseMs: number): Promise<{ job: MediaJob | null; exhausted: string[] }> {
    const exhausted = await this.db.rows<{ source_file_name: string | null }>(
      `WITH old AS (SELECT id, source_file_name FROM media_attachments
                    WHERE processing = 'running' AND lease_until < now() AND attempts >= $1 FOR UPDATE SKIP LOCKED)
       UPDATE media_attachments m SET processing = 'failed', processing_error = 'File could not be processed', lease_owner = NULL,
         lease_until = NULL, source_file_name = NULL
       FROM old WHERE m.id = old.id RETURNING old.source_file_name`,
      [MAX_ATTEMPTS],
    );
    const r = await this.db.one<MediaRow & { source_file_name: string; attempts: number }>(
      `UPDATE media_attachments SET processing = 'running', lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond',
         attempts = attempts + 1
       WHERE id = (SELECT id FROM media_attachments
                   WHERE (processing = 'queued' OR (processing = 'running' AND lease_until < now())) AND attempts < $3
                   ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [owner, leaseMs, MAX_ATTEMPTS],
    );
    return {
      job: r ? { media: toMedia(r), sourceFileName: r.source_file_name, attempt: r.attempts } : null,
      exhausted: exhausted.flatMap((x) => (x.source_file_name ? [x.source_file_name] : [])),
    };
  }

  /** Milliseconds until a job held by another lease could be taken over (0: now); null when none is running. */
  async nextLeaseEndMs(): Promise<number | null> {
    const r = await this.db.one<{ ms: number | null }>(
      `SELECT (extract(epoch FROM min(lease_until) - now()) * 1000)::float8 AS ms FROM media_attachments
       WHERE processing = 'running' AND attempts <= $1`,
      [MAX_ATTEMPTS],
    );
    return r?.ms === null || r?.ms === undefined ? null : Math.max(0, r.ms);
  }

  /** Extends the lease while the work goes on; false when the job is no longer this owner's. */
  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const n = await this.db.exec(
      `UPDATE media_attachments SET lease_until = now() + $3 * interval '1 millisecond'
       WHERE id = $1 AND processing = 'running' AND lease_owner = $2`,
      [id, owner, leaseMs],
    );
    return n > 0;
  }

  /** The job done; false when it was no longer this owner's (the caller's files are then not referenced). */
  async done(id: string, owner: string, p: ProcessedMedia): Promise<boolean> {
    const n = await this.db.exec(
      `UPDATE media_attachments SET processing = 'done', type = $3, content_type = $4, file_name = $5, file_size = $6, width = $7,
         height = $8, preview_file_name = $9, small_width = $10, small_height = $11, blurhash = $12, meta = $13,
         source_file_name = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = $1 AND processing = 'running' AND lease_owner = $2`,
      [
        id,
        owner,
        p.type,
        p.contentType,
        p.fileName,
        p.fileSize,
        p.width,
        p.height,
        p.previewFileName,
        p.smallWidth,
        p.smallHeight,
        p.blurhash,
        JSON.stringify(p.meta),
      ],
    );
    return n > 0;
  }

  /** The job failed for good (the file is refused): the row says why. */
  async failed(id: string, owner: string, error: string): Promise<boolean> {
    const n = await this.db.exec(
      `UPDATE media_attachments SET processing = 'failed', processing_error = $3, source_file_name = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = $1 AND processing = 'running' AND lease_owner = $2`,
      [id, owner, error],
    );
    return n > 0;
  }
}
