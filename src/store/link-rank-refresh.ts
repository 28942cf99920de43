// When the link aggregator's ranks are refreshed (Lemmy's scheduled hot-rank update): a claim in the settings table
// that one node of the cluster moves forward per period, as the trends' refresh claims its own; the refresh itself
// is LinkAggregatorStore.refreshRanks, in short batches outside the claim's statement.
import type { Database } from './db.js';
import type { LinkAggregatorStore } from './link-aggregator.js';

const REFRESH_KEY = 'lemmy_ranks_refreshed_at';

export class LinkRankRefresh {
  constructor(
    private readonly db: Database,
    private readonly links: LinkAggregatorStore,
  ) {}

  /**
   * Refreshes the ranks if no node has in the last `everyMs`; answers how long until the next refresh is due. A
   * refresh that fails gives its claim back (the last refresh's time), so the next round (or another node) retries.
   */
  async refreshIfDue(at: Date, everyMs: number): Promise<{ refreshed: boolean; posts: number; nextInMs: number }> {
    const claim = await this.db.one<{ previous: string | null }>(
      `WITH old AS (SELECT value FROM settings WHERE key = $1)
       INSERT INTO settings (key, value) VALUES ($1, to_jsonb($2::timestamptz))
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()
         WHERE (settings.value #>> '{}')::timestamptz <= $2::timestamptz - make_interval(secs => $3 / 1000.0)
       RETURNING (SELECT value #>> '{}' FROM old) AS previous`,
      [REFRESH_KEY, at.toISOString(), everyMs],
    );
    if (!claim) {
      const last = await this.db.one<{ at: Date }>(`SELECT (value #>> '{}')::timestamptz AS at FROM settings WHERE key = $1`, [REFRESH_KEY]);
      return { refreshed: false, posts: 0, nextInMs: Math.max(1_000, (last?.at.getTime() ?? 0) + everyMs - at.getTime()) };
    }
    try {
      return { refreshed: true, posts: await this.links.refreshRanks(), nextInMs: everyMs };
    } catch (e) {
      await this.db.exec(
        `UPDATE settings SET value = coalesce(to_jsonb($3::timestamptz), '"-infinity"'::jsonb), updated_at = now()
         WHERE key = $1 AND value = to_jsonb($2::timestamptz)`,
        [REFRESH_KEY, at.toISOString(), claim.previous],
      );
      throw e;
    }
  }
}
