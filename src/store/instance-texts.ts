// The operator's texts and switches shown by /api/v1/instance/*: the extended description, the privacy policy, the
// terms of service (each version with the date it takes effect, as Mastodon 4.4 keeps them) and Mastodon's
// peers_api_enabled / activity_api_enabled settings (on unless switched off). Kept in the settings table, one key
// each, with the time each was last changed.
import type { Database } from './db.js';

export interface InstanceText {
  readonly text: string;
  readonly updatedAt: Date;
}

/** One version of the terms of service. */
export interface TermsVersion {
  /** YYYY-MM-DD, the day it takes effect (unique). */
  readonly effectiveDate: string;
  readonly text: string;
}

export type TextKey = 'extended_description' | 'privacy_policy';
export type SwitchKey = 'peers_api_enabled' | 'activity_api_enabled';

const KEY = (k: string) => `instance.${k}`;

export class InstanceTextStore {
  constructor(private readonly db: Database) {}

  /** A text, or undefined when the operator has written none (or emptied it). */
  async text(k: TextKey): Promise<InstanceText | undefined> {
    const r = await this.db.one<{ value: unknown; updated_at: Date }>('SELECT value, updated_at FROM settings WHERE key = $1', [KEY(k)]);
    return r && typeof r.value === 'string' && r.value.trim() !== '' ? { text: r.value, updatedAt: r.updated_at } : undefined;
  }

  async setText(k: TextKey, text: string): Promise<void> {
    await this.put(KEY(k), text);
  }

  async enabled(k: SwitchKey): Promise<boolean> {
    const r = await this.db.one<{ value: unknown }>('SELECT value FROM settings WHERE key = $1', [KEY(k)]);
    return r?.value !== false;
  }

  async setEnabled(k: SwitchKey, on: boolean): Promise<void> {
    await this.put(KEY(k), on);
  }

  /** Every version of the terms, the earliest first. */
  async terms(): Promise<TermsVersion[]> {
    const r = await this.db.one<{ value: unknown }>('SELECT value FROM settings WHERE key = $1', [KEY('terms_of_service')]);
    const list = Array.isArray(r?.value) ? (r.value as TermsVersion[]) : [];
    return [...list].sort((a, b) => a.effectiveDate.localeCompare(b.effectiveDate));
  }

  /** Adds a version, or replaces the one taking effect that day; an empty text removes that day's version. */
  async setTerms(effectiveDate: string, text: string): Promise<void> {
    await this.db.tx(async (q) => {
      const r = await q.query<{ value: unknown }>('SELECT value FROM settings WHERE key = $1 FOR UPDATE', [KEY('terms_of_service')]);
      const list = (Array.isArray(r.rows[0]?.value) ? (r.rows[0].value as TermsVersion[]) : []).filter((t) => t.effectiveDate !== effectiveDate);
      if (text.trim() !== '') list.push({ effectiveDate, text });
      await q.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`, [
        KEY('terms_of_service'),
        JSON.stringify(list),
      ]);
    });
  }

  private async put(key: string, value: unknown): Promise<void> {
    await this.db.exec(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`, [
      key,
      JSON.stringify(value),
    ]);
  }
}
