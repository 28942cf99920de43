// RemoteHistory (ours; issue 16): a remote actor's history record as members' clients see it, from both
// remote_history endpoints. `retry_at` only while in backoff; `can_load_older` offers "Load older posts".
import type { HistoryRecord } from '../store/history-types.js';

export function remoteHistoryEntity(r: HistoryRecord, enabled: boolean) {
  return {
    account_id: r.accountId,
    state: r.state,
    enabled,
    attempts: r.attempts,
    retry_at: r.state === 'backoff' && r.retryAt ? r.retryAt.toISOString() : null,
    items_examined: r.itemsExamined,
    items_imported: r.itemsImported,
    pages_fetched: r.pagesFetched,
    last_fetched_at: r.lastFetchedAt ? r.lastFetchedAt.toISOString() : null,
    reason: r.reason,
    can_load_older: r.state === 'partial' && enabled,
  };
}

/** The operator's settings as the admin endpoints show them. */
export function historySettingsEntity(s: { readonly enabled: boolean; readonly bareIri: boolean; readonly retentionDays: number }) {
  return { enabled: s.enabled, bare_iri: s.bareIri, retention_days: s.retentionDays };
}
