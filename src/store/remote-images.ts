// Copies of remote avatars and headers we keep, by their URL (migration 020).
import type { Database } from './db.js';

export interface RemoteImage {
  readonly url: string;
  readonly fileName: string;
  readonly contentType: string;
}

export class RemoteImageStore {
  constructor(private readonly db: Database) {}

  async byUrl(url: string): Promise<RemoteImage | undefined> {
    const r = await this.db.one<{ url: string; file_name: string; content_type: string }>(
      'SELECT url, file_name, content_type FROM remote_images WHERE url = $1',
      [url],
    );
    return r && { url: r.url, fileName: r.file_name, contentType: r.content_type };
  }

  /**
   * Records a fetched copy (a copy fetched again replaces the one before, whose file was gone); the file name it
   * replaced, if any, for the caller to delete.
   */
  async put(url: string, fileName: string, contentType: string, byteSize: number): Promise<string | undefined> {
    const r = await this.db.one<{ replaced: string | null }>(
      `WITH old AS (SELECT file_name FROM remote_images WHERE url = $1 FOR UPDATE)
       INSERT INTO remote_images (url, file_name, content_type, byte_size) VALUES ($1, $2, $3, $4)
       ON CONFLICT (url) DO UPDATE SET file_name = EXCLUDED.file_name, content_type = EXCLUDED.content_type, byte_size = EXCLUDED.byte_size
       RETURNING (SELECT file_name FROM old) AS replaced`,
      [url, fileName, contentType, byteSize],
    );
    return r?.replaced ?? undefined;
  }
}
