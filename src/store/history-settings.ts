// The operator's remote-history settings (the feature switch, bare-IRI resolution, retention), one JSON row of the
// settings table, so every node reads the same and an operator changes them at run time.
//
// Read on the hot path (every member's view of a remote account's statuses), so each node caches them
// (ClusterCached); a change notifies `settings:remote_history`.
import { WORK_CHANNEL } from './auth-events.js';
import { ClusterCached } from './cluster-cached.js';
import type { Database } from './db.js';
import { DEFAULT_HISTORY_SETTINGS, type HistorySettings } from './history-types.js';

export const HISTORY_SETTINGS_KEY = 'remote_history';

export class HistorySettingsStore {
  private readonly copy = new ClusterCached(async (): Promise<HistorySettings> => {
    const row = await this.db.one<{ value: Partial<HistorySettings> }>('SELECT value FROM settings WHERE key = $1', [HISTORY_SETTINGS_KEY]);
    return Object.freeze({ ...DEFAULT_HISTORY_SETTINGS, ...row?.value });
  });

  constructor(private readonly db: Database) {}

  current(): Promise<HistorySettings> {
    return this.copy.get();
  }

  /**
   * Changes some settings (merged in the database, so two operators changing different settings both win); the
   * caller has validated them (1 ≤ retentionDays ≤ 3650). Every node drops its cached copy when this commits.
   */
  async update(change: Partial<HistorySettings>): Promise<HistorySettings> {
    const next = await this.db.tx(async () => {
      const r = await this.db.one<{ value: Partial<HistorySettings> }>(
        `INSERT INTO settings (key, value) VALUES ($1, $2::jsonb)
         ON CONFLICT (key) DO UPDATE SET value = settings.value || EXCLUDED.value, updated_at = now()
         RETURNING value`,
        [HISTORY_SETTINGS_KEY, JSON.stringify(change)],
      );
      await this.db.exec(`SELECT pg_notify('${WORK_CHANNEL}', 'settings:' || $1)`, [HISTORY_SETTINGS_KEY]);
      return Object.freeze({ ...DEFAULT_HISTORY_SETTINGS, ...r!.value });
    });
    // This node hears its own notification too, but later: its next read must already see the change.
    this.db.afterCommit(() => this.invalidate());
    return next;
  }

  /** Drops the cached copy (a node changed the settings). */
  invalidate(): void {
    this.copy.invalidate();
  }

  /** The change stream is (re)connected or broken: until it is connected, every read goes to the database. */
  reset(connected: boolean): void {
    this.copy.reset(connected);
  }
}
