// Instance settings stored in the database (operator switches, generated secrets).
import { randomBytes } from 'node:crypto';
import type { Database } from './db.js';

export class SettingsStore {
  constructor(private readonly db: Database) {}

  async get<T>(key: string): Promise<T | undefined> {
    const r = await this.db.one<{ value: T }>('SELECT value FROM settings WHERE key = $1', [key]);
    return r?.value;
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.db.exec(
      `INSERT INTO settings (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
      [key, JSON.stringify(value)],
    );
  }

  /** A secret generated once and shared by every node using this database. */
  async secret(key: string): Promise<Buffer> {
    const candidate = randomBytes(32).toString('base64url');
    await this.db.exec('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, JSON.stringify(candidate)]);
    const stored = await this.get<string>(key);
    return Buffer.from(stored!, 'base64url');
  }

  /**
   * A value generated once for the whole cluster (VAPID keys): inserted if absent, then read back, so nodes starting
   * together all keep the one that was stored first.
   */
  async generated<T>(key: string, make: () => T): Promise<T> {
    await this.db.exec('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, JSON.stringify(make())]);
    return (await this.get<T>(key))!;
  }
}
