// Member preferences that the member's own pages and GET /api/v1/preferences read (migration 042), and the languages
// the public feeds show them (migration 051, read by the feeds' SQL itself: visibility.ts inChosenLanguage). Read from
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

  /** The languages the member reads in the public and hashtag feeds (Mastodon's chosen_languages); null: all. */
  async chosenLanguages(userId: string): Promise<string[] | null> {
    const r = await this.db.one<{ langs: string[] | null }>('SELECT chosen_languages AS langs FROM users WHERE id = $1', [userId]);
    return r?.langs ?? null;
  }

  /** None chosen (an empty list) means all, as Mastodon keeps it: null. */
  async setChosenLanguages(userId: string, langs: readonly string[]): Promise<void> {
    await this.db.exec('UPDATE users SET chosen_languages = $2 WHERE id = $1', [userId, langs.length ? [...new Set(langs)].sort() : null]);
  }
}
