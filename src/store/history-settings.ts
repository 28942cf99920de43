// The operator's remote-history settings (the feature switch, bare-IRI resolution, retention), one JSON row of the
// settings table, so every node reads the same and an operator changes them at run time.
import type { Database } from './db.js';
import { DEFAULT_HISTORY_SETTINGS, type HistorySettings } from './history-types.js';
import { SettingsStore } from './settings.js';

const KEY = 'remote_history';

export class HistorySettingsStore {
  private readonly settings: SettingsStore;

  constructor(db: Database) {
    this.settings = new SettingsStore(db);
  }

  async current(): Promise<HistorySettings> {
    const stored = await this.settings.get<Partial<HistorySettings>>(KEY);
    return { ...DEFAULT_HISTORY_SETTINGS, ...stored };
  }

  /** Changes some settings; the caller has validated them (1 ≤ retentionDays ≤ 3650). */
  async update(change: Partial<HistorySettings>): Promise<HistorySettings> {
    const next = { ...(await this.current()), ...change };
    await this.settings.set(KEY, next);
    return next;
  }
}
