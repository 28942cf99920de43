// Member preferences that only the member's own pages and GET /api/v1/preferences read (migration 042). Read from
// the table each time rather than from the signed-in user's record, which a node may hold cached.
import type { Database } from './db.js';

export class MemberPreferenceStore {
  constructor(private readonly db: Database) {}

  /** Whether the member permits direct-origin media fallback after a proxy failure (`media:origin_fallback`). */
  async originFallback(userId: string): Promise<boolean> {
    const r = await this.db.one<{ enabled: boolean }>('SELECT media_origin_fallback AS enabled FROM users WHERE id = $1', [userId]);
    return r?.enabled ?? false;
  }

  async setOriginFallback(userId: string, on: boolean): Promise<void> {
    await this.db.exec('UPDATE users SET media_origin_fallback = $2 WHERE id = $1', [userId, on]);
  }
}
