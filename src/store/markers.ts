// Reading positions (Mastodon markers): the last read id per timeline, with a version that counts updates.
import type { Database } from './db.js';

export const MARKER_TIMELINES = ['home', 'notifications'] as const;
export type MarkerTimeline = (typeof MARKER_TIMELINES)[number];

export interface Marker {
  readonly timeline: MarkerTimeline;
  readonly lastReadId: string;
  readonly version: number;
  readonly updatedAt: Date;
}

export class MarkerStore {
  constructor(private readonly db: Database) {}

  async get(accountId: string, timelines: readonly MarkerTimeline[]): Promise<Marker[]> {
    const rows = await this.db.rows<{ timeline: MarkerTimeline; last_read_id: string; version: number; updated_at: Date }>(
      'SELECT timeline, last_read_id, version, updated_at FROM markers WHERE account_id = $1 AND timeline = ANY($2::text[])',
      [accountId, timelines],
    );
    return rows.map((r) => ({ timeline: r.timeline, lastReadId: r.last_read_id, version: r.version, updatedAt: r.updated_at }));
  }

  async set(accountId: string, timeline: MarkerTimeline, lastReadId: string): Promise<void> {
    await this.db.exec(
      `INSERT INTO markers (account_id, timeline, last_read_id) VALUES ($1, $2, $3)
       ON CONFLICT (account_id, timeline) DO UPDATE SET last_read_id = EXCLUDED.last_read_id, version = markers.version + 1, updated_at = now()`,
      [accountId, timeline, lastReadId],
    );
  }
}
